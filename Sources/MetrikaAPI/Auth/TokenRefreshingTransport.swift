import Foundation

/// An `HTTPTransport` in front of the real one for Metrika API calls: it swaps in the keeper's
/// current token (renewed near expiry), and when the API answers invalid_token it renews once and
/// sends the request again. `MetrikaClient` stays unaware: it keeps signing with the token it was
/// built with, and this layer replaces exactly that header value and nothing else.
package struct TokenRefreshingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let keeper: TokenKeeper

    /// Wraps `base`; requests signed with `keeper.originalToken` get the current token instead.
    package init(base: any HTTPTransport, keeper: TokenKeeper) {
        self.base = base
        self.keeper = keeper
    }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await Self.signing(request, keeper: keeper, mayResend: true, isInvalidToken: Self.isInvalidToken) {
            try await base.send($0)
        }
    }

    /// The one token rule of both layers: `send` gets `request` with the keeper's current token (a
    /// request not signed with the run's original token goes as it is); after an invalid-token answer
    /// the token is renewed once and, when `mayResend`, the request sent once more with the new one.
    static func signing<Answer>(
        _ request: HTTPRequest, keeper: TokenKeeper, mayResend: Bool, isInvalidToken: (Answer) -> Bool,
        send: (HTTPRequest) async throws -> Answer
    ) async throws -> Answer {
        guard let name = signedHeader(of: request, keeper: keeper) else { return try await send(request) }
        var request = request
        let token = await keeper.token()
        request.headers[name] = "OAuth \(token)"
        let answer = try await send(request)
        guard mayResend, isInvalidToken(answer), let fresh = await keeper.tokenAfterRejection(of: token), fresh != token
        else {
            return answer
        }
        request.headers[name] = "OAuth \(fresh)"
        return try await send(request)
    }

    /// The name of the `Authorization` header when `request` is signed with the run's original token
    /// (the only header this layer may rewrite); nil otherwise.
    static func signedHeader(of request: HTTPRequest, keeper: TokenKeeper) -> String? {
        guard let name = request.headers.keys.first(where: { $0.lowercased() == "authorization" }),
            request.headers[name] == "OAuth \(keeper.originalToken)"
        else { return nil }
        return name
    }

    /// A 403 that is not about one counter (`access_denied`, `counter_in_connect`) is about the token.
    static func isInvalidToken(_ response: HTTPResponse) -> Bool {
        isInvalidToken(status: response.status, body: response.body)
    }

    static func isInvalidToken(status: Int, body: Data) -> Bool {
        guard status == 403 else { return false }
        // Preflight: nesting bounded, lone surrogates repaired (JSONPreflight).
        let type = WireFirstErrorType.decode(body) ?? ""
        return type != "access_denied" && type != "counter_in_connect"
    }
}

/// The same token layer in front of a `StreamingHTTPTransport` (Logs API part downloads): the
/// keeper's current token at send time, renewed near expiry, and after an invalid_token answer one
/// renewal and one more send. Sending again is safe only because nothing reached the receiver: a
/// non-2xx body never goes to `receive`, and a request with an upload body (which cannot be replayed)
/// is never sent twice.
package struct TokenRefreshingStreamingTransport: StreamingHTTPTransport {
    private let base: any StreamingHTTPTransport
    private let keeper: TokenKeeper

    /// Wraps `base`; requests signed with `keeper.originalToken` get the current token instead.
    package init(base: any StreamingHTTPTransport, keeper: TokenKeeper) {
        self.base = base
        self.keeper = keeper
    }

    package func exchange(
        _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?, receive: ([UInt8]) async throws -> Void
    ) async throws -> StreamedResponseHead {
        // An upload cannot be replayed; a refused answer's body never reached `receive`.
        try await TokenRefreshingTransport.signing(
            request, keeper: keeper, mayResend: upload == nil,
            isInvalidToken: { TokenRefreshingTransport.isInvalidToken(status: $0.status, body: $0.errorBody) }
        ) { try await base.exchange($0, upload: upload, receive: receive) }
    }
}

/// The `error_type` of an API error answer's first error (`{"errors": [{"error_type": "…"}]}`), read
/// tolerantly: the other errors, and members of another type, do not matter.
struct WireFirstErrorType: Decodable {
    var type: String?

    private enum Keys: String, CodingKey {
        case errors
        case errorType = "error_type"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        var errors = try? container.nestedUnkeyedContainer(forKey: .errors)
        let first = try? errors?.nestedContainer(keyedBy: Keys.self)
        type = try? first?.decode(String.self, forKey: .errorType)
    }

    /// The type in `body`, through `JSONPreflight`; nil when there is none.
    static func decode(_ body: Data) -> String? {
        (try? JSONDecoder().decode(WireFirstErrorType.self, from: JSONPreflight.prepare(body)))?.type
    }
}
