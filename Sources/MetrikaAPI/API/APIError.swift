import Foundation
import MetrikaModel

/// What went wrong talking to the Metrika or OAuth APIs, in words a user can act on: the problem, and
/// the action that fixes it as the entry point words it (`fix`).
package enum APIError: WordedFailure, Equatable {
    /// 401: no usable Authorization header reached the API.
    case unauthorized(String)
    /// 403 invalid_token: the token is unknown, expired or revoked.
    case invalidToken
    /// 403 access_denied / counter_in_connect: the token may not read this object; the counter asked
    /// for, when the request named one (each entry point words it: the CLI's `Error:` line, MCP).
    case accessDenied(String, counterID: Int? = nil)
    /// 400 invalid_parameter, missing_parameter and friends: the request was wrong.
    case badRequest(type: String, message: String)
    /// 400 query_error: the query is too heavy for the API.
    case queryTooComplicated(String)
    /// 404: the object does not exist.
    case notFound(String)
    /// A daily quota is used up; it resets at 00:00 GMT.
    case dailyQuota(type: String, resetsIn: String)
    /// A per-second or parallel quota kept answering after every retry.
    case quotaPersisted(type: String)
    /// The quota ledger put the request off: sending it would pass `limit` of `login` for longer than
    /// a run waits (`seconds` until it could go).
    case quotaPutOff(login: String, limit: String, seconds: Int)
    /// The API or network was unavailable after retries (5xx, timeouts, refused or cut connections).
    case unavailable(String)
    /// The API answered something that is not the JSON it documents.
    case unreadable(String)
    /// The API answered with a redirect (3xx), which metrika never follows: the token stays with the API.
    case redirected(status: Int, target: String)
    /// An answer grew past the size limit (METRIKA_MAX_RESPONSE); reading stopped there.
    case tooLarge(path: String, limit: Int)
    /// The TLS handshake failed (untrusted, expired or mismatched certificate): not retried.
    case insecure(host: String, detail: String)
    /// A request argument so long the request address would pass `limit` bytes: refused before
    /// sending (the API's servers answer such a request with HTTP 414 or 431, not an error to retry).
    case argumentTooLong(name: String, length: Int, limit: Int)

    package var exitCode: Int32 {
        switch self {
        case .unauthorized, .invalidToken, .accessDenied: return ExitCode.noPermission
        case .badRequest, .queryTooComplicated, .notFound, .argumentTooLong: return ExitCode.usage
        case .dailyQuota, .quotaPersisted, .quotaPutOff: return ExitCode.tryLater
        case .unavailable, .redirected, .insecure: return ExitCode.unavailable
        case .unreadable, .tooLarge: return ExitCode.dataError
        }
    }

    /// What would fix it, when the user can.
    package var fix: SuggestedAction? {
        switch self {
        case .unauthorized: return .signInOrGiveToken
        case .invalidToken: return .signInAgain
        case .accessDenied: return .signInAsViewer
        case .queryTooComplicated: return .narrowQuery
        case .unavailable: return .checkConnection(.api)
        case .unreadable: return .retryThenReport
        case .redirected: return .checkAPIAddress
        case .tooLarge: return .raiseResponseLimit
        case .insecure: return .checkTLS
        case .badRequest, .notFound, .dailyQuota, .quotaPersisted, .quotaPutOff, .argumentTooLong: return nil
        }
    }

    package func message(_ naming: ParameterNaming) -> String {
        fix.map { "\(problem) \(naming.action($0))" } ?? problem
    }

    /// What is wrong; with `fix`, the whole message.
    package var problem: String {
        switch self {
        case .unauthorized(let detail):
            return "The API did not accept the request as signed in (\(detail))."
        case .invalidToken:
            return "The API rejected the token (invalid_token): it is wrong, expired or revoked."
        case .accessDenied(let detail, _):
            return "Access denied: \(detail)"
        case .badRequest(let type, let message):
            return "The API refused the request (\(type)): \(message)"
        case .queryTooComplicated(let message):
            return "The API says the query is too complicated (query_error: \(message))."
        case .notFound(let message):
            return "Not found: \(message)"
        case .dailyQuota(let type, let resetsIn):
            return "The daily API quota is used up (\(type)). It resets at 00:00 GMT (\(resetsIn)); try again then."
        case .quotaPersisted(let type):
            return
                "The API kept answering that a request quota is exceeded (\(type)), even after waiting. Try again in a few minutes."
        case .quotaPutOff(let login, let limit, let seconds):
            return
                "Put off: login \(login) has used its \(limit); it can send again in \(Self.describeWait(seconds))."
        case .unavailable(let detail):
            return "The Metrika API is unavailable: \(detail)."
        case .unreadable(let detail):
            return "The API answered something unreadable: \(detail)."
        case .redirected(let status, let target):
            return
                "The API answered with a redirect (HTTP \(status)) to \(target); metrika follows no redirects, so the token was not sent there."
        case .tooLarge(let path, let limit):
            return
                "The answer from \(path) is larger than the \(Self.describeBytes(limit)) limit; metrika stopped reading it."
        case .argumentTooLong(let name, let length, let limit):
            return
                "The \(name) argument is too long (\(length) characters): a request may be at most \(Self.describeBytes(limit)) long. "
                + "Shorten it, or split the report into several."
        case .insecure(let host, let detail):
            return "The TLS connection to \(host) failed (\(detail)); not retried."
        }
    }

    /// The counter an access error is about, when the request named one.
    package var counterID: Int? {
        if case .accessDenied(_, let id) = self { return id }
        return nil
    }

    /// The message naming the counter it is about (once), for an entry point whose line does not
    /// name it already: `Access denied to counter 1003: …`.
    package func messageNamingCounter(_ naming: ParameterNaming) -> String {
        // The simulator's (and some real) answers name it already: then once is enough.
        guard case .accessDenied(let detail, let id?) = self, !detail.contains(String(id)) else {
            return message(naming)
        }
        return "Access denied to counter \(id): \(detail) \(naming.action(.signInAsViewer))"
    }

    /// The one counter a request URL names: `/management/v1/counter/ID…` or an `ids=`/`id=` query of
    /// one id (several ids name no single counter).
    package static func counterID(in url: URL?) -> Int? {
        guard let url else { return nil }
        let parts = url.path.split(separator: "/")
        if let index = parts.firstIndex(of: "counter"), index + 1 < parts.count, let id = Int(parts[index + 1]) {
            return id
        }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        for name in ["ids", "id"] {
            if let value = items.first(where: { $0.name == name })?.value, let id = Int(value) { return id }
        }
        return nil
    }

    /// `45 s`, `12 min`, `3 h 20 min`.
    package static func describeWait(_ seconds: Int) -> String {
        if seconds < 60 { return "\(max(seconds, 1)) s" }
        if seconds < 3600 { return "\((seconds + 59) / 60) min" }
        let minutes = (seconds + 59) / 60
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// A byte count as the limit was likely set: `64 MiB`, `512 KiB`, or plain bytes.
    package static func describeBytes(_ bytes: Int) -> String {
        if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// A human "in 3 h 20 min" until the next 00:00 GMT.
    static func untilMidnightGMT(from now: Date) -> String {
        let secondsIntoDay = now.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
        let remaining = Int((86_400 - secondsIntoDay).rounded(.up))
        // Round up to whole minutes first: rounding the minutes alone printed "1 h 60 min".
        let totalMinutes = (remaining + 59) / 60
        let hours = totalMinutes / 60
        let minutes = totalMinutes % 60
        if hours == 0 { return "in \(minutes) min" }
        if minutes == 0 { return "in \(hours) h" }
        return "in \(hours) h \(minutes) min"
    }
}
