import Foundation
import MetrikaServices
import MetrikaStore
import MetrikaSystem
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI
@testable import MetrikaModel

/// One `Session` per run, and the config file read once through it.
@Suite("Session")
struct SessionTests {
    /// A config home with `config.json` holding `text`.
    final class ConfigHome {
        let path: String
        init(_ text: String) throws {
            path =
                FileManager.default.temporaryDirectory.appendingPathComponent("metrika-session-\(UUID().uuidString)")
                .path
            try FileManager.default.createDirectory(atPath: path + "/metrika", withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/metrika/config.json"))
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func session(_ arguments: [String], home: ConfigHome, environment: [String: String] = [:]) throws -> Session
    {
        let options = try ArgumentParser.parse(arguments, options: TokenOptions.specs)
        let context = CLIContext(
            environment: ["HOME": "/nonexistent", "XDG_CONFIG_HOME": home.path].merging(environment) { $1 },
            stdout: TextSink(), stderr: TextSink(), transport: CLIConventionsTests.NoNetwork())
        return Session(context: context, options: options)
    }

    @Test func theConfigFileIsReadOnceWhateverIsAskedOfIt() throws {
        let home = try ConfigHome(
            #"{"counter": 1001, "profiles": {"agency": {"api_url": "http://127.0.0.1:9", "counter": [2001, 2002]}}}"#)
        let session = try Self.session(["--profile", "agency"], home: home)
        #expect(session.services.configReads == 0)
        #expect(try session.services.profile()?.name == "agency")
        #expect(try session.services.defaultCounters()?.ids == ["2001", "2002"])
        #expect(try session.services.apiBaseURL().absoluteString == "http://127.0.0.1:9")
        #expect(try session.services.profileDescription()?.hasPrefix("agency (--profile, ") == true)
        _ = try session.services.tokenFileToWrite()
        #expect(try session.services.configFile()?.counters == [1001])
        #expect(session.services.configReads == 1)
    }

    @Test func anUnusableConfigFileFailsEveryTimeButIsReadOnce() throws {
        let home = try ConfigHome(#"{"countr": 1}"#)
        let session = try Self.session([], home: home)
        for _ in 0..<3 {
            #expect(throws: ConfigError.self) { _ = try session.services.defaultCounters() }
        }
        #expect(session.services.configReads == 1)
    }

    @Test func anUnknownProfileNamesTheKnownOnes() throws {
        let home = try ConfigHome(#"{"profiles": {"agency": {}, "home": {}}}"#)
        let session = try Self.session([], home: home, environment: ["METRIKA_PROFILE": "nope"])
        do {
            _ = try session.services.profile()
            Issue.record("an unknown profile must fail")
        } catch let error as ConfigError {
            #expect(
                error
                    == .unknownProfile(
                        name: "nope", selector: "METRIKA_PROFILE", path: home.path + "/metrika/config.json",
                        known: ["agency", "home"]))
            #expect(error.exitCode == ExitCode.config)
            #expect(
                error.message.contains("nope") && error.message.contains("agency")
                    && error.message.contains("METRIKA_PROFILE"), "\(error.message)")
        }
    }

    /// The session the dispatcher builds refuses an unknown profile before the command runs (no request).
    @Test func theRunsSessionRefusesAnUnknownProfileFirst() async throws {
        let home = try ConfigHome(#"{"profiles": {"agency": {}}}"#)
        let result = await CLIConventionsTests.run(
            ["counters", "--profile", "nope"], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(result.code == ExitCode.config)
        #expect(result.err.contains("nope"), "\(result.err)")
    }

    /// The default counter the session found reaches the command (here, as a usage error about it).
    @Test func theDefaultCounterFromTheConfigReachesTheCommand() async throws {
        let home = try ConfigHome(#"{"counter": 1001}"#)
        let result = await CLIConventionsTests.run(
            ["goals", "--csv", "--json"], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("Error: Choose one output format"), "\(result.err)")
        let missing = await CLIConventionsTests.run(["goals", "--csv", "--json"])
        #expect(missing.err.hasPrefix("Error: Missing --counter ID"), "\(missing.err)")
    }

    /// Every environment setting a session reads is refused as a `ConfigError` with its case (exit 78),
    /// never as an untyped failure; the message names the variable and the value.
    @Test(arguments: [
        (
            ["METRIKA_TIMEOUT": "0"],
            ConfigError.badVariable(
                variable: "METRIKA_TIMEOUT", value: "0", expected: "a number of seconds above 0 and at most 600")
        ),
        (
            ["METRIKA_MAX_RESPONSE": "12Q"],
            ConfigError.badVariable(
                variable: "METRIKA_MAX_RESPONSE", value: "12Q",
                expected: "a size between 1K and 4G (bytes, or with K, M, G)")
        ),
        (["METRIKA_COUNTER": "12,x"], ConfigError.badCounterVariable(value: "12,x")),
        (
            ["METRIKA_API_URL": "ftp://example"],
            ConfigError.badBaseURL(variable: "METRIKA_API_URL", value: "ftp://example", problem: .notHTTP)
        ),
        (
            ["METRIKA_API_URL": "https://u:p@example"],
            ConfigError.badBaseURL(variable: "METRIKA_API_URL", value: "https://example", problem: .notPlain)
        ),
        (
            ["METRIKA_API_URL": "https://example:70000"],
            ConfigError.badBaseURL(variable: "METRIKA_API_URL", value: "https://example:70000", problem: .port(70000))
        )
    ])
    func aBadEnvironmentSettingIsAConfigError(environment: [String: String], expected: ConfigError) throws {
        let home = try ConfigHome("{}")
        let session = try Self.session([], home: home, environment: environment)
        do {
            _ = try session.services.defaultCounters()
            _ = try session.services.requestTimeout()
            _ = try session.services.maxResponseBytes()
            _ = try session.services.apiBaseURL()
            Issue.record("\(environment) must be refused")
        } catch let error as ConfigError {
            #expect(error == expected)
            #expect(error.exitCode == ExitCode.config)
            let variable = try #require(environment.keys.first)
            #expect(error.message.hasPrefix(variable), "\(error.message)")
            // A URL with credentials is not repeated in the message, nor kept in the error.
            #expect(!error.message.contains("u:p@"), "\(error.message)")
            #expect(!String(describing: error).contains("u:p@"), "\(error)")
        }
    }
}

/// Plain http carries the token, the app's secret or a ClickHouse password only to this machine.
@Suite("Plain http only to loopback")
struct PlainHTTPPolicyTests {
    @Test(arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("LOCALHOST.", true), ("api.localhost", true),
        ("[::1]", true), ("::1", true),
        ("128.0.0.1", false), ("127.0.0.1.example.org", false), ("127.0.0", false), ("127.0.0.256", false),
        ("example.com", false),
        ("10.0.0.1", false), ("::2", false), ("localhost.example.org", false), ("0.0.0.0", false)
    ])
    func loopbackHosts(host: String, loopback: Bool) {
        #expect(PlainHTTPPolicy.isLoopback(host) == loopback)
    }

    static func session(_ environment: [String: String]) -> Session {
        let context = CLIContext(
            environment: ["HOME": "/nonexistent", "XDG_CONFIG_HOME": "/nonexistent"].merging(environment) { $1 },
            stdout: TextSink(), stderr: TextSink(), transport: CLIConventionsTests.NoNetwork())
        return Session(context: context, options: ParsedOptions())
    }

    @Test func theAPIAndOAuthURLsRefusePlainHTTPToAnotherMachine() throws {
        for variable in ["METRIKA_API_URL", "METRIKA_OAUTH_URL"] {
            func url(_ session: Session) throws -> URL {
                variable == "METRIKA_API_URL" ? try session.services.apiBaseURL() : try session.services.oauthBaseURL()
            }
            let session = Self.session([variable: "http://api.example.org"])
            do {
                _ = try url(session)
                Issue.record("\(variable): plain http to another host must be refused")
            } catch let failure as ConfigError {
                let secret = variable == "METRIKA_API_URL" ? "the OAuth token" : "the app's secret and the tokens"
                #expect(
                    failure
                        == .plainHTTP(
                            setting: variable, url: "http://api.example.org", host: "api.example.org", secret: secret))
                #expect(failure.exitCode == ExitCode.config)
                #expect(
                    failure.message.hasPrefix(
                        "\(variable) 'http://api.example.org' is plain http to api.example.org, which is not this machine: "
                    ))
                #expect(
                    failure.message.hasSuffix("Use https://, or set METRIKA_ALLOW_INSECURE_HTTP=1 for a test set-up."))
            }
            let allowed = Self.session([variable: "http://api.example.org", "METRIKA_ALLOW_INSECURE_HTTP": "1"])
            #expect(throws: Never.self) { _ = try url(allowed) }
            for fine in ["https://api.example.org", "http://127.0.0.1:8080", "http://[::1]:8080", "http://localhost"] {
                #expect(throws: Never.self) { _ = try url(Self.session([variable: fine])) }
            }
        }
        // Only 1 opens the door.
        #expect(throws: ConfigError.self) {
            _ = try Self.session(["METRIKA_API_URL": "http://x.example", "METRIKA_ALLOW_INSECURE_HTTP": "yes"]).services
                .apiBaseURL()
        }
    }

    /// One connection per file per process: every history a run asks for (an MCP server's tool calls
    /// among them) is the one store the session opened; a writing request after a reading one opens
    /// it for writing once, and that store then serves the reads too.
    @Test func theHistoryIsOpenedOncePerRun() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-session-db-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let session = Self.session(["METRIKA_DB": folder + "/h.sqlite"])
        let first = try await session.services.openHistory()
        #expect(try await session.services.openHistory() === first)
        #expect(try await session.services.openHistory(readOnly: true) === first)
        let loaders = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    ObjectIdentifier(
                        try await session.services.historyLoader(offline: true, unsettledDays: 2, readOnly: true).store)
                }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(loaders == [ObjectIdentifier(first)])

        let reader = Self.session(["METRIKA_DB": folder + "/h.sqlite"])
        let readOnly = try await reader.services.openHistory(readOnly: true)
        #expect(readOnly.isReadOnly)
        let writable = try await reader.services.openHistory()
        #expect(!writable.isReadOnly && writable !== readOnly)
        #expect(try await reader.services.openHistory(readOnly: true) === writable)
    }
}
