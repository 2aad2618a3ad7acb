import Foundation

/// The Metrika error body (metrika-api.md §3):
/// `{"errors":[{"error_type":"…","message":"…"}],"code":N,"message":"…"}`.
enum APIError {
    static func document(status: Int, type: String, message: String) -> JSONValue {
        .object([
            ("errors", .array([.object([("error_type", .string(type)), ("message", .string(message))])])),
            ("code", .int(status)),
            ("message", .string(message))
        ])
    }

    static func response(_ status: Int, _ type: String, _ message: String) -> HTTPResponse {
        .json(status, document(status: status, type: type, message: message))
    }

    static func unauthorized() -> HTTPResponse {
        response(401, "unauthorized", "Unauthorized: an Authorization header is required")
    }

    static func invalidToken() -> HTTPResponse {
        response(403, "invalid_token", "Invalid oauth_token")
    }

    static func accessDenied(counter id: Int) -> HTTPResponse {
        response(403, "access_denied", "Access is denied to counter \(id)")
    }

    static func counterNotFound(_ id: String) -> HTTPResponse {
        response(404, "not_found", "Counter \(id) not found")
    }

    static func invalidParameter(_ message: String) -> HTTPResponse {
        response(400, "invalid_parameter", message)
    }

    static func missingParameter(_ name: String) -> HTTPResponse {
        response(400, "missing_parameter", "Required parameter \(name) is missing")
    }
}
