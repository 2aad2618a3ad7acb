import Foundation

/// One served request, as `GET /__sim/log` reports it.
///
/// Only whether an Authorization header was present is kept, never its value: the log is for
/// tests that check the client sent a token, and must not become a place tokens leak to.
struct LogEntry: Sendable {
    let method: String
    let path: String
    let query: String
    let hasAuthorization: Bool
    let status: Int
    /// The login of the request's token (the sender's, whatever `ulogin` says), when known.
    var login: String? = nil

    var document: JSONValue {
        .object([
            ("method", .string(method)),
            ("path", .string(path)),
            ("query", .string(query)),
            ("authorization", .bool(hasAuthorization)),
            ("status", .int(status)),
            ("login", login.map { .string($0) } ?? .null)
        ])
    }
}
