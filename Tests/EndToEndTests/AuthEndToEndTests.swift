import Foundation
import MetrikaAPI
import MetrikaTestSupport
import Testing

/// Sign-in end to end: the built `metrika` against `metrika-fake-api`, which serves the OAuth device
/// flow (`--device-interval`, `--device-pending`), refresh and revoke on the same port.
@Suite("Sign-in end to end", .serialized, .blockingLanes)
struct AuthEndToEndTests {
    static let app = ["METRIKA_CLIENT_ID": "demo-client", "METRIKA_CLIENT_SECRET": "demo-secret"]

    /// A simulator with a 1-second poll interval and `pending` unconfirmed polls, and a home for metrika.
    struct Setup {
        let api: FakeAPI
        let home: TemporaryDirectory
        var tokenPath: String { home.path + "/config/metrika/token.json" }

        init(pending: Int = 2) throws {
            api = try FakeAPI(arguments: ["--device-interval", "1", "--device-pending", String(pending)])
            home = try TemporaryDirectory()
        }

        /// The environment without METRIKA_TOKEN (so the token file is what counts), plus `extra`.
        func environment(_ extra: [String: String] = [:]) -> [String: String] {
            metrikaEnvironment(api: api, home: home.path, token: nil, extra: extra)
        }

        func mode(_ path: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }

        func stored() throws -> StoredToken { try TokenFile(path: tokenPath).read() }

        /// Signs in by the device flow and returns the result.
        func login() throws -> ProcessResult {
            try metrika(["login"], environment: environment(AuthEndToEndTests.app), timeout: 60)
        }
    }

    @Test func fullDeviceFlow() throws {
        let setup = try Setup(pending: 2)
        let started = Date()
        let result = try setup.login()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("To sign in, open "))
        #expect(result.stderr.contains(" and enter the code: "))
        #expect(result.stdout.hasPrefix("Signed in. Token stored in \(setup.tokenPath)\n"))
        #expect(result.stdout.contains("  Client id:      demo-client\n"))
        #expect(result.stdout.contains("  API check:      ok, "))
        // Two pending answers and the grant, one second apart.
        #expect(try setup.api.requestCount(pathPrefix: "/token") == 3)
        #expect(try setup.api.requestCount(pathPrefix: "/device/code") == 1)
        #expect(Date().timeIntervalSince(started) >= 3)

        let stored = try setup.stored()
        #expect(!stored.accessToken.isEmpty)
        #expect(stored.refreshToken != nil)
        #expect(stored.clientID == "demo-client")
        let expires = try #require(stored.expiresAt)
        #expect(expires.timeIntervalSince(stored.obtainedAt) > 300 * 86_400)
        #expect(setup.mode(setup.tokenPath) == 0o600)
        #expect(setup.mode(setup.home.path + "/config/metrika") == 0o700)
        #expect(!result.stdout.contains(stored.accessToken) && !result.stderr.contains(stored.accessToken))

        // The stored token now signs every command, without METRIKA_TOKEN.
        let counters = try metrika(["counters", "--csv"], environment: setup.environment())
        #expect(counters.status == 0, "\(counters.stderr)")
        #expect(counters.stdout.hasPrefix("id,name,site,status,permission,owner_login,time_zone\n880000,"))
        let status = try metrika(["auth", "status"], environment: setup.environment())
        #expect(status.status == 0)
        #expect(status.stdout.contains("  Source:     token file \(setup.tokenPath)\n"))
        #expect(status.stdout.contains("  API:        accepts the token ("))
    }

    @Test func refusalAndSlowDownFromTheServer() throws {
        let setup = try Setup(pending: 1)
        try setup.api.inject(["kind": "oauth_access_denied", "count": 1])
        let denied = try setup.login()
        #expect(denied.status == 77)
        #expect(denied.stderr.contains("Error: Sign-in was refused on the confirmation page."))
        #expect(!FileManager.default.fileExists(atPath: setup.tokenPath))

        let slowed = try Setup(pending: 0)
        try slowed.api.inject(["kind": "oauth_slow_down", "count": 1])
        let started = Date()
        let result = try slowed.login()
        #expect(result.status == 0, "\(result.stderr)")
        // 1 s, then slow_down: 1 + 5 s before the next poll.
        #expect(Date().timeIntervalSince(started) >= 7)
        #expect(try slowed.api.requestCount(pathPrefix: "/token") == 2)
    }

    @Test func missingClientIDIsAConfigurationError() throws {
        let setup = try Setup()
        let result = try metrika(["login"], environment: setup.environment())
        #expect(result.status == 78)
        #expect(result.stderr.contains("--client-id, set METRIKA_CLIENT_ID"))
        #expect(try setup.api.requestCount() == 0)
    }

    @Test func ctrlCCancelsTheWait() throws {
        let setup = try Setup(pending: 1000)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.metrika)
        process.arguments = ["login"]
        process.environment = setup.environment(Self.app)
        let errPipe = Pipe()
        process.standardError = errPipe
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Wait until the code is shown, then press "Ctrl-C".
        var seen = Data()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !String(decoding: seen, as: UTF8.self).contains("Press Ctrl-C") {
            let chunk = errPipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        #expect(String(decoding: seen, as: UTF8.self).contains("enter the code: "))
        kill(process.processIdentifier, SIGINT)
        // A Ctrl-C that is not heeded fails here within 20 s instead of holding the whole run.
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) { if process.isRunning { kill(pid, SIGKILL) } }
        seen.append(errPipe.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 130)
        #expect(String(decoding: seen, as: UTF8.self).hasSuffix("Login cancelled.\n"))
        #expect(!FileManager.default.fileExists(atPath: setup.tokenPath))
    }

    @Test func groupReadableTokenFileIsRefused() throws {
        let setup = try Setup()
        try TokenFile(path: setup.tokenPath).write(
            StoredToken(accessToken: demoToken, obtainedAt: TestClock.date), tightenDirectory: true)
        #expect(setup.mode(setup.tokenPath) == 0o600)
        #expect(try metrika(["counters"], environment: setup.environment()).status == 0)

        chmod(setup.tokenPath, 0o640)
        let refused = try metrika(["counters"], environment: setup.environment())
        #expect(refused.status == 77)
        #expect(
            refused.stderr.contains(
                "is accessible by others (mode 0640), so it is not used. Make it private with `chmod 600 \(setup.tokenPath)`"
            ))
        #expect(try setup.api.requestCount(pathPrefix: "/management") == 1) // only the first run reached the API

        chmod(setup.tokenPath, 0o600)
        #expect(try metrika(["counters"], environment: setup.environment()).status == 0)
    }

    @Test func refreshWhenNearExpiry() throws {
        let setup = try Setup(pending: 0)
        #expect(try setup.login().status == 0)
        var stored = try setup.stored()
        let original = stored.accessToken
        stored.expiresAt = TestClock.date.addingTimeInterval(10 * 86_400)
        try TokenFile(path: setup.tokenPath).write(stored)

        let counters = try metrika(["counters", "--verbose"], environment: setup.environment(Self.app))
        #expect(counters.status == 0, "\(counters.stderr)")
        #expect(counters.stderr.contains("/token → 200"))
        let renewed = try setup.stored()
        #expect(renewed.accessToken != original)
        #expect(try #require(renewed.expiresAt).timeIntervalSinceNow > 300 * 86_400)
        #expect(setup.mode(setup.tokenPath) == 0o600)
        #expect(!counters.stderr.contains(renewed.accessToken) && !counters.stderr.contains(original))

        // Far from expiry: no refresh.
        let before = try setup.api.requestCount(pathPrefix: "/token")
        #expect(try metrika(["counters"], environment: setup.environment(Self.app)).status == 0)
        #expect(try setup.api.requestCount(pathPrefix: "/token") == before)
    }

    @Test func expiringTokenWithoutSecretWarnsWithTheCommand() throws {
        let setup = try Setup()
        let soon = TestClock.date.addingTimeInterval(5 * 86_400 + 3600)
        try TokenFile(path: setup.tokenPath).write(
            StoredToken(
                accessToken: demoToken, refreshToken: "some-refresh", obtainedAt: TestClock.date, expiresAt: soon,
                clientID: "demo-client"), tightenDirectory: true)
        let result = try metrika(["counters"], environment: setup.environment())
        #expect(result.status == 0)
        #expect(
            result.stderr.contains(
                "Warning: the token in token file \(setup.tokenPath) expires on \(StoredToken.day(soon)) (in 6 days)"))
        #expect(result.stderr.contains("Run `metrika login` to renew it."))
    }

    @Test func revokedTokenLeadsToLogin() throws {
        let setup = try Setup()
        // A revoked token in the token file whose refresh also fails.
        try TokenFile(path: setup.tokenPath).write(
            StoredToken(
                accessToken: "revoked-token", refreshToken: "unknown-refresh", obtainedAt: TestClock.date,
                expiresAt: TestClock.date.addingTimeInterval(200 * 86_400), clientID: "demo-client"),
            tightenDirectory: true)
        let fromFile = try metrika(["counters"], environment: setup.environment(Self.app))
        #expect(fromFile.status == 77)
        #expect(
            fromFile.stderr.contains(
                "Error: The API rejected the token (invalid_token): it is wrong, expired or revoked. Sign in again with `metrika login`."
            ))
        #expect(try setup.api.requestCount(pathPrefix: "/token") == 1) // one renewal attempt, no more

        let fromVariable = try metrika(["counters"], environment: setup.environment(["METRIKA_TOKEN": "revoked-token"]))
        #expect(fromVariable.status == 77)
        #expect(fromVariable.stderr.contains("`metrika login`"))
        #expect(fromVariable.stderr.contains("came from METRIKA_TOKEN"))
    }

    @Test func logoutRevokesDeletesAndIsIdempotent() throws {
        let setup = try Setup(pending: 0)
        #expect(try setup.login().status == 0)
        let token = try setup.stored().accessToken

        let first = try metrika(["logout"], environment: setup.environment(Self.app))
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("Revoked the token "))
        #expect(first.stdout.hasSuffix("Deleted \(setup.tokenPath).\n"))
        #expect(!FileManager.default.fileExists(atPath: setup.tokenPath))
        #expect(try setup.api.requestCount(pathPrefix: "/revoke_token") == 1)

        // The revoked token no longer works anywhere.
        let after = try metrika(["counters"], environment: setup.environment(["METRIKA_TOKEN": token]))
        #expect(after.status == 77)

        let second = try metrika(["logout"], environment: setup.environment(Self.app))
        #expect(second.status == 0)
        #expect(second.stdout == "Already signed out: there is no token file at \(setup.tokenPath).\n")
        #expect(try setup.api.requestCount(pathPrefix: "/revoke_token") == 1)
        let status = try metrika(["auth", "status"], environment: setup.environment())
        #expect(status.status == 77)
        #expect(status.stderr.contains("Not signed in"))
    }

    @Test func pastedTokenFromStandardInput() throws {
        let setup = try Setup()
        let result = try metrika(["login", "--token-stdin"], environment: setup.environment(), stdin: demoToken + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("  Token:          (hidden, 10 characters)\n"))
        #expect(try setup.stored().accessToken == demoToken)
        #expect(setup.mode(setup.tokenPath) == 0o600)
        let bad = try metrika(["login", "--token-stdin"], environment: setup.environment(), stdin: "not-a-valid-token")
        #expect(bad.status == 77)
        #expect(
            bad.stderr.contains("the API rejected the pasted token (invalid_token)")
                && bad.stderr.contains("nothing was stored"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("Sign in again"), "no advice to sign in to someone signing in")
        #expect(try setup.stored().accessToken == demoToken) // the good one is kept
    }
}
