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
        var result: [Counter] = []
        var seen = Set<Int>()
        var pager = Pager(wanted: Int.max, pageSize: perPage, hardCap: Pager.counterListHardCap)
        while let next = pager.nextPage {
            var query: [(String, String)] = [("offset", String(next.offset)), ("per_page", String(perPage))]
            if let search, !search.isEmpty { query.append(("search_string", search)) }
            if let status { query.append(("status", status)) }
            let page: CounterListResponse = try await get("/management/v1/counters", query: query)
            let before = result.count
            for wire in page.counters where seen.insert(wire.counter.id).inserted {
                result.append(wire.counter)
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

    /// A counter's chart annotations (date, time, title, message, group), in the API's order.
    package func fetchAnnotations(counterID: Int) async throws -> [Annotation] {
        let response: AnnotationsResponse = try await get(
            "/management/v1/counter/\(counterID)/chart_annotations", query: [])
        return response.annotations
    }
}
