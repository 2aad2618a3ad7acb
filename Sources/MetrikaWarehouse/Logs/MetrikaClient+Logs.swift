import Foundation
import MetrikaAPI
import MetrikaModel

/// The Logs API (metrika-api.md §5): the request lifecycle over the client's retrying JSON calls, and
/// part downloads over its streaming transport, signed (and the token renewed) the same way.
extension MetrikaClient {
    static func logQuery(source: LogSource, from: Day, to: Day, fields: [String]) -> [(String, String)] {
        [("date1", from.iso), ("date2", to.iso), ("fields", fields.joined(separator: ",")), ("source", source.rawValue)]
    }

    /// `GET …/logrequests/evaluate`.
    package func evaluateLogRequest(counter: Int, source: LogSource, from: Day, to: Day, fields: [String]) async throws
        -> LogEvaluation
    {
        let envelope: LogEvaluationEnvelope = try await get(
            "/management/v1/counter/\(counter)/logrequests/evaluate",
            query: Self.logQuery(source: source, from: from, to: to, fields: fields))
        return envelope.evaluation
    }

    /// `POST …/logrequests`: orders the log.
    package func createLogRequest(counter: Int, source: LogSource, from: Day, to: Day, fields: [String]) async throws
        -> LogRequest
    {
        try await postLog(
            "/management/v1/counter/\(counter)/logrequests",
            query: Self.logQuery(source: source, from: from, to: to, fields: fields))
    }

    /// `GET …/logrequest/{id}`.
    package func logRequest(counter: Int, id: Int) async throws -> LogRequest {
        let envelope: LogRequestEnvelope = try await get(
            "/management/v1/counter/\(counter)/logrequest/\(id)", query: [])
        return envelope.logRequest
    }

    /// `GET …/logrequests`: every log request of the counter the API still knows.
    package func logRequests(counter: Int) async throws -> [LogRequest] {
        let list: LogRequestList = try await get("/management/v1/counter/\(counter)/logrequests", query: [])
        return list.requests
    }

    /// `POST …/logrequest/{id}/clean` (a processed request) or `/cancel` (one still being prepared).
    package func finishLogRequest(counter: Int, id: Int, cancel: Bool) async throws -> LogRequest {
        try await postLog(
            "/management/v1/counter/\(counter)/logrequest/\(id)/\(cancel ? "cancel" : "clean")", query: [])
    }

    private func postLog(_ path: String, query: [(String, String)]) async throws -> LogRequest {
        let url = makeURL(path: path, query: query)
        let response = try await send(
            HTTPRequest(method: "POST", url: url, headers: signedHeaders(acceptingJSON: true), timeout: requestTimeout))
        let envelope: LogRequestEnvelope = try decode(response.body, from: url)
        return envelope.logRequest
    }

    /// Streams part `part` of request `id` to `receive`, chunk by chunk, never holding it whole: one
    /// attempt, over the client's streaming transport (so with the run's current token). A final
    /// answer throws the same `APIError` a JSON call would; a transient one (5xx, 429, a cut
    /// connection, a timeout) a `TransientFailure`, which the caller retries with `retryingTransient`
    /// once it has undone what `receive` was given.
    /// `count` is the request's number of parts, for messages (`part 1 of 2`).
    package func downloadLogPart(
        counter: Int, id: Int, part: Int, of count: Int, receive: ([UInt8]) async throws -> Void
    ) async throws {
        let url = makeURL(path: "/management/v1/counter/\(counter)/logrequest/\(id)/part/\(part)/download", query: [])
        let request = HTTPRequest(
            method: "GET", url: url, headers: signedHeaders(acceptingJSON: false), timeout: requestTimeout)
        try await streamOnce(
            request, context: "log request \(id), \(LogExporter.partName(part, of: count))", receive: receive)
    }
}
