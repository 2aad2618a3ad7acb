import Foundation
import MetrikaTestSupport
import Testing

/// The real binary against a simulator whose text attacks the terminal (the `hostile_*` faults of
/// docs/simulator.md): ESC sequences, OSC 52, BEL, 8-bit CSI, bidi overrides, 100 KB lines and the
/// caller's token quoted back. Whatever the server sends, stdout and stderr hold no byte a terminal
/// acts on, no bidi control, no endless line and never the token.
@Suite("Hostile server text", .serialized, .blockingLanes)
struct HostileTextEndToEndTests {
    /// A token long enough to look real, so masking is tested on something token-shaped.
    static let token = "y0_AgAAAAAHostileTestToken0123456789abcdef"

    /// What must never reach a terminal: C0 controls except the line feed, DEL, C1, bidi controls.
    static func isTerminalActive(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: return false
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    static func expectInert(
        _ result: ProcessResult, token: String = token, longestLine: Int = 1_100,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (name, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
            let active = text.unicodeScalars.filter(isTerminalActive).map { String($0.value, radix: 16) }
            #expect(
                active.isEmpty, "\(name) holds terminal-active characters \(Set(active).sorted())",
                sourceLocation: sourceLocation)
            #expect(!text.contains(token), "\(name) holds the token", sourceLocation: sourceLocation)
            let longest = text.split(separator: "\n").map(\.count).max() ?? 0
            #expect(
                longest <= longestLine, "\(name) has a line of \(longest) characters", sourceLocation: sourceLocation)
        }
        #expect(!result.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
    }

    static func run(
        _ arguments: [String], api: FakeAPI, home: TemporaryDirectory, token: String? = demoToken,
        extra: [String: String] = [:]
    ) throws -> ProcessResult {
        try metrika(
            arguments,
            environment: metrikaEnvironment(api: api, home: home.path, token: token, retryScale: 0.05, extra: extra),
            timeout: 60)
    }

    @Test func counterNamesAndSitesWithEscapesAreShownInert() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        try api.inject(["kind": "hostile_names", "path_prefix": "/management/v1/counters"])
        let result = try Self.run(["counters"], api: api, home: home)
        #expect(result.status == 0, "\(result.stderr)")
        Self.expectInert(result, token: demoToken, longestLine: 4_000)
        // Visible, not acted on: the reader sees that the server sent an escape.
        #expect(result.stdout.contains("\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07"))
        #expect(result.stdout.contains("\\x9b31m"))
    }

    @Test func dimensionNamesWithEscapesAreShownInert() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        try api.inject(["kind": "hostile_names", "path_prefix": "/stat/", "count": 9])
        let result = try Self.run(
            [
                "report", "--counter", "1001", "--dimensions", "trafficSource", "--metrics", "visits", "--to",
                "yesterday"
            ], api: api, home: home)
        #expect(result.status == 0, "\(result.stderr)")
        Self.expectInert(result, token: demoToken, longestLine: 4_000)
        #expect(result.stdout.contains("\\x1b[2J"))
    }

    /// CSV on a terminal is for eyes: names pass the sanitizer as table cells do. Into a pipe or a file
    /// the bytes stay exactly as the server sent them (CSV is data).
    @Test func csvOnATerminalShowsEscapesInertAndAPipeKeepsTheBytes() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        try api.inject(["kind": "hostile_names", "path_prefix": "/stat/", "count": 9])
        let arguments = [
            "report", "--counter", "1001", "--dimensions", "trafficSource", "--metrics", "visits", "--to", "yesterday",
            "--csv"
        ]
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["NO_COLOR": "1"])
        let command = ([Binaries.metrika] + arguments).joined(separator: " ")
        let onTerminal = try runProcess(
            "/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment, timeout: 60)
        #expect(onTerminal.status == 0, "\(onTerminal.stderr)")
        let shown = onTerminal.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(shown.contains("\\x1b[2J"), "\(shown.debugDescription)")
        let active = shown.unicodeScalars.filter(Self.isTerminalActive).map { String($0.value, radix: 16) }
        #expect(active.isEmpty, "the terminal got \(Set(active).sorted())")

        let piped = try Self.run(arguments, api: api, home: home)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains("\u{1B}[2J"), "a pipe gets the server's bytes")
    }

    @Test func aDateNameWithEscapesInADailyReportErrorIsQuotedInert() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        try api.inject(["kind": "hostile_names", "path_prefix": "/stat/", "count": 9])
        let result = try Self.run(
            ["report", "--counter", "1001", "--from", "2026-01-01", "--to", "2026-01-10", "--refresh"], api: api,
            home: home)
        #expect(result.status == 65, "\(result.stderr)")
        Self.expectInert(result, token: demoToken)
        #expect(
            result.stderr.hasPrefix(
                "Error: The API answered something unreadable: a row of the daily report has the date '\\x1b[2J"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [401, 403])
    func anAPIErrorThatQuotesTheTokenIsMaskedAndInert(status: Int) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        try api.inject(["kind": "hostile_api_error", "status": status, "count": 9])
        let result = try Self.run(["counters", "--verbose"], api: api, home: home, token: Self.token)
        #expect(result.status == 77, "\(result.stderr)")
        Self.expectInert(result)
        let error = try #require(result.stderr.split(separator: "\n").last)
        #expect(error.hasPrefix("Error: "))
        #expect(error.contains("Invalid oauth_token [hidden] \\x1b[2J"))
        #expect(error.contains("…"))
    }

    @Test func aDeviceCodeWithEscapesIsShownInert() throws {
        let api = try FakeAPI(arguments: ["--device-interval", "1", "--device-pending", "1"])
        let home = try TemporaryDirectory()
        try api.inject(["kind": "hostile_device_code"])
        let app = ["METRIKA_CLIENT_ID": "demo-client", "METRIKA_CLIENT_SECRET": "demo-secret"]
        let result = try Self.run(["login"], api: api, home: home, token: nil, extra: app)
        #expect(result.status == 0, "\(result.stderr)")
        Self.expectInert(result, token: "demo-secret")
        #expect(result.stderr.contains("To sign in, open https://ya.ru/device\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07"))
        #expect(result.stderr.contains(" and enter the code: \\x1b[2J"))
    }

    @Test func anOAuthErrorDescriptionWithEscapesIsShownInert() throws {
        let api = try FakeAPI(arguments: ["--device-interval", "1", "--device-pending", "1"])
        let home = try TemporaryDirectory()
        try api.inject(["kind": "hostile_oauth_error", "count": 9])
        let app = ["METRIKA_CLIENT_ID": "demo-client", "METRIKA_CLIENT_SECRET": "demo-secret"]
        let result = try Self.run(["login"], api: api, home: home, token: nil, extra: app)
        #expect(result.status == 77, "\(result.stderr)")
        Self.expectInert(result, token: "demo-secret")
        let error = try #require(result.stderr.split(separator: "\n").last)
        #expect(error.hasPrefix("Error: The OAuth server refused the request (unauthorized_client\\x1b[2J"))
        #expect(error.contains("Client is blocked\\x1b[2J"))
    }

    @Test(arguments: ["demo-token\r\nX-Injected: 1", "demo-token\nX", "demo\u{1B}[2J-token"])
    func aTokenWithALineBreakIsRefusedBeforeAnyRequest(token: String) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try Self.run(["counters"], api: api, home: home, token: token)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: The token in METRIKA_TOKEN holds "))
        #expect(!result.stderr.contains("demo-token") && !result.stderr.contains("Injected"))
        #expect(try api.requestCount() == 0)
    }

    @Test func aPastedTokenWithAControlCharacterIsRefusedByName() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["login", "--token-stdin"], environment: metrikaEnvironment(api: api, home: home.path, token: nil),
            stdin: "y0_pasted\u{1B}[2Jtoken\n")
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: No token on standard input: it holds a control character inside it."))
        #expect(!result.stderr.contains("y0_pasted") && !result.stderr.contains("\u{1B}"))
        #expect(try api.requestCount() == 0)
    }

    @Test func sendmailGetsNoSecretsInItsEnvironment() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let dump = home.path + "/sendmail-environment"
        let script = home.path + "/fake-sendmail"
        try ExecutableFile.write("#!/bin/sh\nenv > '\(dump)'\ncat > /dev/null\n", to: script)
        let secrets = [
            "METRIKA_CLIENT_SECRET": "client-secret-value", "METRIKA_CLICKHOUSE_PASSWORD": "clickhouse-password-value"
        ]
        let result = try Self.run(
            ["mail", "--counter", "1001", "--to", "a@example.com", "--sender", "m@example.com", "--sendmail", script],
            api: api, home: home,
            extra: secrets.merging(["MSMTP_CHECK": "kept", "METRIKA_MAIL_CHECK": "dropped"]) { a, _ in a })
        #expect(result.status == 0, "\(result.stderr)")
        let environment = try String(contentsOfFile: dump, encoding: .utf8)
        // The one rule (ChildProcess): the rest of the environment reaches sendmail, no METRIKA_ variable does.
        #expect(environment.contains("MSMTP_CHECK=kept"))
        #expect(!environment.contains("METRIKA_"), "\(environment)")
        #expect(environment.contains("HOME=\(home.path)"))
        for name in ["METRIKA_TOKEN", "METRIKA_CLIENT_SECRET", "METRIKA_CLICKHOUSE_PASSWORD"] {
            #expect(!environment.contains(name + "="), "\(name) reached sendmail")
        }
        for value in [demoToken] + Array(secrets.values) {
            #expect(!environment.contains(value))
        }
    }
}
