import Foundation
import MetrikaAPI
import MetrikaTestSupport
import Testing

/// `metrika login --store keyring`: the token goes to the Secret Service through `secret-tool` on its
/// stdin (never argv or environment), the token file only notes where it is, and status, renewal and
/// logout follow it there. First with a recording stand-in for secret-tool, then with the real one
/// against a GNOME Keyring started in a private D-Bus session.
@Suite("Keyring token store", .blockingLanes)
struct KeyringEndToEndTests {
    typealias World = AuthCommandsEndToEndTests.World

    static let issued = "issued-access-0123456789"

    func environment(_ tool: FakeSecretTool, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = AuthCommandsEndToEndTests.app
        environment["PATH"] = tool.directory + ":/usr/bin:/bin"
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    @Test func loginStoresInTheKeyringAndTheFileOnlyNotesWhere() async throws {
        let world = try World()
        let tool = try FakeSecretTool()
        let login = await world.run(
            ["login", "--store", "keyring"], environment: environment(tool, ["METRIKA_CLIENT_SECRET": "demo-secret"]))
        #expect(login.code == 0, "\(login.err)")
        #expect(
            login.out.hasPrefix(
                "Signed in. Token stored in the Secret Service keyring (\(world.tokenPath) notes where)\n"),
            "\(login.out)")
        // The keyring holds the whole entry (refresh token included); the file names only the place.
        let entry = try #require(tool.secret.flatMap { StoredToken.decode(Data($0.utf8)) })
        #expect(entry.accessToken == Self.issued && entry.refreshToken == "issued-refresh-0123456789")
        let note = try String(contentsOfFile: world.tokenPath, encoding: .utf8)
        #expect(
            note == "{\n  \"version\": 1,\n  \"store\": \"secret-service\",\n  \"account\": \"\(world.tokenPath)\"\n}\n"
        )
        #expect(world.mode(world.tokenPath) == 0o600)
        // The secret went on stdin only: not in any argument vector, and no METRIKA_ variable reached the child.
        #expect(tool.stdin.contains(Self.issued))
        #expect(
            tool.arguments
                == "store --label=metrika token (\(world.tokenPath)) service metrika account \(world.tokenPath)\n")
        #expect(!tool.arguments.contains(Self.issued))
        #expect(!tool.environments.isEmpty && !tool.environments.contains("METRIKA_"), "\(tool.environments)")
        #expect(!tool.environments.contains("demo-secret"))

        let status = await world.run(["auth", "status"], environment: environment(tool))
        #expect(status.code == 0, "\(status.err)")
        #expect(
            status.out.contains("  Source:     the Secret Service keyring (noted in \(world.tokenPath))\n"),
            "\(status.out)")
        #expect(status.out.contains("  Token:      issu…89 (24 characters)\n"))

        let logout = await world.run(["logout"], environment: environment(tool))
        #expect(logout.code == 0, "\(logout.err)")
        #expect(
            logout.out.contains("Deleted the token from the Secret Service keyring.\nDeleted \(world.tokenPath).\n"),
            "\(logout.out)")
        #expect(world.server.paths().last == "/revoke_token")
        #expect(tool.secret == nil)
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
    }

    @Test func renewalWritesBackToTheKeyring() async throws {
        let world = try World()
        let tool = try FakeSecretTool()
        #expect(await world.run(["login", "--store", "keyring"], environment: environment(tool)).code == 0)
        let note = try String(contentsOfFile: world.tokenPath, encoding: .utf8)
        world.advance(days: 350)
        let counters = await world.run(["counters", "--csv"], environment: environment(tool))
        #expect(counters.code == 0, "\(counters.err)")
        let entry = try #require(tool.secret.flatMap { StoredToken.decode(Data($0.utf8)) })
        #expect(entry.accessToken == "renewed-access-0123456789")
        #expect(try String(contentsOfFile: world.tokenPath, encoding: .utf8) == note)
    }

    @Test func loginToTheFileAgainRemovesTheKeyringCopy() async throws {
        let world = try World()
        let tool = try FakeSecretTool()
        #expect(await world.run(["login", "--store", "keyring"], environment: environment(tool)).code == 0)
        let again = await world.run(
            ["login", "--token-stdin"], environment: environment(tool), stdin: "pasted-token-0123456789")
        #expect(again.code == 0, "\(again.err)")
        #expect(tool.secret == nil)
        #expect(try world.stored().accessToken == "pasted-token-0123456789")
    }

    @Test func keyringProblemsAreOneLineWithExit69() async throws {
        let world = try World()
        let missing = await world.run(
            ["login", "--store", "keyring", "--token-stdin"], environment: ["PATH": "/nonexistent"],
            stdin: "pasted-token-0123456789")
        #expect(missing.code == 69)
        #expect(
            missing.err.contains(
                "Error: Cannot use the Secret Service keyring: secret-tool is not installed (Debian/Ubuntu: apt-get install libsecret-tools)"
            ), "\(missing.err)")
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
        let bad = await world.run(["login", "--store", "vault"])
        #expect(bad.code == 64 && bad.err.contains("--store must be file or keyring, not 'vault'"))

        // The note survives; the keyring lost the entry (cleared by hand): say so and how to fix it.
        let tool = try FakeSecretTool()
        #expect(
            await world.run(
                ["login", "--store", "keyring", "--token-stdin"], environment: environment(tool),
                stdin: "pasted-token-0123456789"
            ).code == 0)
        try FileManager.default.removeItem(atPath: tool.secretPath)
        let gone = await world.run(["counters"], environment: environment(tool))
        #expect(gone.code == 77)
        #expect(
            gone.err
                == "Error: The token file \(world.tokenPath) says the token is in the Secret Service keyring, but it holds none for it. Run `metrika login --store keyring` to sign in again (or `metrika logout` to forget it).\n"
        )
    }

    /// A keyring that never answers (a locked one waiting for a dialog nobody sees) is stopped.
    @Test func aHangingSecretToolIsStoppedAtTheTimeLimit() async throws {
        let tool = try FakeSecretTool(hangSeconds: 30)
        let keyring = Keyring(
            kind: .secretService, account: "/x", environment: ["PATH": tool.directory + ":/usr/bin:/bin"], timeout: 0.5)
        let started = Date()
        let error = await #expect(throws: AuthError.self) { try await keyring.lookup() }
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(error?.exitCode == 69)
        #expect(
            error?.message.contains("secret-tool did not answer within 0.5 s and was stopped") == true,
            "\(String(describing: error?.message))")
    }

    // MARK: - The real Secret Service

    /// metrika's login, status and logout against a real GNOME Keyring in a private D-Bus session
    /// (a session dbus-daemon + gnome-keyring-daemon --unlock), checked with the real secret-tool.
    @Test func realSecretService() throws {
        for (tool, package) in [
            ("dbus-daemon", "dbus"), ("gnome-keyring-daemon", "gnome-keyring"), ("secret-tool", "libsecret-tools")
        ] {
            try ToolCheck.require(tool, package: package, searchPath: "/usr/bin:/bin")
        }
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let tokenPath = home.path + "/config/metrika/token.json"
        let script = home.path + "/steps.sh"
        let metrikaPath = Binaries.metrika
        // Each step's exit status and output go to files the test reads; the keyring password is fixed.
        try Data(
            """
            set -u
            # A private session bus, as dbus-run-session makes one; started by hand because children of the
            # test runner inherit a signal mask that blocks SIGTERM (with which dbus-run-session ends its
            # bus): every daemon here is stopped with SIGKILL, so none outlives the test.
            out=$(dbus-daemon --session --fork --print-address=1 --print-pid=1) || { echo "dbus-daemon did not start" > "$HOME/skip"; exit 0; }
            DBUS_SESSION_BUS_ADDRESS=$(echo "$out" | sed -n 1p); export DBUS_SESSION_BUS_ADDRESS
            bus=$(echo "$out" | sed -n 2p)
            printf pass | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
            daemon=$!
            trap 'kill -9 $daemon $bus 2>/dev/null' EXIT
            sleep 0.5
            gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1
            # The daemons take their time on a busy machine: the probe is tried for up to 20 s.
            tries=0
            until printf probe | secret-tool store --label=probe service metrika-probe account probe 2>/dev/null; do
                tries=$((tries + 1)); [ $tries -ge 40 ] && { echo "keyring did not start within 20 s" > "$HOME/skip"; exit 0; }
                sleep 0.5
            done
            printf 'demo-token\\n' | "\(metrikaPath)" login --token-stdin --store keyring > "$HOME/login.out" 2>&1; echo $? > "$HOME/login.rc"
            secret-tool lookup service metrika account "\(tokenPath)" > "$HOME/lookup.out"; echo $? > "$HOME/lookup.rc"
            "\(metrikaPath)" auth status > "$HOME/status.out" 2>&1; echo $? > "$HOME/status.rc"
            "\(metrikaPath)" counters --csv > "$HOME/counters.out" 2>&1; echo $? > "$HOME/counters.rc"
            "\(metrikaPath)" logout > "$HOME/logout.out" 2>&1; echo $? > "$HOME/logout.rc"
            secret-tool lookup service metrika account "\(tokenPath)" > /dev/null; echo $? > "$HOME/after.rc"
            # The Telegram bot's token as docs/telegram.md stores it (secret-tool reads it on stdin), named by the config.
            printf '%s' "$BOT_TOKEN" | secret-tool store --label='metrika Telegram bot' service metrika account telegram
            printf '{"telegram": {"keyring": "telegram"}}' > "$XDG_CONFIG_HOME/metrika/config.json"
            "\(metrikaPath)" bot --allow 42 --once > "$HOME/bot.out" 2>&1; echo $? > "$HOME/bot.rc"
            """.utf8
        ).write(to: URL(fileURLWithPath: script))
        let telegram = try TelegramBotEndToEndTests.BotAPI()
        defer { telegram.stop() }
        _ = try telegram.control("POST", "__tg/updates", #"{"chat_id": 42, "text": "/help"}"#)
        var environment = metrikaEnvironment(api: api, home: home.path, token: nil)
        environment["PATH"] = "/usr/bin:/bin"
        environment["BOT_TOKEN"] = TelegramBotEndToEndTests.token
        environment["METRIKA_TELEGRAM_API_URL"] = telegram.baseURL.absoluteString
        // The session's daemons inherit stdout and stderr: a file, never the test's pipes (which a
        // lingering daemon would hold open).
        let run = try runProcess(
            "/bin/sh", ["-c", "exec /bin/sh \"$1\" > \"$1.log\" 2>&1 < /dev/null", "sh", script],
            environment: environment, timeout: 90)
        func read(_ name: String) -> String {
            (try? String(contentsOfFile: home.path + "/" + name, encoding: .utf8)) ?? ""
        }
        if FileManager.default.fileExists(atPath: home.path + "/skip") || (run.status != 0 && read("login.rc").isEmpty)
        {
            // The three programs are installed (checked above): a Secret Service that does not start
            // from them is a failure, not a skip that would pass having checked nothing.
            throw SimpleError(
                "the Secret Service did not start from the installed dbus-daemon, gnome-keyring-daemon and secret-tool (\(read("skip"))\(read("steps.sh.log").suffix(200)))"
            )
        }
        #expect(read("login.rc") == "0\n", "\(read("login.out"))")
        #expect(read("login.out").contains("Token stored in the Secret Service keyring (\(tokenPath) notes where)"))
        #expect(
            StoredToken.decode(Data(read("lookup.out").utf8))?.accessToken == "demo-token",
            "the real keyring holds the entry")
        #expect(!read("config/metrika/token.json").contains("demo-token"))
        #expect(read("status.rc") == "0\n", "\(read("status.out"))")
        #expect(
            ProfileEndToEndTests.row("Source", read("status.out"))
                == "the Secret Service keyring (noted in \(tokenPath))", "\(read("status.out"))")
        #expect(read("counters.rc") == "0\n" && read("counters.out").contains("1001"), "\(read("counters.out"))")
        #expect(read("logout.rc") == "0\n", "\(read("logout.out"))")
        #expect(read("logout.out").contains("Deleted the token from the Secret Service keyring."))
        #expect(read("after.rc") == "1\n", "the entry is gone from the real keyring")
        #expect(!FileManager.default.fileExists(atPath: tokenPath))
        // The bot's token read back from the real keyring: the chat answered, the token nowhere in the output.
        #expect(read("bot.rc") == "0\n", "\(read("bot.out"))")
        #expect(try telegram.sent().filter { $0["method"] as? String == "sendMessage" }.count == 1)
        #expect(!read("bot.out").contains(String(TelegramBotEndToEndTests.token.split(separator: ":")[1])))
    }
}
