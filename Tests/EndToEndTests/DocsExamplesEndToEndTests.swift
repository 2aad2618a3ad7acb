import Foundation
import MetrikaTestSupport
import Testing

/// Issue 40 item 15: docs/alerts.md showed `expected ~1 600` where the command prints `~580`. The
/// alert lines the docs show (in code blocks and in backticks) are checked against what the commands
/// of its "Trying it without an account" section print against the simulator's fixed scenarios: every
/// line the docs show is a line the command prints, character for character.
@Suite("Docs examples end to end", .serialized, .blockingLanes)
struct DocsExamplesEndToEndTests {
    static let alertsDoc = Binaries.repositoryRoot.appendingPathComponent("docs/alerts.md")

    /// The alert lines in docs/alerts.md: a counter id of the alerts fixtures (`5xxxxx`) and its text,
    /// on a line of their own in a code block or in backticks.
    static func documentedLines() throws -> [String] {
        let text = try String(contentsOf: alertsDoc, encoding: .utf8)
        var found: [String] = []
        var inBlock = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            if inBlock, line.range(of: #"^5\d{5} \S"#, options: .regularExpression) != nil { found.append(line) }
            if !inBlock {
                for match in line.matches(of: /`(5\d{5} [^`]+)`/) { found.append(String(match.1)) }
            }
        }
        return found
    }

    func environment(_ api: FakeAPI, _ home: TemporaryDirectory, now: String) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_NOW": now, "METRIKA_DB": home.path + "/alerts.sqlite"])
    }

    @Test func everyAlertLineTheDocsShowIsPrintedByItsCommand() throws {
        let documented = try Self.documentedLines()
        #expect(documented.count >= 6, "the scan found too little: \(documented)")
        var printed: [String] = []
        // The daily check, as the section runs it: Monday, Monday again, Tuesday.
        do {
            let api = try FakeAPI(fixtures: "alerts", arguments: ["--now", "2026-12-01T06:00:00Z"])
            defer { api.stop() }
            let home = try TemporaryDirectory()
            for now in ["2026-11-30T06:00:00Z", "2026-11-30T07:00:00Z", "2026-12-01T06:00:00Z"] {
                let result = try metrika(["alert"], environment: environment(api, home, now: now))
                #expect(result.status == 0, "\(result.stderr)")
                printed += result.stdoutLines
            }
        }
        // The hourly check at 17:30 in Moscow.
        do {
            let api = try FakeAPI(fixtures: "alerts", arguments: ["--now", "2026-12-01T14:30:00Z"])
            defer { api.stop() }
            let home = try TemporaryDirectory()
            let result = try metrika(
                ["alert", "--today", "--counter", "520008,520001"],
                environment: environment(api, home, now: "2026-12-01T14:30:00Z"))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutLines.count == 1, "\(result.stdout)")
            printed += result.stdoutLines
        }
        // The drivers (issue 37): the explain scenarios at the thresholds the docs give.
        do {
            let api = try FakeAPI(fixtures: "explain", arguments: ["--now", "2026-12-01T06:00:00Z"])
            defer { api.stop() }
            let home = try TemporaryDirectory()
            try FileManager.default.createDirectory(
                atPath: home.path + "/config/metrika", withIntermediateDirectories: true)
            try Data(#"{"alerts": {"min_change": 20, "min_score": 2}}"#.utf8).write(
                to: URL(fileURLWithPath: home.path + "/config/metrika/config.json"))
            let result = try metrika(
                ["alert", "--counter", "530001,530002,530003"],
                environment: environment(api, home, now: "2026-12-01T06:00:00Z"))
            #expect(result.status == 0, "\(result.stderr)")
            printed += result.stdoutLines
            // The hourly driver: 530004's search traffic gone today, judged at 09:00 in Moscow.
            let hourly = try metrika(
                ["alert", "--today", "--counter", "530004"],
                environment: environment(api, home, now: "2026-12-01T06:00:00Z"))
            #expect(hourly.status == 0, "\(hourly.stderr)")
            printed += hourly.stdoutLines
        }
        for line in documented {
            #expect(
                printed.contains(line),
                "docs/alerts.md shows a line no command of its prints:\n\(line)\nprinted:\n\(printed.joined(separator: "\n"))"
            )
        }
    }
}
