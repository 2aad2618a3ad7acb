import Foundation
import Testing

@testable import MetrikaAPI

/// The token layer in front of streamed downloads (Logs API parts): the keeper's current token at
/// send time, and one renewal plus one more send after invalid_token, which is safe only because no
/// byte of a refused answer reached the receiver and no upload is replayed.
@Suite("Token renewal for streamed downloads")
struct AuthStreamingRenewalTests {
    static let invalidToken = Data(
        #"{"errors": [{"error_type": "invalid_token", "message": "Invalid oauth_token"}], "code": 403}"#.utf8)

    /// A streaming server that accepts only `accepted` and records the Authorization of every exchange.
    final class Server: StreamingHTTPTransport, @unchecked Sendable {
        let accepted: String
        private let lock = NSLock()
        private var _authorizations: [String] = []
        var authorizations: [String] { lock.withLock { _authorizations } }

        init(accepting token: String) { accepted = token }

        func exchange(
            _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?,
            receive: ([UInt8]) async throws -> Void
        ) async throws -> StreamedResponseHead {
            let authorization = request.headers["Authorization"] ?? ""
            lock.withLock { _authorizations.append(authorization) }
            guard authorization == "OAuth \(accepted)" else {
                return StreamedResponseHead(status: 403, errorBody: AuthStreamingRenewalTests.invalidToken)
            }
            try await receive(Array("a\tb\n".utf8))
            return StreamedResponseHead(status: 200)
        }
    }

    /// A keeper of a token file whose token is far from expiry, renewable through a fake OAuth server.
    static func keeper(_ scratch: AuthScratch, clock: AuthClock) async throws -> TokenKeeper {
        let file = TokenFile(path: scratch.path + "/token.json")
        try file.write(
            StoredToken(
                accessToken: "old-access-token", refreshToken: "old-refresh", obtainedAt: clock.now(),
                expiresAt: clock.now().addingTimeInterval(200 * 86_400), clientID: "demo-client"))
        let oauth = ScriptedTransport { _, _ in AuthTokenKeeperTests.refreshed }
        return TokenKeeper(
            resolved: try await TokenSource.resolve(tokenFile: file.path, environment: [:]),
            oauth: OAuthClient(baseURL: oauthBase, transport: oauth), credentials: demoCredentials, now: clock.now,
            warn: { _ in })
    }

    static let part = HTTPRequest(
        url: URL(string: "http://127.0.0.1:9/management/v1/counter/1/logrequest/7/part/1/download")!,
        headers: ["Authorization": "OAuth old-access-token"])

    @Test func anExpiredTokenIsRenewedOnceAndTheDownloadSentAgain() async throws {
        let scratch = try AuthScratch()
        let keeper = try await Self.keeper(scratch, clock: AuthClock())
        let server = Server(accepting: "renewed-access-token")
        var received: [UInt8] = []
        let head = try await TokenRefreshingStreamingTransport(base: server, keeper: keeper).exchange(
            Self.part, upload: nil
        ) { received += $0 }
        #expect(head.status == 200)
        #expect(received == Array("a\tb\n".utf8))
        #expect(server.authorizations == ["OAuth old-access-token", "OAuth renewed-access-token"])
        // The next download starts with the new token.
        _ = try await TokenRefreshingStreamingTransport(base: server, keeper: keeper).exchange(Self.part, upload: nil) {
            _ in
        }
        #expect(server.authorizations.last == "OAuth renewed-access-token")
    }

    @Test func aTokenRenewedByAJSONCallReachesTheNextDownload() async throws {
        let scratch = try AuthScratch()
        let keeper = try await Self.keeper(scratch, clock: AuthClock())
        // A JSON call is refused first: the keeper renews there.
        let api = ScriptedTransport { request, _ in
            request.headers["Authorization"] == "OAuth renewed-access-token"
                ? AuthTokenKeeperTests.countersOK : AuthTokenKeeperTests.invalidToken
        }
        let server = Server(accepting: "renewed-access-token")
        let client = MetrikaClient(
            baseURL: URL(string: "http://127.0.0.1:9/")!, token: "old-access-token",
            transport: TokenRefreshingTransport(base: api, keeper: keeper),
            streamingTransport: TokenRefreshingStreamingTransport(base: server, keeper: keeper),
            retryPolicy: RetryPolicy(maxAttempts: 1))
        #expect(try await client.checkToken() == 2)
        try await client.streamOnce(Self.part, context: "part 1 of log request 7") { _ in }
        #expect(server.authorizations == ["OAuth renewed-access-token"])
    }

    @Test func anUploadIsNeverSentTwice() async throws {
        let scratch = try AuthScratch()
        let keeper = try await Self.keeper(scratch, clock: AuthClock())
        let server = Server(accepting: "renewed-access-token")
        let head = try await TokenRefreshingStreamingTransport(base: server, keeper: keeper).exchange(
            Self.part, upload: { _ in }
        ) { _ in }
        #expect(head.status == 403)
        #expect(server.authorizations == ["OAuth old-access-token"])
    }
}
