import Foundation

/// An `HTTPTransport` in front of the real one for Metrika API calls: it swaps in the keeper's
/// current token (renewed near expiry), and when the API answers invalid_token it renews once and
/// sends the request again. `MetrikaClient` stays unaware: it keeps signing with the token it was
/// built with, and this layer replaces exactly that header value and nothing else.
public struct TokenRefreshingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let keeper: TokenKeeper

    /// Wraps `base`; requests signed with `keeper.originalToken` get the current token instead.
    public init(base: any HTTPTransport, keeper: TokenKeeper) {
        self.base = base
        self.keeper = keeper
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let name = request.headers.keys.first(where: { $0.lowercased() == "authorization" }),
              request.headers[name] == "OAuth \(keeper.originalToken)"
        else { return try await base.send(request) }
        var request = request
        let token = await keeper.token()
        request.headers[name] = "OAuth \(token)"
        let response = try await base.send(request)
        guard Self.isInvalidToken(response), let fresh = await keeper.tokenAfterRejection(of: token), fresh != token else {
            return response
        }
        request.headers[name] = "OAuth \(fresh)"
        return try await base.send(request)
    }

    /// A 403 that is not about one counter (`access_denied`, `counter_in_connect`) is about the token.
    static func isInvalidToken(_ response: HTTPResponse) -> Bool {
        guard response.status == 403 else { return false }
        // Preflight: nesting bounded, lone surrogates repaired (JSONPreflight).
        let object = (try? JSONSerialization.jsonObject(with: JSONPreflight.prepare(response.body))) as? [String: Any]
        let first = (object?["errors"] as? [[String: Any]])?.first
        let type = first?["error_type"] as? String ?? ""
        return type != "access_denied" && type != "counter_in_connect"
    }
}
