import Foundation
import MetrikaAPI
import MetrikaTestSupport
import Testing

/// The app's credentials (client id and secret) come from one resolver with one precedence for
/// login, renewal, `auth status` and logout: option > environment (each variable on its own) >
/// profile > config file > token file (the id only). The built `metrika` against `metrika-fake-api`,
/// whose OAuth server checks the client secret on refresh and revoke as Yandex does.
@Suite("App credentials end to end", .serialized, .blockingLanes)
struct AppCredentialsEndToEndTests {
    static let app = ["METRIKA_CLIENT_ID": "demo-client", "METRIKA_CLIENT_SECRET": "demo-secret"]

    /// Where the secret is, after a device login that left the client id in the token file.
    enum SecretPlace: String, CaseIterable, Sendable {
        /// Only METRIKA_CLIENT_SECRET (docs/auth.md's cron set-up).
        case environment
        /// Only `client_secret` in a 0600 config.json.
        case configFile
        /// Only the `client_secret` of the profile the run uses.
        case profile
    }

    struct Setup {
        let api: FakeAPI
        let home: TemporaryDirectory
        let place: SecretPlace
        var configDirectory: String { home.path + "/config/metrika" }
        var tokenPath: String { configDirectory + (place == .profile ? "/token-work.json" : "/token.json") }

        init(_ place: SecretPlace) throws {
            api = try FakeAPI(arguments: ["--device-interval", "1", "--device-pending", "0"])
            home = try TemporaryDirectory()
            self.place = place
        }

        /// Only the secret, where `place` puts it (plus `extra`); never the client id.
        func environment(_ extra: [String: String] = [:]) -> [String: String] {
            var environment = metrikaEnvironment(api: api, home: home.path, token: nil, extra: extra)
            switch place {
            case .environment:
                environment["METRIKA_CLIENT_SECRET"] = environment["METRIKA_CLIENT_SECRET"] ?? "demo-secret"
            case .configFile: break
            case .profile: environment["METRIKA_PROFILE"] = "work"
            }
            return environment
        }

        /// Signs in by the device flow with both variables, then writes the config file the place needs.
        func login() throws {
            var environment = metrikaEnvironment(
                api: api, home: home.path, token: nil, extra: AppCredentialsEndToEndTests.app)
            if place == .profile {
                try writeConfig(#"{"profiles": {"work": {}}}"#)
                environment["METRIKA_PROFILE"] = "work"
            }
            let result = try metrika(["login"], environment: environment, timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try stored().clientID == "demo-client")
            switch place {
            case .environment: break
            case .configFile: try writeConfig(#"{"client_secret": "demo-secret"}"#)
            case .profile: try writeConfig(#"{"profiles": {"work": {"client_secret": "demo-secret"}}}"#)
            }
        }

        func writeConfig(_ json: String) throws {
            try FileManager.default.createDirectory(atPath: configDirectory, withIntermediateDirectories: true)
            let path = configDirectory + "/config.json"
            try? FileManager.default.removeItem(atPath: path)
            #expect(
                FileManager.default.createFile(
                    atPath: path, contents: Data(json.utf8), attributes: [.posixPermissions: 0o600]))
        }

        func stored() throws -> StoredToken { try TokenFile(path: tokenPath).read() }

        var secretSource: String {
            switch place {
            case .environment: return "METRIKA_CLIENT_SECRET"
            case .configFile: return "the config file \(configDirectory)/config.json"
            case .profile: return "profile 'work'"
            }
        }
    }

    @Test(arguments: SecretPlace.allCases)
    func statusRenewalAndLogoutFindTheSecretAlone(place: SecretPlace) throws {
        let setup = try Setup(place)
        try setup.login()

        let status = try metrika(["auth", "status"], environment: setup.environment())
        #expect(status.status == 0, "\(status.stderr)")
        #expect(
            status.stdout.contains(
                "  Renewal:    automatic within 30 days of expiry (app demo-client, secret from \(setup.secretSource))\n"
            ), "\(status.stdout)")

        // Ten days from expiry: `counters` renews it (not merely warns) and saves the new token.
        var stored = try setup.stored()
        let original = stored.accessToken
        stored.expiresAt = TestClock.date.addingTimeInterval(10 * 86_400)
        try TokenFile(path: setup.tokenPath).write(stored)
        let counters = try metrika(["counters", "--verbose"], environment: setup.environment())
        #expect(counters.status == 0, "\(counters.stderr)")
        #expect(counters.stderr.contains("/token → 200"), "\(counters.stderr)")
        #expect(!counters.stderr.contains("Warning"))
        let renewed = try setup.stored()
        #expect(renewed.accessToken != original)
        #expect(try #require(renewed.expiresAt).timeIntervalSinceNow > 300 * 86_400)

        // Logout revokes with the secret: the server then refuses the token.
        let logout = try metrika(["logout"], environment: setup.environment())
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stdout.hasPrefix("Revoked the token "), "\(logout.stdout)")
        #expect(!FileManager.default.fileExists(atPath: setup.tokenPath))
        let after = try metrika(
            ["counters"],
            environment: metrikaEnvironment(api: setup.api, home: setup.home.path, token: renewed.accessToken))
        #expect(after.status == 77)
    }

    @Test func withoutTheSecretLogoutKeepsTheTokenAndSaysItMayStillBeValid() throws {
        let setup = try Setup(.environment)
        try setup.login()
        let token = try setup.stored().accessToken
        var environment = metrikaEnvironment(api: setup.api, home: setup.home.path, token: nil)

        let status = try metrika(["auth", "status"], environment: environment)
        #expect(
            status.stdout.contains(
                "  Renewal:    not possible (no client secret for the app demo-client: set METRIKA_CLIENT_SECRET, or add client_secret to the (0600) config file)\n"
            ), "\(status.stdout)")

        let before = try setup.api.requestCount(pathPrefix: "/revoke_token")
        let missing = try metrika(["logout"], environment: environment)
        #expect(missing.status == 78)
        #expect(
            missing.stderr.contains(
                "Error: Not signed out: the token was not revoked on the server (no client secret for the app demo-client"
            ), "\(missing.stderr)")
        #expect(missing.stderr.contains("so it may still be valid there; the local copy in \(setup.tokenPath) is kept"))
        #expect(try setup.api.requestCount(pathPrefix: "/revoke_token") == before)
        #expect(FileManager.default.fileExists(atPath: setup.tokenPath))

        // A wrong secret: the server refuses (invalid_client), the token still works, nothing is deleted.
        environment["METRIKA_CLIENT_SECRET"] = "wrong-secret"
        let refused = try metrika(["logout"], environment: environment)
        #expect(refused.status == 78)
        #expect(
            refused.stderr.contains(
                "the OAuth server refused the app's credentials (invalid_client): check the client secret of the app demo-client, from METRIKA_CLIENT_SECRET"
            ), "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrong-secret"))
        #expect(FileManager.default.fileExists(atPath: setup.tokenPath))
        #expect(
            try metrika(
                ["counters"], environment: metrikaEnvironment(api: setup.api, home: setup.home.path, token: token)
            ).status == 0)

        // --local-only deletes the copy and says plainly that the server still honours it.
        let local = try metrika(["logout", "--local-only"], environment: environment)
        #expect(local.status == 0, "\(local.stderr)")
        #expect(
            local.stdout.hasPrefix(
                "Not revoked on the server (--local-only): the token stays valid there until it expires"))
        #expect(!FileManager.default.fileExists(atPath: setup.tokenPath))
    }

    @Test func aSecretOfAnotherAppIsNeverSentForTheToken() throws {
        let setup = try Setup(.configFile)
        try setup.login()
        // The config file names another app with its secret; the token was issued to demo-client.
        try setup.writeConfig(#"{"client_id": "other-app", "client_secret": "other-secret"}"#)
        let status = try metrika(
            ["auth", "status"], environment: metrikaEnvironment(api: setup.api, home: setup.home.path, token: nil))
        #expect(
            status.stdout.contains(
                "not possible (the token was issued to the app demo-client, but the config file \(setup.configDirectory)/config.json names the app other-app"
            ), "\(status.stdout)")
        // METRIKA_CLIENT_ID of the issuing app and its secret win over the config file.
        let fixed = try metrika(
            ["auth", "status"],
            environment: metrikaEnvironment(api: setup.api, home: setup.home.path, token: nil, extra: Self.app))
        #expect(
            fixed.stdout.contains(
                "automatic within 30 days of expiry (app demo-client, secret from METRIKA_CLIENT_SECRET)"),
            "\(fixed.stdout)")
    }
}
