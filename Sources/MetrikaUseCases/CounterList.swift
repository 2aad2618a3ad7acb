import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore

/// The counters the token can read, each with the currency the history remembers for it (no request
/// per counter; without a history, none): what `metrika counters` and MCP's `list_counters` list.
package enum CounterList {
    package static func fetch(
        client: MetrikaClient, search: String?, status: String? = nil, history: HistoryStore?
    ) async throws -> (items: [CounterListing.Item], warning: String?) {
        let (counters, warning) = try await client.fetchCounterList(search: search, status: status)
        var items: [CounterListing.Item] = []
        for counter in counters {
            items.append(
                CounterListing.Item(
                    counter: counter, currency: (try? await history?.counterCurrency(id: counter.id))??.code))
        }
        return (items, warning)
    }
}
