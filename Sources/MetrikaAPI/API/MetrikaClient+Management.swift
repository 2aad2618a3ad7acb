import Foundation
import MetrikaModel

/// The Management API: counters and goals.
extension MetrikaClient {
    // MARK: - Management API

    /// Every counter the token can see, following `offset`/`per_page` paging until `offset > rows`.
    package func fetchCounters(search: String? = nil, status: String? = nil, perPage: Int = 1000) async throws
        -> [Counter]
    {
        try await fetchCounterList(search: search, status: status, perPage: perPage).counters
    }

    /// The counters list and, when the server's paging was not believable (a short page, a page of
    /// ids already seen, the request cap), a one-line warning for stderr.
    package func fetchCounterList(search: String? = nil, status: String? = nil, perPage: Int = 1000) async throws -> (
        counters: [Counter], warning: String?
    ) {
        let (wires, warning) = try await fetchCounterPages(search: search, status: status, perPage: perPage)
        return (wires.map(\.counter), warning)
    }

    /// The counters list with every counter's goals in it (`field=goals`): what a check of every
    /// counter needs, in one request per 1,000 counters instead of one per counter. `goals` holds the
    /// counters whose answer carried a goals list (an API that left it out: none, read on their own).
    package func fetchCounterListWithGoals(perPage: Int = 1000) async throws -> (
        counters: [Counter], goals: [Int: [Goal]], warning: String?
    ) {
        let (wires, warning) = try await fetchCounterPages(
            search: nil, status: nil, perPage: perPage, extra: [("field", "goals")])
        var goals: [Int: [Goal]] = [:]
        for wire in wires { if let list = wire.goals { goals[wire.counter.id] = list } }
        return (wires.map(\.counter), goals, warning)
    }

    /// The list's pages, following `offset`/`per_page` until `offset > rows`, each counter once.
    private func fetchCounterPages(
        search: String?, status: String?, perPage: Int, extra: [(String, String)] = []
    ) async throws -> (counters: [WireCounter], warning: String?) {
        var result: [WireCounter] = []
        var seen = Set<Int>()
        var pager = Pager(wanted: Int.max, pageSize: perPage, hardCap: Pager.counterListHardCap)
        while let next = pager.nextPage {
            var query: [(String, String)] = [("offset", String(next.offset)), ("per_page", String(perPage))]
            if let search, !search.isEmpty { query.append(("search_string", search)) }
            if let status { query.append(("status", status)) }
            query += extra
            let page: CounterListResponse = try await get("/management/v1/counters", query: query)
            let before = result.count
            for wire in page.counters where seen.insert(wire.counter.id).inserted {
                result.append(wire)
            }
            pager.record(rowCount: page.counters.count, newRows: result.count - before, claimedTotal: page.rows)
        }
        return (result, pager.warning("the counters list"))
    }

    /// One counter by id.
    package func fetchCounter(id: Int) async throws -> Counter {
        let response: CounterResponse = try await get("/management/v1/counter/\(id)", query: [])
        return response.counter.counter
    }

    /// A counter's goals (id, name, type), in the API's order.
    package func fetchGoals(counterID: Int) async throws -> [Goal] {
        let response: GoalsResponse = try await get("/management/v1/counter/\(counterID)/goals", query: [])
        return response.goals
    }
}
