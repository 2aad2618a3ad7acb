import Foundation
import MetrikaModel

/// What an answer from Yandex means: success, a final `APIError`, or a transient failure worth retrying.
extension MetrikaClient {
    package enum Outcome {
        case success(HTTPResponse)
        case fail(APIError)
        case retry(String, retryAfter: Double?, quota: String?)
    }

    /// Decides what a response means: success, a final error, or a transient one worth retrying.
    package func classify(_ response: HTTPResponse, from url: URL) -> Outcome {
        let status = response.status
        if (200..<300).contains(status) { return .success(response) }
        if response.isRedirect { return .fail(.redirected(status: status, target: response.redirectTarget(from: url))) }
        // Preflight: a lone surrogate in the message must not cost the error type; a too deep body is no error JSON.
        let body = try? JSONDecoder().decode(WireErrorBody.self, from: JSONPreflight.prepare(response.body))
        let type = serverText(body?.errors?.first?.errorType ?? "")
        let apiMessage = serverText(body?.errors?.first?.message ?? body?.message ?? "")
        let retryAfter = response.headers["retry-after"].flatMap { Double($0.trimmingSpaces) }
        switch status {
        case 429, 420:
            if type == "quota_requests_by_uid" || type == "quota_requests_by_counter_id"
                || type == "quota_requests_by_uid_and_counter_id"
            {
                return .fail(.dailyQuota(type: type, resetsIn: APIError.untilMidnightGMT(from: now())))
            }
            return .retry(
                "HTTP \(status) \(type.isEmpty ? "quota exceeded" : type)", retryAfter: retryAfter,
                quota: type.isEmpty ? "HTTP \(status)" : type)
        case 401:
            return .fail(.unauthorized(apiMessage.isEmpty ? "HTTP 401" : apiMessage))
        case 403:
            if type == "access_denied" || type == "counter_in_connect" {
                return .fail(
                    .accessDenied(
                        apiMessage.isEmpty ? "the token may not read this counter." : Self.sentence(apiMessage),
                        counterID: APIError.counterID(in: url)))
            }
            return .fail(.invalidToken)
        case 404:
            return .fail(
                .notFound(apiMessage.isEmpty ? "the API has no \(response.status) object at that address" : apiMessage))
        case 400:
            if type == "query_error" { return .fail(.queryTooComplicated(apiMessage)) }
            if body == nil { return .fail(.unreadable("HTTP 400 with a body that is not the documented error JSON")) }
            return .fail(.badRequest(type: type.isEmpty ? "HTTP 400" : type, message: apiMessage))
        case 500..<600:
            let what =
                type.isEmpty
                ? "HTTP \(status)\(body == nil ? " (not JSON: a proxy or gateway answered)" : "")"
                : "HTTP \(status) \(type)"
            return .retry(what, retryAfter: retryAfter, quota: nil)
        default:
            return .fail(.unreadable("HTTP \(status)\(apiMessage.isEmpty ? "" : ": \(apiMessage)")"))
        }
    }
}
