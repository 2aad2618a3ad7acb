import Foundation
import MetrikaCLI
import Testing

@testable import MetrikaAPI

@Suite("Refresh before expiry and after invalid_token")
struct AuthTokenKeeperTests {
    static let apiBase = URL(string: "http://127.0.0.1:9/")!
    static let countersOK = json(200, #"{"rows": 2, "counters": []}"#)
    static let invalidToken = json(
        403,
        #"{"errors": [{"error_type": "invalid_token", "message": "Invalid oauth_token"}], "code": 403, "message": "Invalid oauth_token"}"#
    )
    static let refreshed = json(
        200,
        #"{"token_type": "bearer", "access_token": "renewed-access-token", "expires_in": 31536000, "refresh_token": "renewed-refresh"}"#
    )

    struct World {
        let scratch: AuthScratch
        let clock: AuthClock
        let warnings = LineBox()
        let file: TokenFile
        let transport: ScriptedTransport
        let client: MetrikaClient

        /// A token file expiring `daysLeft` days from the clock, and a client whose API answers via `api`
        /// and whose OAuth server answers via `oauth`.
        init(
            daysLeft: Double, refreshToken: String? = "old-refresh", credentials: ClientCredentials? = demoCredentials,
            api: @escaping @Sendable (HTTPRequest) -> HTTPResponse,
            oauth: @escaping @Sendable (HTTPRequest) -> HTTPResponse = { _ in AuthTokenKeeperTests.refreshed }
        ) async throws {
            scratch = try AuthScratch()
            clock = AuthClock()
            file = TokenFile(path: scratch.path + "/token.json")
            let stored = StoredToken(
                accessToken: "old-access-token", refreshToken: refreshToken,
                obtainedAt: clock.now().addingTimeInterval(-300 * 86_400),
                expiresAt: clock.now().addingTimeInterval(daysLeft * 86_400), clientID: "demo-client")
            try file.write(stored)
            transport = ScriptedTransport { request, _ in
                request.url.path == "/token" ? oauth(request) : api(request)
            }
            let resolved = try await TokenSource.resolve(tokenFile: file.path, environment: [:])
            let warnings = self.warnings
            // The CLI's words: the warnings a person at the shell reads.
            let keeper = TokenKeeper(
                resolved: resolved, oauth: OAuthClient(baseURL: oauthBase, transport: transport),
                credentials: credentials,
                now: clock.now, warn: { warnings.append($0) }, naming: .cli)
            client = MetrikaClient(
                baseURL: AuthTokenKeeperTests.apiBase, token: resolved.token,
                transport: TokenRefreshingTransport(base: transport, keeper: keeper),
                retryPolicy: RetryPolicy(maxAttempts: 1), sleep: clock.sleep, now: clock.now)
        }

        var apiAuthorizations: [String] {
            transport.requests.filter { $0.url.path != "/token" }.map { $0.headers["Authorization"] ?? "" }
        }
        var refreshCount: Int { transport.requests.filter { $0.url.path == "/token" }.count }
    }

    @Test func renewsWhenFewerThanThirtyDaysRemain() async throws {
        let world = try await World(daysLeft: 29.9, api: { _ in Self.countersOK })
        #expect(try await world.client.checkToken() == 2)
        #expect(try await world.client.checkToken() == 2)
        #expect(world.refreshCount == 1)
        #expect(
            world.transport.form(0) == [
                "grant_type": "refresh_token", "refresh_token": "old-refresh", "client_id": "demo-client",
                "client_secret": "demo-secret"
            ])
        #expect(world.apiAuthorizations == ["OAuth renewed-access-token", "OAuth renewed-access-token"])
        let saved = try world.file.read()
        #expect(saved.accessToken == "renewed-access-token")
        #expect(saved.refreshToken == "renewed-refresh")
        #expect(saved.expiresAt == world.clock.now().addingTimeInterval(31_536_000))
        #expect(saved.clientID == "demo-client")
        #expect(try world.scratch.mode(world.file.path) == 0o600)
        #expect(world.warnings.lines.isEmpty)
    }

    @Test func leavesAFreshTokenAlone() async throws {
        let world = try await World(daysLeft: 30.1, api: { _ in Self.countersOK })
        _ = try await world.client.checkToken()
        #expect(world.refreshCount == 0)
        #expect(world.apiAuthorizations == ["OAuth old-access-token"])
        #expect(try world.file.read().accessToken == "old-access-token")
    }

    @Test func renewsOnceWhenTheAPIRejectsTheToken() async throws {
        let world = try await World(
            daysLeft: 200,
            api: { request in
                request.headers["Authorization"] == "OAuth renewed-access-token" ? Self.countersOK : Self.invalidToken
            })
        #expect(try await world.client.checkToken() == 2)
        #expect(world.refreshCount == 1)
        #expect(world.apiAuthorizations == ["OAuth old-access-token", "OAuth renewed-access-token"])
        #expect(try world.file.read().accessToken == "renewed-access-token")
    }

    @Test func aRevokedTokenEndsInInvalidTokenNamingLogin() async throws {
        let world = try await World(
            daysLeft: 200, api: { _ in Self.invalidToken }, oauth: { _ in json(400, #"{"error": "invalid_grant"}"#) })
        await #expect(throws: APIError.invalidToken) { try await world.client.checkToken() }
        await #expect(throws: APIError.invalidToken) { try await world.client.checkToken() }
        // One refresh attempt per run, not one per request.
        #expect(world.refreshCount == 1)
        #expect(APIError.invalidToken.message(.cli).contains("metrika login"))
        #expect(try world.file.read().accessToken == "old-access-token")
    }

    @Test func warnsWithTheCommandWhenItCannotRenew() async throws {
        let world = try await World(
            daysLeft: 10,
            credentials: ClientCredentials(clientID: "demo-client", clientSecret: nil, source: "the token file"),
            api: { _ in Self.countersOK })
        _ = try await world.client.checkToken()
        _ = try await world.client.checkToken()
        #expect(world.refreshCount == 0)
        #expect(
            world.warnings.lines == [
                "Warning: the token in token file \(world.file.path) expires on 2026-06-25 (in 10 days) and could not be renewed automatically "
                    + "(no client secret for the app demo-client: set METRIKA_CLIENT_SECRET, or add client_secret to the (0600) config file). Run `metrika login` to renew it."
            ])
    }

    @Test func warnsWhenExpiredAndTheRefreshFails() async throws {
        let world = try await World(
            daysLeft: -3, api: { _ in Self.invalidToken }, oauth: { _ in json(400, #"{"error": "invalid_grant"}"#) })
        await #expect(throws: APIError.invalidToken) { try await world.client.checkToken() }
        #expect(world.warnings.lines.count == 1)
        let warning = try #require(world.warnings.lines.first)
        #expect(
            warning.hasPrefix(
                "Warning: the token in token file \(world.file.path) expired on 2026-06-12 and could not be renewed"))
        #expect(warning.hasSuffix("Run `metrika login` to sign in again."))
        #expect(!warning.contains("old-access-token") && !warning.contains("old-refresh"))
    }

    @Test func environmentTokensAreNeverRenewedButGetAHint() async throws {
        let clock = AuthClock()
        let warnings = LineBox()
        let transport = ScriptedTransport { _, _ in Self.invalidToken }
        let resolved = try await TokenSource.resolve(tokenFile: nil, environment: ["METRIKA_TOKEN": "env-token"])
        let keeper = TokenKeeper(
            resolved: resolved, oauth: OAuthClient(baseURL: oauthBase, transport: transport),
            credentials: demoCredentials, now: clock.now, warn: { warnings.append($0) })
        let client = MetrikaClient(
            baseURL: Self.apiBase, token: "env-token",
            transport: TokenRefreshingTransport(base: transport, keeper: keeper),
            retryPolicy: RetryPolicy(maxAttempts: 1))
        await #expect(throws: APIError.invalidToken) { try await client.checkToken() }
        #expect(transport.requests.count == 1)
        #expect(
            warnings.lines == [
                "Note: the rejected token came from METRIKA_TOKEN; set a valid one there, or unset it to use the token file."
            ])
    }

    @Test func accessDeniedIsNotATokenProblem() {
        #expect(!TokenRefreshingTransport.isInvalidToken(json(403, #"{"errors": [{"error_type": "access_denied"}]}"#)))
        #expect(TokenRefreshingTransport.isInvalidToken(Self.invalidToken))
        #expect(!TokenRefreshingTransport.isInvalidToken(Self.countersOK))
    }
}
