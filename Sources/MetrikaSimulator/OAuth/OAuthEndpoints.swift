import Foundation

/// Device codes and issued tokens.
struct OAuthState {}

extension Simulator {
    func issuedGrant(for token: String) -> TokenFixture? { nil }

    func deviceCode(_ request: HTTPRequest) -> HTTPResponse {
        .json(400, .object([("error", .string("invalid_client"))]))
    }

    func token(_ request: HTTPRequest) -> HTTPResponse {
        .json(400, .object([("error", .string("invalid_client"))]))
    }

    func revokeToken(_ request: HTTPRequest) -> HTTPResponse {
        .json(400, .object([("error", .string("invalid_client"))]))
    }
}
