import Foundation
import MetrikaModel
import MetrikaSystem
import Testing

/// The config file's reader: every way a file can be unusable is its own `ConfigError` case, naming the
/// member and where it is, with one exit status (78) and one wording (here checked once per case).
@Suite("Config file")
struct ConfigFileTests {
    /// A config directory of its own: `XDG_CONFIG_HOME` with `metrika/config.json` holding `text`.
    final class Home {
        let path: String
        var config: String { path + "/metrika/config.json" }
        var environment: [String: String] { ["XDG_CONFIG_HOME": path, "HOME": "/nonexistent"] }

        init(_ text: String?, mode: Int = 0o600) throws {
            path = try Scratch.directory().path
            try FileManager.default.createDirectory(atPath: path + "/metrika", withIntermediateDirectories: true)
            if let text {
                _ = FileManager.default.createFile(
                    atPath: path + "/metrika/config.json", contents: Data(text.utf8),
                    attributes: [.posixPermissions: mode])
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func read() throws -> ConfigFile? { try ConfigFile.read(environment: environment) }
    }

    @Test func noFileIsNoConfiguration() throws {
        let home = try Home(nil)
        #expect(try home.read() == nil)
        #expect(ConfigFile.path(environment: home.environment) == home.config)
    }

    /// A config file that is there but cannot be read is never taken for none (issue 32): a directory
    /// in its place, and a file the user may not read (injected: the tests run as root, who may).
    @Test func aFileThatCannotBeReadIsAConfigErrorNotNone() throws {
        let home = try Home(nil)
        try FileManager.default.createDirectory(atPath: home.config, withIntermediateDirectories: true)
        #expect(ConfigFile.contents(atPath: home.config) == .directory)
        #expect(throws: ConfigError.unreadableFile(path: home.config, reason: .directory)) { try home.read() }
        let directory = ConfigError.unreadableFile(path: home.config, reason: .directory)
        #expect(
            directory.message
                == "Cannot use the config file \(home.config): it is a directory. Remove or rename it; the config file is a JSON file (docs/auth.md)."
        )
        #expect(directory.exitCode == 78)

        var asked: [String] = []
        #expect(throws: ConfigError.unreadableFile(path: home.config, reason: .errno(EACCES))) {
            try ConfigFile.read(environment: home.environment) { path in
                asked.append(path)
                return .unreadable(errno: EACCES)
            }
        }
        #expect(asked == [home.config])
        let denied = ConfigError.unreadableFile(path: home.config, reason: .errno(EACCES))
        #expect(denied.message.hasPrefix("Cannot use the config file \(home.config): permission denied. "))
        #expect(denied.exitCode == 78)
        #expect(
            ConfigError.unreadableFile(path: "/c", reason: .errno(EIO)).message
                == "Cannot use the config file /c: input/output error. Fix it or move it away.")
        // Missing (the file, or the directory it would be in) is no config, as before.
        #expect(ConfigFile.contents(atPath: home.path + "/none/config.json") == .absent)
        _ = FileManager.default.createFile(atPath: home.path + "/plain", contents: Data())
        #expect(
            ConfigFile.contents(atPath: home.path + "/plain/config.json") == .absent,
            "a path through a file (ENOTDIR) holds no config")
    }

    /// The real permission check where the tests do not run as root (root reads a 0000 file).
    @Test func aFileWithoutReadPermissionIsDeniedForAnOrdinaryUser() throws {
        let home = try Home("{}", mode: 0o000)
        if getuid() == 0 {
            try Test.cancel(
                "skipped: running as root, who may read a mode-0000 file (the mapping is checked with an injected failure)"
            )
        }
        #expect(ConfigFile.contents(atPath: home.config) == .unreadable(errno: EACCES))
        #expect(throws: ConfigError.unreadableFile(path: home.config, reason: .errno(EACCES))) { try home.read() }
    }

    @Test func theDirectoryFollowsXDGAndIgnoresARelativeOne() {
        #expect(ConfigFile.directory(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/metrika")
        #expect(ConfigFile.directory(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"]) == "/h/.config/metrika")
        #expect(ConfigFile.directory(environment: ["HOME": "/h"]) == "/h/.config/metrika")
    }

    @Test func everyMemberIsRead() throws {
        let home = try Home(
            #"""
            {"client_id": "app", "counter": [1001, 1002, 1001], "clickhouse_url": ["http://a:8123", "http://b:8123"], "clickhouse_cluster": "c",
             "profiles": {"work": {"token_file": "work.json", "api_url": "https://api.example", "counter": 2001}},
             "alerts": {"metrics": ["visits"], "goals": false, "min_change": 30, "weeks": 5, "skip": 1002}}
            """#)
        let config = try #require(try home.read())
        #expect(config.clientID == "app" && config.clientSecret == nil)
        #expect(config.counters == [1001, 1002])
        #expect(config.clickhouseURL == "http://a:8123,http://b:8123" && config.clickhouseCluster == "c")
        #expect(
            config.profiles["work"]
                == ConfigFile.Profile(
                    name: "work", tokenFile: home.path + "/metrika/work.json", apiURL: "https://api.example",
                    counters: [2001]))
        #expect(
            config.alerts?.metrics == ["visits"] && config.alerts?.goals == false && config.alerts?.minimumChange == 30)
        #expect(config.alerts?.weeks == 5 && config.alerts?.skip == [1002])
    }

    /// Each fault, the case it is, and the reason its message gives.
    static let faults: [(String, @Sendable (String) -> ConfigError, String)] = [
        (
            "", { .notAnObject(path: $0, problem: "it is empty; write {} or remove it") },
            "it is empty; write {} or remove it"
        ),
        (
            "[1]", { .notAnObject(path: $0, problem: #"it holds a list, not a JSON object like {"counter": 1001}"#) },
            "it holds a list"
        ),
        (
            #"{"counter": 1,"#,
            {
                .notAnObject(
                    path: $0,
                    problem:
                        "it is not valid JSON at line 1, column 15: the file ends inside an object (a '}' is missing)")
            },
            "it is not valid JSON at line 1, column 15"
        ),
        (
            #"{"countr": 1}"#,
            {
                .unknownMember(
                    path: $0, member: "countr", place: .top,
                    known: [
                        "client_id", "client_secret", "counter", "profiles", "alerts", "clickhouse_url",
                        "clickhouse_cluster", "telegram"
                    ])
            },
            #"unknown member "countr" (known: client_id, "#
        ),
        (
            #"{"client_id": 5}"#, { .badMember(path: $0, member: "client_id", place: .top, expected: "a string") },
            #""client_id" must be a string"#
        ),
        (
            #"{"counter": true}"#,
            {
                .badMember(
                    path: $0, member: "counter", place: .top,
                    expected: "a counter id or a list of them, like 1001 or [1001, 1002]")
            },
            #""counter" must be a counter id or a list of them"#
        ),
        (
            #"{"clickhouse_url": []}"#,
            {
                .badMember(
                    path: $0, member: "clickhouse_url", place: .top, expected: "a URL or a list of URLs, one per shard")
            },
            #""clickhouse_url" must be a URL or a list of URLs"#
        ),
        (
            #"{"profiles": [1]}"#,
            { .badMember(path: $0, member: "profiles", place: .top, expected: "an object of named profiles") },
            #""profiles" must be an object"#
        ),
        (
            #"{"profiles": {"a b": {}}}"#, { .badProfileName(path: $0) },
            "a profile name must be visible ASCII without spaces"
        ),
        (#"{"profiles": {"a": 5}}"#, { .profileNotAnObject(path: $0, name: "a") }, #"profile "a" must be an object"#),
        (
            #"{"profiles": {"a": {"tokenfile": "x"}}}"#,
            {
                .unknownMember(
                    path: $0, member: "tokenfile", place: .profile("a"),
                    known: [
                        "token_file", "api_url", "counter", "client_id", "client_secret", "telegram", "ulogin", "login"
                    ])
            },
            #"unknown member "tokenfile" of profile "a" (known: token_file, "#
        ),
        (
            #"{"profiles": {"a": {"counter": "1"}}}"#,
            {
                .badMember(
                    path: $0, member: "counter", place: .profile("a"),
                    expected: "a counter id or a list of them, like 1001 or [1001, 1002]")
            },
            #""counter" of profile "a" must be a counter id"#
        ),
        (
            #"{"alerts": 1}"#,
            { .badMember(path: $0, member: "alerts", place: .top, expected: #"an object such as {"min_change": 40}"#) },
            #""alerts" must be an object"#
        ),
        (
            #"{"alerts": {"treshold": 3}}"#,
            {
                .unknownMember(
                    path: $0, member: "treshold", place: .alerts,
                    known: ["metrics", "goals", "shop", "min_change", "min_score", "weeks", "skip"])
            },
            #"unknown member "treshold" of "alerts""#
        ),
        (
            #"{"alerts": {"metrics": []}}"#,
            {
                .badMember(
                    path: $0, member: "metrics", place: .alerts,
                    expected: #"a non-empty list of metric names such as ["visits"]"#)
            },
            #""metrics" of "alerts" must be a non-empty list"#
        ),
        (
            #"{"alerts": {"shop": "yes"}}"#,
            { .badMember(path: $0, member: "shop", place: .alerts, expected: "true or false") },
            #""shop" of "alerts" must be true or false"#
        ),
        (
            #"{"alerts": {"goals": "no"}}"#,
            { .badMember(path: $0, member: "goals", place: .alerts, expected: "true or false") },
            #""goals" of "alerts" must be true or false"#
        ),
        (
            #"{"alerts": {"min_change": 300}}"#,
            { .badMember(path: $0, member: "min_change", place: .alerts, expected: "a number from 5 to 95") },
            #""min_change" of "alerts" must be a number from 5 to 95"#
        ),
        (
            #"{"alerts": {"min_score": 1}}"#,
            { .badMember(path: $0, member: "min_score", place: .alerts, expected: "a number from 2 to 20") },
            #""min_score" of "alerts" must be a number from 2 to 20"#
        ),
        (
            #"{"alerts": {"weeks": 4.5}}"#,
            { .badMember(path: $0, member: "weeks", place: .alerts, expected: "a whole number from 4 to 12") },
            #""weeks" of "alerts" must be a whole number from 4 to 12"#
        ),
        (
            #"{"alerts": {"skip": [0]}}"#,
            {
                .badMember(
                    path: $0, member: "skip", place: .alerts, expected: "a counter id or a list of them, like [1002]")
            },
            #""skip" of "alerts" must be a counter id"#
        ),
        // null is no value of any member (it never was), and a list of texts holds only texts.
        (
            #"{"client_id": null}"#, { .badMember(path: $0, member: "client_id", place: .top, expected: "a string") },
            #""client_id" must be a string"#
        ),
        (
            #"{"clickhouse_url": ["http://a:8123", 1]}"#,
            {
                .badMember(
                    path: $0, member: "clickhouse_url", place: .top, expected: "a URL or a list of URLs, one per shard")
            },
            #""clickhouse_url" must be a URL or a list of URLs"#
        ),
        (
            #"{"counter": [1001, 1.5]}"#,
            {
                .badMember(
                    path: $0, member: "counter", place: .top,
                    expected: "a counter id or a list of them, like 1001 or [1001, 1002]")
            },
            #""counter" must be a counter id"#
        ),
        (
            #"{"profiles": {"a": {"telegram": 5}}}"#,
            {
                .badMember(
                    path: $0, member: "telegram", place: .profile("a"),
                    expected: #"an object such as {"token": "123456789:AA…", "chat": 123456789}"#)
            },
            #""telegram" of profile "a" must be an object"#
        ),
        (
            #"{"telegram": {"chat": [true]}}"#,
            {
                .badMember(
                    path: $0, member: "chat", place: .top,
                    expected: #"a chat id or a list of them, like 123456789 or [123456789, "@channel"]"#)
            },
            #""chat" must be a chat id"#
        ),
        (
            #"{"alerts": {"goals": 2}}"#,
            { .badMember(path: $0, member: "goals", place: .alerts, expected: "true or false") },
            #""goals" of "alerts" must be true or false"#
        ),
        // Of several profiles at fault, the first by name is named (the same one on every run).
        (
            #"{"profiles": {"b": {"x": 1}, "a": {"y": 1}}}"#,
            {
                .unknownMember(
                    path: $0, member: "y", place: .profile("a"),
                    known: [
                        "token_file", "api_url", "counter", "client_id", "client_secret", "telegram", "ulogin", "login"
                    ])
            },
            #"unknown member "y" of profile "a""#
        )
    ]

    /// The members decode as the file always took them: a counter once however often it is listed,
    /// `1`/`0` as flags, one id for a list, texts trimmed, chats as ids or names.
    @Test func membersDecodeAsTheFileAlwaysTookThem() throws {
        let home = try Home(
            #"""
            {"counter": [1001, 1001, 1002], "client_id": "  app ", "clickhouse_url": " http://a:8123 ",
             "alerts": {"goals": 1, "shop": 0, "skip": 1002, "min_change": 30.5},
             "telegram": {"chat": [" @news ", -1001234567890]},
             "profiles": {"b": {"token_file": "/abs/b.json"}, "a": {"counter": 7, "telegram": {"chat": 42}}}}
            """#)
        let config = try #require(try home.read())
        #expect(config.counters == [1001, 1002] && config.clientID == "app" && config.clickhouseURL == "http://a:8123")
        #expect(config.alerts?.goals == true && config.alerts?.shop == false && config.alerts?.skip == [1002])
        #expect(config.alerts?.minimumChange == 30.5)
        #expect(config.telegram?.chats == "@news,-1001234567890")
        #expect(
            config.profiles["a"]?.name == "a" && config.profiles["a"]?.counters == [7]
                && config.profiles["a"]?.telegram?.chats == "42")
        #expect(config.profiles["b"]?.tokenFile == "/abs/b.json")
    }

    @Test(arguments: 0..<faults.count)
    func eachFaultIsItsOwnCaseWithOneLineAndExit78(index: Int) throws {
        let (text, expected, reason) = Self.faults[index]
        let home = try Home(text)
        let error = #expect(throws: ConfigError.self) { try home.read() }
        #expect(error == expected(home.config), "\(text)")
        #expect(error?.exitCode == ExitCode.config)
        let message = try #require(error?.message)
        #expect(message.hasPrefix("Cannot use the config file \(home.config): \(reason)"), "\(message)")
        // The format a fix needs: the alerts page for a member inside "alerts", else the sign-in page.
        let format = text.contains(#"{"alerts": {"#) ? "docs/alerts.md" : "docs/auth.md"
        #expect(message.hasSuffix(". Fix it (the format is in \(format)) or move it away."), "\(message)")
        #expect(!message.contains("\n"))
    }

    /// A client secret in a file others may read is refused; the message is the command that fixes it.
    @Test(arguments: [
        #"{"client_id": "cfg-id", "client_secret": "cfg-secret"}"#, #"{"profiles": {"work": {"client_secret": "s"}}}"#
    ])
    func aSecretOthersCanReadIsRefused(json: String) throws {
        let home = try Home(json)
        #expect(try home.read() != nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: home.config)
        let error = #expect(throws: ConfigError.readableSecret(path: home.config, mode: 0o644)) { try home.read() }
        #expect(
            error?.message
                == "Cannot use the config file \(home.config): it holds client_secret but others may read it (mode 0644); run `chmod 600 \(home.config)`."
        )
        #expect(!(error?.message.contains("cfg-secret") ?? true))
    }

    /// A Telegram bot token is a secret too: the file holding one must be private; the member is read
    /// at the top and in a profile, its chats kept as `--telegram` takes them.
    @Test(arguments: [
        #"{"telegram": {"token": "123:tg-secret", "chat": [123, "@news_room"]}}"#,
        #"{"profiles": {"work": {"telegram": {"token": "123:tg-secret", "chat": -1001}}}}"#
    ])
    func aTelegramTokenOthersCanReadIsRefused(json: String) throws {
        let home = try Home(json)
        let config = try #require(try home.read())
        let telegram = config.telegram ?? config.profiles["work"]?.telegram
        #expect(telegram?.token == "123:tg-secret")
        #expect(telegram?.chats == (config.telegram != nil ? "123,@news_room" : "-1001"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: home.config)
        let error = #expect(
            throws: ConfigError.readableSecret(path: home.config, mode: 0o640, secret: "a Telegram bot token")
        ) { try home.read() }
        #expect(error?.message.contains("it holds a Telegram bot token but others may read it (mode 0640)") == true)
        #expect(!(error?.message.contains("tg-secret") ?? true))
    }

    /// `"keyring"` names the keyring entry holding the bot token: no secret in the file, so it may
    /// be readable; a path (a Metrika token file's entry), a name with spaces or a number is refused.
    @Test func aTelegramKeyringEntryIsNamedNotHeld() throws {
        let home = try Home(#"{"telegram": {"keyring": "telegram", "chat": 42}}"#)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: home.config)
        let config = try #require(try home.read())
        #expect(config.telegram == TelegramConfig(token: nil, chats: "42", keyring: "telegram"))
        for bad in [#""/home/me/.config/metrika/token.json""#, #""my bot""#, "7"] {
            let refused = try Home(#"{"telegram": {"keyring": \#(bad)}}"#)
            #expect(throws: ConfigError.self, "\(bad)") { try refused.read() }
        }
    }

    @Test(arguments: [
        #"{"telegram": "123:abc"}"#, #"{"telegram": {"tokn": "x"}}"#, #"{"telegram": {"chat": true}}"#,
        #"{"telegram": {"chat": []}}"#
    ])
    func aWrongTelegramMemberIsRefused(json: String) throws {
        let home = try Home(json)
        #expect(throws: ConfigError.self) { try home.read() }
    }

    @Test func anUnknownProfileNamesTheOnesThereAre() throws {
        let home = try Home(#"{"profiles": {"b": {}, "a": {}}}"#)
        let config = try home.read()
        #expect(
            try ConfigFile.profile("b", selectedBy: "--profile", in: config, environment: home.environment).name == "b")
        let unknown = #expect(
            throws: ConfigError.unknownProfile(
                name: "acme", selector: "METRIKA_PROFILE", path: home.config, known: ["a", "b"])
        ) {
            try ConfigFile.profile("acme", selectedBy: "METRIKA_PROFILE", in: config, environment: home.environment)
        }
        #expect(unknown?.exitCode == ExitCode.config)
        let none = #expect(
            throws: ConfigError.unknownProfile(name: "acme", selector: "--profile", path: home.config, known: nil)
        ) {
            try ConfigFile.profile("acme", selectedBy: "--profile", in: nil, environment: home.environment)
        }
        #expect(none?.message.hasSuffix("(see docs/auth.md), or name another profile with --profile.") == true)
    }

    @Test func plainHTTPNamesTheSettingAndTheOverride() {
        let error = ConfigError.plainHTTP(
            setting: "METRIKA_API_URL", url: "http://api.example.org", host: "api.example.org",
            secret: "the OAuth token")
        #expect(error.exitCode == ExitCode.config)
        #expect(
            error.message
                == "METRIKA_API_URL 'http://api.example.org' is plain http to api.example.org, which is not this machine: "
                + "the OAuth token would cross the network unencrypted. Use https://, or set METRIKA_ALLOW_INSECURE_HTTP=1 for a test set-up."
        )
    }
}
