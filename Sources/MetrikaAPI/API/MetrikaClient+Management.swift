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
        if let routing { return try await fetchRoutedCounterList(routing, search: search, status: status) }
        return try await fetchCounterList(search: search, status: status, perPage: perPage, route: nil)
    }

    /// The union of the profiles' counters lists, each counter with the profile that reads it
    /// (`ProfileRouting.merge`); a full list (no search, active counters) is what the routing learns.
    func fetchRoutedCounterList(_ routing: ProfileRouting, search: String?, status: String?) async throws -> (
        counters: [Counter], warning: String?
    ) {
        let routed = try await fetchRoutedCounterPages(routing, search: search, status: status, extra: [])
        return (routed.wires.map(\.counter), routed.warning)
    }

    /// Every profile's pages, merged: each counter once, with the profile that reads it.
    private func fetchRoutedCounterPages(
        _ routing: ProfileRouting, search: String?, status: String?, extra: [(String, String)]
    ) async throws -> (wires: [WireCounter], warning: String?) {
        var lists: [[WireCounter]] = []
        var warnings: [String] = []
        for route in routing.routes {
            let list = try await fetchCounterPages(
                search: search, status: status, perPage: 1000, route: route, extra: extra)
            lists.append(list.counters)
            if let warning = list.warning { warnings.append(warning) }
        }
        let merged = ProfileRouting.merge(lists.map { $0.map(\.counter) }, routes: routing.routes)
        if search == nil, status == nil || status == "Active", !routing.isLearnt { routing.learn(merged.owners) }
        var wires: [Int: WireCounter] = [:]
        for (index, list) in lists.enumerated() {
            for wire in list where merged.owners[wire.counter.id] == index { wires[wire.counter.id] = wire }
        }
        let result = merged.counters.compactMap { counter in
            wires[counter.id].map { WireCounter(counter: counter, goals: $0.goals) }
        }
        return (result, warnings.first)
    }

    /// One login's counters list, paged.
    func fetchCounterList(search: String?, status: String?, perPage: Int, route: APIRoute?) async throws -> (
        counters: [Counter], warning: String?
    ) {
        let (wires, warning) = try await fetchCounterPages(
            search: search, status: status, perPage: perPage, route: route)
        return (wires.map(\.counter), warning)
    }

    /// The counters list with every counter's goals in it (`field=goals`): what a check of every
    /// counter needs, in one request per 1,000 counters instead of one per counter. `goals` holds the
    /// counters whose answer carried a goals list (an API that left it out: none, read on their own).
    package func fetchCounterListWithGoals(perPage: Int = 1000) async throws -> (
        counters: [Counter], goals: [Int: [Goal]], warning: String?
    ) {
        let extra = [("field", "goals")]
        let (wires, warning) =
            if let routing {
                try await fetchRoutedCounterPages(routing, search: nil, status: nil, extra: extra)
            } else {
                try await fetchCounterPages(search: nil, status: nil, perPage: perPage, route: nil, extra: extra)
            }
        var goals: [Int: [Goal]] = [:]
        for wire in wires { if let list = wire.goals { goals[wire.counter.id] = list } }
        return (wires.map(\.counter), goals, warning)
    }

    /// One login's list pages, following `offset`/`per_page` until `offset > rows`, each counter once.
    private func fetchCounterPages(
        search: String?, status: String?, perPage: Int, route: APIRoute?, extra: [(String, String)] = []
    ) async throws -> (counters: [WireCounter], warning: String?) {
        var result: [WireCounter] = []
        var seen = Set<Int>()
        var pager = Pager(wanted: Int.max, pageSize: perPage, hardCap: Pager.counterListHardCap)
        while let next = pager.nextPage {
            var query: [(String, String)] = [("offset", String(next.offset)), ("per_page", String(perPage))]
            if let search, !search.isEmpty { query.append(("search_string", search)) }
            if let status { query.append(("status", status)) }
            query += extra
            let page: CounterListResponse = try await get(
                "/management/v1/counters", query: query, route: route ?? routing?.route(nil))
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

    /// A counter's chart annotations (date, time, title, message, group), in the API's order.
    package func fetchAnnotations(counterID: Int) async throws -> [Annotation] {
        let response: AnnotationsResponse = try await get(
            "/management/v1/counter/\(counterID)/chart_annotations", query: [])
        return response.annotations
    }

    /// The accounts the login of `route` (else the client's) represents: `GET /management/v1/accounts`.
    package func fetchAccounts(route: APIRoute? = nil) async throws -> [RepresentedAccount] {
        let response: AccountsResponse = try await get(
            "/management/v1/accounts", query: [], route: route ?? routing?.route(nil))
        return response.accounts ?? []
    }

    /// Every route of the client: its profiles, or its one token.
    package var allRoutes: [APIRoute] { routing?.routes ?? [ownRoute] }
}

/// One account a login represents (`GET /management/v1/accounts`).
package struct RepresentedAccount: Decodable, Sendable, Equatable {
    package var userLogin: String
    package var createdAt: String?
    package var comment: String?

    enum CodingKeys: String, CodingKey {
        case userLogin = "user_login"
        case createdAt = "created_at"
        case comment
    }

    package init(userLogin: String, createdAt: String? = nil, comment: String? = nil) {
        self.userLogin = userLogin
        self.createdAt = createdAt
        self.comment = comment
    }
}

struct AccountsResponse: Decodable {
    var accounts: [RepresentedAccount]?
}

extension MetrikaClient {
    /// `POST /management/v1/counter/{id}/chart_annotations` with `{"chart_annotation": {date, time,
    /// title, message, group}}`: writes one annotation (the token needs `metrika:write` and edit access)
    /// and returns it as the API stored it. Sent once: a create is never retried into a duplicate.
    package func createAnnotation(counterID: Int, _ note: Annotation) async throws -> Annotation {
        struct Body: Encodable {
            struct Note: Encodable {
                let date: String
                let time: String
                let title: String
                let message: String
                let group: String
            }
            let chartAnnotation: Note
            enum CodingKeys: String, CodingKey { case chartAnnotation = "chart_annotation" }
        }
        let body = Body(
            chartAnnotation: .init(
                date: note.day.iso, time: (note.time ?? "00:00") + ":00", title: note.title, message: note.message,
                group: note.group))
        let url = makeURL(path: "/management/v1/counter/\(counterID)/chart_annotations", query: [])
        var headers = signedHeaders(acceptingJSON: true)
        headers["Content-Type"] = "application/json"
        let request = HTTPRequest(
            method: "POST", url: url, headers: headers, body: try JSONEncoder().encode(body), timeout: requestTimeout)
        let answer = try await sendOnce(request, unsure: "the annotation may or may not have been written")
        let created: AnnotationResponse = try decode(answer.body, from: url)
        return created.annotation ?? note
    }
}

/// `POST …/chart_annotations`' answer: `{"chart_annotation": {...}}`.
struct AnnotationResponse: Decodable, Sendable {
    let annotation: Annotation?

    enum CodingKeys: String, CodingKey { case chartAnnotation = "chart_annotation" }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        annotation =
            try container.decodeIfPresent(AnnotationsResponse.WireAnnotation.self, forKey: .chartAnnotation)?
            .annotation
    }
}
