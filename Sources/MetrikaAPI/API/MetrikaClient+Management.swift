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
        requestCounter.increment()
        log?("POST \(url.path)")
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw APIError.unavailable("the annotation may or may not have been written (\(error))")
        }
        switch classify(response, from: url) {
        case .success(let answer):
            let created: AnnotationResponse = try decode(answer.body, from: url)
            return created.annotation ?? note
        case .fail(let error): throw error
        case .retry(let reason, _, _): throw APIError.unavailable(reason)
        }
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
