import Foundation
import MetrikaAPI
import MetrikaCLI
import Testing

/// The auth commands run in-process through `CLI.run` against a scripted OAuth server and API, with
/// a clock that only moves when metrika sleeps: every branch without real waiting or a network.
@Suite("Auth commands in-process", .blockingLanes)
struct AuthCommandsEndToEndTests {
    /// A scripted OAuth + Metrika server: device code, `pending` polls, then a grant; counters for
    /// the tokens it knows; revoke.
    final class Server: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        var pendingPolls = 2
        var pollAnswer: (Int, String)? = nil // overrides the grant when set (access_denied etc.)
        var validTokens: Set<String> = [
            "pasted-token-0123456789", "issued-access-0123456789", "renewed-access-0123456789"
        ]
        var revokeAnswer: (Int, String) = (200, #"{"status": "ok"}"#)
        private(set) var log: [(path: String, authorization: String?, form: [String: String])] = []

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            lock.withLock { respond(request) }
        }

        private func respond(_ request: HTTPRequest) -> HTTPResponse {
            let form = Dictionary(
                FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)),
                uniquingKeysWith: { a, _ in a })
            log.append((request.url.path, request.headers["Authorization"], form))
            func answer(_ status: Int, _ body: String) -> HTTPResponse {
                HTTPResponse(status: status, body: Data(body.utf8))
            }
            switch request.url.path {
            case "/device/code":
                return answer(
                    200,
                    #"{"device_code": "secret-device-code", "user_code": "ABCD-2345", "verification_url": "https://ya.ru/device", "interval": 5, "expires_in": 300}"#
                )
            case "/token" where form["grant_type"] == "device_code":
                if pendingPolls > 0 {
                    pendingPolls -= 1
                    return answer(400, #"{"error": "authorization_pending"}"#)
                }
                if let pollAnswer { return answer(pollAnswer.0, pollAnswer.1) }
                return answer(
                    200,
                    #"{"token_type": "bearer", "access_token": "issued-access-0123456789", "refresh_token": "issued-refresh-0123456789", "expires_in": 31536000}"#
                )
            case "/token":
                guard form["refresh_token"] == "issued-refresh-0123456789", form["client_secret"] == "demo-secret"
                else {
                    return answer(400, #"{"error": "invalid_grant"}"#)
                }
                return answer(
                    200,
                    #"{"access_token": "renewed-access-0123456789", "refresh_token": "renewed-refresh-0123456789", "expires_in": 31536000}"#
                )
            case "/revoke_token":
                if revokeAnswer.0 == 200, let token = form["access_token"] { validTokens.remove(token) }
                return answer(revokeAnswer.0, revokeAnswer.1)
            case "/management/v1/counters":
                let token = request.headers["Authorization"].map { String($0.dropFirst("OAuth ".count)) } ?? ""
                guard validTokens.contains(token) else {
                    return answer(
                        403,
                        #"{"errors": [{"error_type": "invalid_token", "message": "Invalid oauth_token"}], "code": 403}"#
                    )
                }
                return answer(
                    200,
                    #"{"rows": 3, "counters": [{"id": 1, "name": "Shop", "site": "shop.example"}, {"id": 2, "name": "Blog", "site": "blog.example"}, {"id": 3, "name": "Docs", "site": "docs.example"}]}"#
                )
            default:
                return answer(404, #"{"errors": [{"error_type": "not_found", "message": "no"}]}"#)
            }
        }

        func paths() -> [String] { lock.withLock { log.map(\.path) } }
        func entries() -> [(path: String, authorization: String?, form: [String: String])] { lock.withLock { log } }
    }

    /// One run's world: a home directory, the server, a frozen clock that sleeping advances.
    final class World: @unchecked Sendable {
        let home: TemporaryDirectory
        let server = Server()
        private let lock = NSLock()
        private var clock = Date(timeIntervalSince1970: 1_781_524_800) // 2026-06-15T12:00:00Z
        private(set) var slept: [Double] = []

        init() throws { home = try TemporaryDirectory() }

        var tokenPath: String { home.path + "/config/metrika/token.json" }

        func environment(_ extra: [String: String] = [:]) -> [String: String] {
            var environment = [
                "HOME": home.path, "XDG_CONFIG_HOME": home.path + "/config", "XDG_DATA_HOME": home.path + "/data",
                "METRIKA_API_URL": "http://127.0.0.1:9", "METRIKA_OAUTH_URL": "http://127.0.0.1:9"
            ]
            for (key, value) in extra { environment[key] = value }
            return environment
        }

        func advance(days: Double) { lock.withLock { clock = clock.addingTimeInterval(days * 86_400) } }

        /// Runs `metrika arguments` in-process.
        func run(_ arguments: [String], environment extra: [String: String] = [:], stdin: String? = nil) async -> (
            code: Int32, out: String, err: String
        ) {
            let out = TextSink()
            let err = TextSink()
            let context = CLIContext(
                environment: environment(extra), stdout: out, stderr: err, readStandardInput: { stdin },
                transport: server,
                now: { self.lock.withLock { self.clock } },
                sleep: { seconds in
                    try Task.checkCancellation()
                    self.lock.withLock {
                        self.slept.append(seconds)
                        self.clock = self.clock.addingTimeInterval(seconds)
                    }
                })
            let code = await CLI.run(arguments: arguments, context: context)
            return (code, out.text, err.text)
        }

        func mode(_ path: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }

        func stored() throws -> StoredToken { try TokenFile(path: tokenPath).read() }
    }

    static let app = ["METRIKA_CLIENT_ID": "demo-client", "METRIKA_CLIENT_SECRET": "demo-secret"]
    static let secrets = [
        "issued-access-0123456789", "issued-refresh-0123456789", "renewed-access-0123456789", "pasted-token-0123456789",
        "secret-device-code", "demo-secret"
    ]

    func expectNoSecrets(_ texts: String..., sourceLocation: SourceLocation = #_sourceLocation) {
        for text in texts {
            for secret in Self.secrets {
                #expect(!text.contains(secret), "output contains \(secret.prefix(6))…", sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: - login

    @Test func deviceLoginStoresAPrivateTokenAndShowsItMasked() async throws {
        let world = try World()
        let result = await world.run(["login"], environment: Self.app)
        #expect(result.code == 0, "\(result.err)")
        #expect(result.err.contains("To sign in, open https://ya.ru/device and enter the code: ABCD-2345\n"))
        #expect(
            result.out == """
                Signed in. Token stored in \(world.tokenPath)
                  Token:          issu…89 (24 characters)
                  Refresh token:  stored
                  Obtained:       2026-06-15T12:00:15Z
                  Expires:        2027-06-15 (in 365 days)
                  Client id:      demo-client
                  API check:      ok, 3 counters visible

                """)
        #expect(world.slept == [5, 5, 5])
        #expect(world.server.paths() == ["/device/code", "/token", "/token", "/token", "/management/v1/counters"])
        let deviceRequest = world.server.entries()[0].form
        #expect(deviceRequest["client_id"] == "demo-client")
        #expect((deviceRequest["device_id"]?.count ?? 0) >= 6 && (deviceRequest["device_id"]?.count ?? 99) <= 50)
        #expect(
            world.server.entries()[1].form == [
                "grant_type": "device_code", "code": "secret-device-code", "client_id": "demo-client",
                "client_secret": "demo-secret"
            ])
        let stored = try world.stored()
        #expect(stored.accessToken == "issued-access-0123456789")
        #expect(stored.refreshToken == "issued-refresh-0123456789")
        #expect(stored.clientID == "demo-client")
        #expect(world.mode(world.tokenPath) == 0o600)
        #expect(world.mode(world.home.path + "/config/metrika") == 0o700)
        expectNoSecrets(result.out, result.err)
    }

    @Test(arguments: [
        (#"{"error": "access_denied"}"#, Int32(77), "Sign-in was refused"),
        (#"{"error": "invalid_grant", "error_description": "expired"}"#, Int32(77), "The code expired"),
        (#"{"error": "invalid_client"}"#, Int32(78), "The OAuth server rejected the app's client id or secret")
    ])
    func deviceLoginRefusals(body: String, code: Int32, words: String) async throws {
        let world = try World()
        world.server.pollAnswer = (400, body)
        let result = await world.run(["login"], environment: Self.app)
        #expect(result.code == code)
        #expect(result.err.contains("Error: " + words), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
    }

    @Test func deviceLoginStopsWhenTheCodeExpires() async throws {
        let world = try World()
        world.server.pendingPolls = 1000
        let result = await world.run(["login"], environment: Self.app)
        #expect(result.code == 77)
        #expect(
            result.err.contains("Error: The code expired before the sign-in was confirmed. Run `metrika login` again"))
        #expect(world.slept.reduce(0, +) == 300)
        #expect(world.slept.count == 60)
    }

    @Test func deviceLoginNeedsTheUsersApp() async throws {
        let world = try World()
        let noID = await world.run(["login"])
        #expect(noID.code == 78)
        #expect(noID.err.contains("--client-id, set METRIKA_CLIENT_ID"))
        let noSecret = await world.run(["login", "--client-id", "demo-client"])
        #expect(noSecret.code == 78)
        #expect(noSecret.err.contains("client secret"))
        #expect(world.server.paths().isEmpty)
        let flags = await world.run(["login", "--client-id", "demo-client", "--client-secret", "demo-secret"])
        #expect(flags.code == 0)
    }

    @Test func pastedTokenIsCheckedStoredAndMasked() async throws {
        let world = try World()
        let result = await world.run(["login", "--token-stdin"], stdin: "  pasted-token-0123456789\n")
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("  Token:          past…89 (23 characters)\n"))
        #expect(result.out.contains("  Expires:        unknown\n"))
        #expect(try world.stored().accessToken == "pasted-token-0123456789")
        #expect(world.server.entries().map(\.authorization) == ["OAuth pasted-token-0123456789"])
        expectNoSecrets(result.out, result.err)
    }

    @Test func pastedRedirectAddressKeepsTheExpiry() async throws {
        let world = try World()
        let address =
            "https://oauth.yandex.ru/verification_code#access_token=pasted-token-0123456789&token_type=bearer&expires_in=86400"
        let result = await world.run(["login", "--token-stdin"], stdin: address)
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("  Expires:        2026-06-16 (in 1 day)\n"))
        // One day left is inside the renewal window, but a pasted token has no refresh token: warn.
        let counters = await world.run(["counters"])
        #expect(counters.code == 0)
        #expect(
            counters.err.contains(
                "expires on 2026-06-16 (in 1 day) and could not be renewed automatically (the token file holds no refresh token). Run `metrika login` to renew it."
            ))
    }

    @Test func aRejectedPastedTokenIsNotStored() async throws {
        let world = try World()
        let result = await world.run(["login", "--token-stdin"], stdin: "wrong-token-abcdefghij")
        #expect(result.code == 77)
        #expect(result.err.contains("metrika login"))
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
        #expect(!result.err.contains("wrong-token-abcdefghij"))
    }

    @Test(arguments: [("", "it was empty"), ("two words", "more than one word")])
    func unusableStandardInput(input: String, reason: String) async throws {
        let world = try World()
        let result = await world.run(["login", "--token-stdin"], stdin: input)
        #expect(result.code == 64)
        #expect(result.err.contains(reason))
        #expect(!result.err.contains("two words"))
    }

    @Test func aTokenIsNeverTakenFromArguments() async throws {
        let world = try World()
        let result = await world.run(["login", "pasted-token-0123456789"])
        #expect(result.code == 64)
        #expect(result.err.contains("--token-stdin"))
        expectNoSecrets(result.out, result.err)
        #expect(world.server.paths().isEmpty)
    }

    // MARK: - refresh, status, logout

    @Test func commandsRenewATokenNearExpiryAndSaveIt() async throws {
        let world = try World()
        #expect(await world.run(["login"], environment: Self.app).code == 0)
        world.advance(days: 340) // 25 days left
        let counters = await world.run(["counters", "--csv"], environment: Self.app)
        #expect(counters.code == 0, "\(counters.err)")
        #expect(counters.err.isEmpty)
        let renewed = try world.stored()
        #expect(renewed.accessToken == "renewed-access-0123456789")
        #expect(renewed.refreshToken == "renewed-refresh-0123456789")
        #expect(StoredToken.day(renewed.expiresAt!) == "2028-05-20")
        #expect(world.mode(world.tokenPath) == 0o600)
        #expect(world.server.entries().last?.authorization == "OAuth renewed-access-0123456789")
        // Without the secret it cannot renew, and says what to run.
        world.advance(days: 340)
        let warned = await world.run(["counters", "--csv"])
        #expect(
            warned.err.contains(
                "Warning: the token in token file \(world.tokenPath) expires on 2028-05-20 (in 25 days) and could not be renewed automatically"
            ))
        #expect(warned.err.contains("Run `metrika login` to renew it."))
    }

    @Test func aRevokedTokenGivesAClearMessageNamingLogin() async throws {
        let world = try World()
        #expect(await world.run(["login"], environment: Self.app).code == 0)
        world.server.validTokens = [] // revoked elsewhere (e.g. on the Yandex ID page)
        world.server.pollAnswer = nil
        let counters = await world.run(["counters"])
        #expect(counters.code == 77)
        #expect(
            counters.err.hasSuffix(
                "Error: The API rejected the token (invalid_token): it is wrong, expired or revoked. Sign in again with `metrika login`.\n"
            ))
        let status = await world.run(["auth", "status"])
        #expect(status.code == 77)
        #expect(status.out.contains("  API:        rejects the token: sign in again with `metrika login`\n"))
    }

    @Test func authStatusSaysWhereFromUntilWhenAndWhetherAccepted() async throws {
        let world = try World()
        #expect(await world.run(["login"], environment: Self.app).code == 0)
        let status = await world.run(["auth", "status"], environment: Self.app)
        #expect(status.code == 0, "\(status.err)")
        #expect(
            status.out == """
                  Profile:    none (--profile / METRIKA_PROFILE)
                  Source:     token file \(world.tokenPath)
                  Token:      issu…89 (24 characters)
                  Obtained:   2026-06-15T12:00:15Z
                  Expires:    2027-06-15 (in 365 days)
                  Client id:  demo-client
                  Renewal:    automatic within 30 days of expiry (app demo-client, secret from METRIKA_CLIENT_SECRET)
                  API:        accepts the token (3 counters visible)

                """)
        let fromVariable = await world.run(
            ["auth", "status"], environment: ["METRIKA_TOKEN": "pasted-token-0123456789"])
        #expect(fromVariable.code == 0)
        #expect(
            fromVariable.out.hasPrefix(
                "  Profile:  none (--profile / METRIKA_PROFILE)\n  Source:   METRIKA_TOKEN\n  Token:    past…89 (23 characters)\n"
            ))
        #expect(fromVariable.out.contains("is ignored while METRIKA_TOKEN is set"))
        expectNoSecrets(status.out, status.err, fromVariable.out, fromVariable.err)
        let signedOut = try World()
        let none = await signedOut.run(["auth", "status"])
        #expect(none.code == 77)
        #expect(none.err.contains("Not signed in"))
    }

    @Test func groupReadableTokenFileIsRefusedEverywhere() async throws {
        let world = try World()
        #expect(await world.run(["login"], environment: Self.app).code == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: world.tokenPath)
        for arguments in [["counters"], ["auth", "status"]] {
            let result = await world.run(arguments)
            #expect(result.code == 77)
            #expect(
                result.err
                    == "Error: The token file \(world.tokenPath) is accessible by others (mode 0640), so it is not used. Make it private with `chmod 600 \(world.tokenPath)`, or run `metrika logout` and `metrika login` to get a new token.\n"
            )
        }
    }

    @Test func logoutRevokesDeletesAndIsIdempotent() async throws {
        let world = try World()
        #expect(await world.run(["login"], environment: Self.app).code == 0)
        let first = await world.run(["logout"], environment: Self.app)
        #expect(first.code == 0, "\(first.err)")
        #expect(first.out == "Revoked the token issu…89 (24 characters) on the server.\nDeleted \(world.tokenPath).\n")
        let revoke = try #require(world.server.entries().last)
        #expect(revoke.path == "/revoke_token")
        #expect(
            revoke.form == [
                "access_token": "issued-access-0123456789", "client_id": "demo-client", "client_secret": "demo-secret"
            ])
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
        #expect(!world.server.validTokens.contains("issued-access-0123456789"))
        let second = await world.run(["logout"], environment: Self.app)
        #expect(second.code == 0)
        #expect(second.out == "Already signed out: there is no token file at \(world.tokenPath).\n")
        #expect(world.server.paths().last == "/revoke_token") // no second revoke
    }

    @Test func logoutOfAnUnrevocableTokenJustDeletesIt() async throws {
        let world = try World()
        #expect(
            await world.run(["login", "--token-stdin", "--client-id", "demo-client"], stdin: "pasted-token-0123456789")
                .code == 0)
        world.server.revokeAnswer = (400, #"{"error": "unsupported_token_type"}"#)
        let result = await world.run(["logout"], environment: Self.app)
        #expect(result.code == 0)
        #expect(
            result.out
                == "The server cannot revoke this token (it was not issued to a device): it stays valid until it expires, unless you revoke it at https://id.yandex.ru/security. Deleting the local copy.\nDeleted \(world.tokenPath).\n"
        )
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
    }

    @Test func logoutOfAPastedTokenWithoutTheSecretDeletesItAndSaysItStaysValid() async throws {
        let world = try World()
        #expect(
            await world.run(["login", "--token-stdin", "--client-id", "demo-client"], stdin: "pasted-token-0123456789")
                .code == 0)
        let result = await world.run(["logout"])
        #expect(result.code == 0, "\(result.err)")
        #expect(
            result.out
                == "This token was not issued by `metrika login`'s device flow, so it cannot be revoked here: it stays valid until it expires, unless you revoke it at https://id.yandex.ru/security. Deleting the local copy.\nDeleted \(world.tokenPath).\n"
        )
        #expect(!world.server.paths().contains("/revoke_token"))
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
    }

    @Test func logoutDeletesAnInsecureFileAfterRevokingIt() async throws {
        let world = try World()
        #expect(await world.run(["login"], environment: Self.app).code == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: world.tokenPath)
        let result = await world.run(["logout"], environment: Self.app)
        #expect(result.code == 0)
        #expect(result.out.hasPrefix("Revoked the token"))
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
    }
}
