import Foundation
import MetrikaAPI
import Testing

/// The config file's default counter and named profiles, through the built binary against the
/// simulator: precedence (option > environment > profile > config default), a profile's token file
/// and API URL, and one clear exit-78 line for a bad config file or an unknown profile.
@Suite("Config file: default counter and profiles", .blockingLanes)
struct ProfileEndToEndTests {
    final class World: @unchecked Sendable {
        let api: FakeAPI
        let home: TemporaryDirectory
        init() throws {
            api = try FakeAPI()
            home = try TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: configDirectory, withIntermediateDirectories: true)
        }
        var configDirectory: String { home.path + "/config/metrika" }
        var configPath: String { configDirectory + "/config.json" }

        func writeConfig(_ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: configPath))
        }

        func run(
            _ arguments: [String], token: String? = demoToken, api useAPI: Bool = true, extra: [String: String] = [:],
            stdin: String? = nil
        ) throws -> ProcessResult {
            var environment = metrikaEnvironment(api: api, home: home.path, token: token, extra: extra)
            if !useAPI {
                // The profile must supply the URL; an unreachable default keeps the test off the internet.
                environment["METRIKA_API_URL"] = nil
            }
            return try metrika(arguments, environment: environment, stdin: stdin)
        }

        /// The counter ids of the simulator's stat requests.
        func statCounterIDs() throws -> [String] {
            try api.requests().filter { ($0["path"] as? String ?? "").hasPrefix("/stat/v1/data") }
                .compactMap { request -> String? in
                    let query = request["query"] as? String ?? (request["url"] as? String ?? "")
                    return URLComponents(string: "/?" + (query.split(separator: "?").last.map(String.init) ?? query))?
                        .queryItems?.first(where: { $0.name == "ids" })?.value
                }
        }
    }

    /// The value of an aligned `  Name:   value` row of `auth status`.
    static func row(_ name: String, _ text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix("  \(name):") }.map {
            $0.dropFirst(name.count + 3).trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func reportAloneUsesTheConfiguredCounter() throws {
        let world = try World()
        let before = try world.run(["report", "--csv"])
        #expect(before.status == 64)
        #expect(before.stderr.contains("Missing --counter ID"), "\(before.stderr)")
        #expect(before.stderr.contains("\"counter\""), "the message should name the config setting: \(before.stderr)")

        try world.writeConfig(#"{"counter": 1001}"#)
        let result = try world.run(["report", "--csv", "-v"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("using counter 1001 from the config file \(world.configPath)"), "\(result.stderr)")
        #expect(try world.statCounterIDs().allSatisfy { $0 == "1001" })
        #expect(try !world.statCounterIDs().isEmpty)
    }

    /// --counter > METRIKA_COUNTER > the profile's counter > the config file's counter.
    @Test func counterPrecedence() throws {
        let world = try World()
        try world.writeConfig(#"{"counter": 1001, "profiles": {"b": {"counter": [1002]}}}"#)
        func source(_ arguments: [String], _ extra: [String: String] = [:]) throws -> String {
            let result = try world.run(["report", "--csv", "--offline", "-v"] + arguments, extra: extra)
            return result.stderr.split(separator: "\n").first { $0.contains("using counter") }.map(String.init)
                ?? "(none: \(result.stderr))"
        }
        #expect(try source([]).hasSuffix("using counter 1001 from the config file \(world.configPath)"))
        #expect(try source(["--profile", "b"]).hasSuffix("using counter 1002 from profile 'b'"))
        #expect(try source([], ["METRIKA_PROFILE": "b"]).hasSuffix("using counter 1002 from profile 'b'"))
        #expect(
            try source(["--profile", "b"], ["METRIKA_COUNTER": "1003"]).hasSuffix(
                "using counter 1003 from METRIKA_COUNTER"))
        #expect(try source(["--profile", "b", "--counter", "1004"], ["METRIKA_COUNTER": "1003"]).hasPrefix("(none"))
        // sync without --counter still means every counter, not the config file's default one.
        let sync = try world.run(["sync", "--from", "yesterday"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let synced = Set(try world.statCounterIDs())
        #expect(synced.isSuperset(of: ["1001", "1002", "1004"]), "sync fetched only \(synced.sorted())")
    }

    @Test func profileSuppliesTokenFileAndAPIURL() throws {
        let world = try World()
        try world.writeConfig(
            #"{"profiles": {"agency": {"token_file": "agency.json", "api_url": "\#(world.api.baseURL)"}}}"#)
        let tokenPath = world.configDirectory + "/agency.json"
        _ = FileManager.default.createFile(
            atPath: tokenPath, contents: Data("demo-token\n".utf8), attributes: [.posixPermissions: 0o600])

        let counters = try world.run(["counters", "--profile", "agency", "--csv"], token: nil, api: false)
        #expect(counters.status == 0, "\(counters.stderr)")
        #expect(counters.stdout.contains("1001"))

        let status = try world.run(["auth", "status"], token: nil, api: false, extra: ["METRIKA_PROFILE": "agency"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(
            Self.row("Profile", status.stdout) == "agency (METRIKA_PROFILE, \(world.configPath))", "\(status.stdout)")
        #expect(Self.row("Source", status.stdout) == "token file \(tokenPath)", "\(status.stdout)")

        let none = try world.run(["auth", "status"])
        #expect(Self.row("Profile", none.stdout) == "none (--profile / METRIKA_PROFILE)", "\(none.stdout)")
        #expect(Self.row("Source", none.stdout) == "METRIKA_TOKEN", "\(none.stdout)")
    }

    @Test func loginAndLogoutWithAProfileUseItsOwnTokenFile() throws {
        let world = try World()
        try world.writeConfig(#"{"profiles": {"shop": {}}}"#)
        let login = try world.run(["login", "--token-stdin", "--profile", "shop"], token: nil, stdin: "demo-token\n")
        #expect(login.status == 0, "\(login.stderr)")
        let path = world.configDirectory + "/token-shop.json"
        #expect(login.stdout.hasPrefix("Signed in. Token stored in \(path)\n"), "\(login.stdout)")
        #expect(!FileManager.default.fileExists(atPath: world.configDirectory + "/token.json"))
        let status = try world.run(["auth", "status", "--profile", "shop"], token: nil)
        #expect(status.status == 0 && status.stdout.contains("token file \(path)"), "\(status.stdout)\(status.stderr)")
        let signedOut = try world.run(["auth", "status"], token: nil)
        #expect(signedOut.status == 77)
        let logout = try world.run(["logout", "--profile", "shop"], token: nil)
        #expect(logout.status == 0 && !FileManager.default.fileExists(atPath: path), "\(logout.stderr)")
        let after = try world.run(["auth", "status", "--profile", "shop"], token: nil)
        #expect(after.status == 77)
        #expect(
            after.stderr
                == "Error: Not signed in for profile 'shop': there is no token file \(path). Run `metrika login --profile shop` first.\n"
        )
    }

    @Test func unknownProfileIsOneLineWithExit78() throws {
        let world = try World()
        let noFile = try world.run(["counters", "--profile", "acme"])
        #expect(noFile.status == 78)
        #expect(
            noFile.stderr
                == "Error: --profile names the profile 'acme', but there is no config file \(world.configPath). Define it there as {\"profiles\": {\"acme\": {…}}} (see docs/auth.md), or name another profile with --profile.\n"
        )
        try world.writeConfig(#"{"profiles": {"b": {}, "a": {}}}"#)
        // Refused even where the profile would change nothing (--token-file given): a typo must not pass.
        let unknown = try world.run(
            ["report", "--counter", "1001", "--token-file", "/nonexistent"], extra: ["METRIKA_PROFILE": "acme"])
        #expect(unknown.status == 78)
        #expect(
            unknown.stderr
                == "Error: METRIKA_PROFILE names the profile 'acme', which the config file \(world.configPath) does not define (it defines a, b). Add it under \"profiles\", or change or unset METRIKA_PROFILE.\n"
        )
        #expect(try world.api.requestCount() == 0)
    }

    @Test(arguments: [
        ("[1001]", #"it holds a list, not a JSON object like {"counter": 1001}"#),
        (
            #"{"counter": 1001,"#,
            "it is not valid JSON at line 1, column 18: the file ends inside an object (a '}' is missing)"
        ),
        (
            "{\n  \"counter\": 1001\n  \"profiles\": {}\n}",
            "it is not valid JSON at line 3, column 3: expected ',' or '}' after a member, found '\"'"
        ),
        (
            "{\"counter\": 1001,}",
            "it is not valid JSON at line 1, column 18: expected a member name in double quotes, found '}' (a ',' before a '}' is not allowed)"
        ),
        (
            "{'counter': 1001}",
            "it is not valid JSON at line 1, column 2: expected a member name in double quotes, found '''"
        ),
        ("", "it is empty; write {} or remove it"),
        (#"{"counter": "1001"}"#, #""counter" must be a counter id or a list of them, like 1001 or [1001, 1002]"#),
        (#"{"counter": true}"#, #""counter" must be a counter id"#),
        (#"{"counter": 1001.5}"#, #""counter" must be a counter id"#),
        (#"{"counter": -3}"#, #""counter" must be a counter id"#),
        (#"{"counter": []}"#, #""counter" must be a counter id"#),
        (
            #"{"countr": 1001}"#,
            #"unknown member "countr" (known: client_id, client_secret, counter, profiles, alerts, clickhouse_url, clickhouse_cluster, telegram)"#
        ),
        (#"{"profiles": []}"#, #""profiles" must be an object of named profiles"#),
        (#"{"profiles": {"a": 5}}"#, #"profile "a" must be an object"#),
        (#"{"profiles": {"a": {"tokenfile": "x"}}}"#, #"unknown member "tokenfile" of profile "a""#),
        (#"{"profiles": {"a": {"api_url": 5}}}"#, #""api_url" of profile "a" must be a string"#)
    ])
    func malformedConfigIsOneLineWithExit78(config: String, reason: String) throws {
        let world = try World()
        try world.writeConfig(config)
        let result = try world.run(["report", "--csv"])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("Error: Cannot use the config file \(world.configPath): \(reason)"),
            "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(" Fix it (the format is in docs/auth.md) or move it away.\n"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
    }

    /// Every command that reads the config file stops on a malformed one (README: "every command"),
    /// before any request; before the fix counters, goals, sync and auth status ran on with exit 0.
    @Test(arguments: [
        ["counters"], ["goals", "--counter", "1001"], ["sync", "--counter", "1001"], ["auth", "status"],
        ["report", "--counter", "1001"],
        ["chart", "--counter", "1001", "--output", "/dev/null"],
        ["mail", "--counter", "1001", "--to", "a@example.org", "--dry-run"],
        ["logs", "--counter", "1001", "--from", "2daysAgo", "--to", "yesterday", "--output", "-"], ["logout"],
        ["login", "--token-stdin"]
    ])
    func malformedConfigStopsEveryCommandThatReadsIt(arguments: [String]) throws {
        let world = try World()
        try world.writeConfig(#"{"counter": 1001,"#)
        let result = try world.run(arguments, stdin: "pasted-token-0123456789")
        #expect(result.status == 78, "\(arguments): \(result.stderr)")
        #expect(
            result.stderr
                == "Error: Cannot use the config file \(world.configPath): it is not valid JSON at line 1, column 18: the file ends inside an object (a '}' is missing). Fix it (the format is in docs/auth.md) or move it away.\n",
            "\(arguments)")
        #expect(result.stdout.isEmpty)
        #expect(try world.api.requestCount() == 0)
    }

    @Test func badProfileAPIURLIsAConfigurationError() throws {
        let world = try World()
        try world.writeConfig(#"{"profiles": {"x": {"api_url": "ftp://example"}}}"#)
        let result = try world.run(["counters", "--profile", "x"], api: false)
        #expect(result.status == 78)
        #expect(
            result.stderr.contains(
                "The api_url of profile 'x' in \(world.configPath) 'ftp://example' is not an http(s) URL"),
            "\(result.stderr)")
    }
}
