import Foundation
import Testing

@testable import MetrikaAPI

/// Issue 45 target 11, one renewal: a token due for renewal and 3 concurrent MCP calls sent 3
/// refresh requests and wrote token.json 3 times (each call's client had a keeper of its own); an
/// OAuth server that rotates refresh tokens would have refused all but one. Now one request, one
/// write, and every keeper sends the renewed token; a failure is tried and said once.
@Suite("One renewal of a token file")
struct AuthOneRenewalTests {
    struct Keepers {
        let scratch: AuthScratch
        let clock = AuthClock()
        let warnings = LineBox()
        let file: TokenFile
        let transport: ScriptedTransport
        let clients: [MetrikaClient]

        init(count: Int, oauth: @escaping @Sendable (HTTPRequest) -> HTTPResponse) async throws {
            scratch = try AuthScratch()
            file = TokenFile(path: scratch.path + "/token.json")
            try file.write(
                StoredToken(
                    accessToken: "old-access-token", refreshToken: "old-refresh",
                    obtainedAt: clock.now().addingTimeInterval(-300 * 86_400),
                    expiresAt: clock.now().addingTimeInterval(10 * 86_400), clientID: "demo-client"))
            transport = ScriptedTransport { request, _ in
                if request.url.path == "/token" { return oauth(request) }
                return AuthTokenKeeperTests.countersOK
            }
            var clients: [MetrikaClient] = []
            for _ in 0..<count {
                let resolved = try await TokenSource.resolve(tokenFile: file.path, environment: [:])
                let warnings = warnings
                let keeper = TokenKeeper(
                    resolved: resolved, oauth: OAuthClient(baseURL: oauthBase, transport: transport),
                    credentials: demoCredentials, now: clock.now, warn: { warnings.append($0) }, naming: .cli)
                clients.append(
                    MetrikaClient(
                        baseURL: AuthTokenKeeperTests.apiBase, token: resolved.token,
                        transport: TokenRefreshingTransport(base: transport, keeper: keeper),
                        retryPolicy: RetryPolicy(maxAttempts: 1), sleep: clock.sleep, now: clock.now))
            }
            self.clients = clients
        }

        var refreshCount: Int { transport.requests.filter { $0.url.path == "/token" }.count }
        var apiAuthorizations: [String] {
            transport.requests.filter { $0.url.path != "/token" }.map { $0.headers["Authorization"] ?? "" }
        }

        /// Every client's call at once.
        func callAll() async {
            await withTaskGroup(of: Void.self) { group in
                for client in clients { group.addTask { _ = try? await client.checkToken() } }
            }
        }
    }

    @Test func threeConcurrentCallsRenewOnce() async throws {
        let keepers = try await Keepers(count: 3, oauth: { _ in AuthTokenKeeperTests.refreshed })
        await keepers.callAll()
        #expect(keepers.refreshCount == 1, "\(keepers.refreshCount) refresh requests")
        #expect(keepers.apiAuthorizations == Array(repeating: "OAuth renewed-access-token", count: 3))
        #expect(try keepers.file.read().refreshToken == "renewed-refresh")
        #expect(keepers.warnings.lines.isEmpty, "\(keepers.warnings.lines)")
    }

    /// Another process renewed the file while this one waited for the lock: read, not renewed again.
    @Test func aTokenAnotherProcessRenewedIsReadNotRenewed() async throws {
        let keepers = try await Keepers(count: 1, oauth: { _ in AuthTokenKeeperTests.refreshed })
        try keepers.file.write(
            StoredToken(
                accessToken: "other-process-token", refreshToken: "other-refresh",
                obtainedAt: keepers.clock.now(), expiresAt: keepers.clock.now().addingTimeInterval(365 * 86_400),
                clientID: "demo-client"))
        await keepers.callAll()
        #expect(keepers.refreshCount == 0)
        #expect(keepers.apiAuthorizations == ["OAuth other-process-token"])
    }

    /// A wrong client secret: every call tried the renewal and warned again. Now once, with the day.
    @Test func aFailedRenewalIsTriedAndSaidOnce() async throws {
        let keepers = try await Keepers(
            count: 3, oauth: { _ in json(401, #"{"error": "invalid_client", "error_description": "bad secret"}"#) })
        await keepers.callAll()
        #expect(keepers.refreshCount == 1, "\(keepers.refreshCount) refresh requests")
        #expect(keepers.warnings.lines.count == 1, "\(keepers.warnings.lines)")
        #expect(keepers.warnings.lines.first?.contains("expires on 2026-06-25") == true, "\(keepers.warnings.lines)")
        #expect(keepers.apiAuthorizations == Array(repeating: "OAuth old-access-token", count: 3))
    }
}
