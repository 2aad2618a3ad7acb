import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI
@testable import MetrikaModel
@testable import MetrikaRender

/// The issue's fault drills against the built binary: a few faults of the simulator (`FaultDrill.endToEnd`;
/// the whole matrix runs in-process in MetrikaCLITests' FaultDrillTests), against both
/// `metrika counters` and a history-backed `metrika report` over a settled past range. Every run
/// either succeeds after bounded retries or exits with the documented code and one `Error:` line,
/// leaves the history database empty or complete for the range, never crashes and never prints
/// the token. docs/reliability.md lists the drills and their measured results.
@Suite("Fault drills end to end", .serialized, .blockingLanes)
struct FaultDrillEndToEndTests {
    /// Ten settled days (well before the two still-changing ones), in Moscow time like the fixtures.
    static var range: (from: String, to: String) {
        let today = HistoryTools.moscowToday
        return (today.adding(days: -40).iso, today.adding(days: -31).iso)
    }

    static func reportArguments(_ extra: [String] = []) -> [String] {
        ["report", "--counter", "1001", "--from", range.from, "--to", range.to, "--csv"] + extra
    }

    /// The drill's environment: a short request timeout keeps the slow drills short, and the
    /// production retry policy's real waits are slept at a twentieth (METRIKA_TEST_RETRY_SCALE, test-only).
    static func environment(_ api: FakeAPI?, _ home: TemporaryDirectory, database: String) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path, retryScale: 0.05, extra: ["METRIKA_TIMEOUT": "2", "METRIKA_DB": database])
    }

    /// What every run must satisfy, whatever the fault (FaultDrill.expectSane).
    static func expectSane(_ result: ProcessResult, _ outcome: FaultDrill.Outcome, _ drill: FaultDrill, seconds: Double)
    {
        drill.expectSane(
            outcome, status: result.status, stdout: result.stdout, stderr: result.stderr, signaled: result.signaled,
            token: demoToken, seconds: seconds)
    }

    /// Requests the simulator logged under a prefix; a delayed answer is logged when it is sent, so
    /// the slow drills wait for the last one.
    static func requests(_ api: FakeAPI, _ prefix: String, atLeast expected: Int) throws -> Int {
        let deadline = Date().addingTimeInterval(Double(FaultDrill.slow) / 1000 + 2)
        var count = try api.requestCount(pathPrefix: prefix)
        while count < expected && Date() < deadline {
            usleep(100_000)
            count = try api.requestCount(pathPrefix: prefix)
        }
        return count
    }

    @Test(arguments: FaultDrill.endToEnd)
    func counters(_ drill: FaultDrill) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = Self.environment(api, home, database: home.path + "/history.sqlite")
        let clean = try metrika(["counters", "--csv"], environment: environment)
        #expect(clean.status == 0)
        try api.reset()
        try api.inject(drill.spec(pathPrefix: "/management/v1/counters"))
        let started = Date()
        let result = try metrika(["counters", "--csv"], environment: environment)
        Self.expectSane(result, drill.counters, drill, seconds: Date().timeIntervalSince(started))
        #expect(
            try Self.requests(api, "/management/v1/counters", atLeast: drill.requests) == drill.requests,
            "\(drill.name)")
        drill.expectCountersOutput(result.stdout, clean: clean.stdout)
    }

    @Test(arguments: FaultDrill.endToEnd)
    func report(_ drill: FaultDrill) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let database = home.path + "/history.sqlite"
        let environment = Self.environment(api, home, database: database)
        // The expected bytes come from a clean run against its own database.
        let baseline = try metrika(
            Self.reportArguments(), environment: Self.environment(api, home, database: home.path + "/baseline.sqlite"))
        #expect(baseline.status == 0, "\(baseline.stderr)")
        #expect(baseline.stdoutLines.count == 11)
        try api.reset()
        try api.inject(drill.spec(pathPrefix: "/stat/"))
        let started = Date()
        let result = try metrika(Self.reportArguments(), environment: environment)
        let seconds = Date().timeIntervalSince(started)
        Self.expectSane(result, drill.report, drill, seconds: seconds)
        drill.expectReportOutput(result.stdout, stderr: result.stderr, baseline: baseline.stdout)
        #expect(try Self.requests(api, "/stat/v1/data", atLeast: drill.requests) == drill.requests, "\(drill.name)")

        // The history holds the whole range or none of it.
        let days = try HistoryTools.sqlite(
            database, "SELECT count(DISTINCT day) FROM daily_values WHERE counter_id = 1001")
        let values = try HistoryTools.sqlite(database, "SELECT count(*) FROM daily_values WHERE counter_id = 1001")
        let fetches = try HistoryTools.sqlite(database, "SELECT count(*) FROM fetch_log WHERE counter_id = 1001")
        if case .recovers = drill.report {
            #expect(
                days == "10" && values == "60" && fetches == "1",
                "\(drill.name): \(days) days, \(values) values, \(fetches) fetches")
            // Offline, from the history alone, the same report.
            let offline = try metrika(Self.reportArguments(["--offline"]), environment: environment)
            #expect(offline.status == 0 && offline.stdout == baseline.stdout, "\(drill.name): \(offline.stderr)")
        } else {
            #expect(
                days == "0" && values == "0" && fetches == "0",
                "\(drill.name): \(days) days, \(values) values, \(fetches) fetches")
            // Nothing half-done blocks the next run: without the fault it fetches the whole range.
            try api.reset()
            let again = try metrika(Self.reportArguments(), environment: environment)
            #expect(again.status == 0 && again.stdout == baseline.stdout, "\(drill.name): \(again.stderr)")
            #expect(
                try HistoryTools.sqlite(database, "SELECT count(*) FROM daily_values WHERE counter_id = 1001") == "60")
        }
    }

    @Test func aHugeMailPeriodIsAUsageErrorNotATrap() throws {
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["mail", "--counter", "1001", "--to", "a@example.com", "--period", "2000000000000000000w"],
            environment: metrikaEnvironment(api: nil, home: home.path))
        #expect(!result.signaled && result.status == 64, "\(result.stderr.prefix(200))")
        #expect(!result.stdout.contains(demoToken))
    }
}

/// A seeded mutation fuzzer for the command line: argv built from real command lines, mutated by
/// dropping, repeating, swapping and rewriting words, then parsed and validated the way `metrika`
/// does before any request. Every outcome must be a value or a `UsageError` with a one-line
/// message; a trap kills the test process (that is the point).
@Suite("Argument parser fuzz", .blockingLanes)
struct ArgumentFuzzTests {
    static let iterations = 20_000

    static let seeds: [[String]] = [
        ["counters", "--search", "ромашка", "--csv"],
        ["report", "--counter", "1001,1002", "--from", "2026-10-01", "--to", "2026-10-31", "--group", "week", "--json"],
        [
            "report", "-c", "1001", "--metrics", "visits,bounceRate", "--dimensions", "trafficSource", "--limit", "100",
            "--accuracy", "0.5", "--lang", "ru"
        ],
        [
            "report", "--counter=1001", "--from=30daysAgo", "--to=yesterday", "--unsettled-days", "3", "--format",
            "csv", "--raw"
        ],
        [
            "chart", "--counter", "1001", "--metrics", "visits,users", "--from", "6daysAgo", "--width", "800",
            "--title", "Visits"
        ],
        ["sync", "--counter", "1001", "-v"],
        ["report", "--counter", "1001", "--offline", "--db", "/tmp/x.sqlite", "--", "--json"]
    ]

    static let words: [String] = [
        "", "-", "--", "=", "-c", "-v", "-h", "-x", "-cv", "--counter", "--counter=", "--from", "--to", "--=",
        "--help=1",
        "0", "-1", "1", "1001", ",", ",,", "1,,2", "99999999999999999999", "9223372036854775807",
        "-9223372036854775808",
        "1e308", "nan", "inf", "0.0", "1.5", "2026-02-30", "2026-02-28", "9999-12-31", "0000-01-01", "36500daysAgo",
        "36501daysAgo", "9223372036854775807daysAgo", "-1daysAgo", "daysAgo", "today", "YESTERDAY", "week", "month",
        "year",
        "visits", "ym:s:visits", "goal1reaches", "goal99999999999999999999reaches", "trafficSource", "é", "\u{0}", "\n",
        "\u{1B}[31m", "Ромашка", String(repeating: "a", count: 300), "--format", "CSV", "xml", "--limit", "10000001"
    ]

    static func mutate(_ input: [String], random: inout SeededRandom) -> [String] {
        var argv = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = Int.random(in: 0...argv.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where position < argv.count: argv.remove(at: position)
            case 1 where position < argv.count: argv.insert(argv[position], at: position)
            case 2 where position + 1 < argv.count: argv.swapAt(position, position + 1)
            case 3: argv.insert(words.randomElement(using: &random)!, at: position)
            case 4 where position < argv.count:
                let option =
                    "--" + (ReportCommand.allOptions + ChartCommand.allOptions).randomElement(using: &random)!.name
                argv[position] =
                    Bool.random(using: &random) ? option : option + "=" + words.randomElement(using: &random)!
            default:
                guard position < argv.count else { continue }
                var scalars = Array(argv[position].unicodeScalars)
                let at = Int.random(in: 0...scalars.count, using: &random)
                if Bool.random(using: &random), at < scalars.count {
                    scalars.remove(at: at)
                } else {
                    scalars.insert(Unicode.Scalar(UInt8.random(in: 0...127, using: &random)), at: at)
                }
                argv[position] = String(String.UnicodeScalarView(scalars))
            }
        }
        return argv
    }

    @Test func mutatedCommandLinesParseOrFailAsUsageErrors() {
        var random = SeededRandom(seed: 0x6172_6776_6675_7A7A)
        var accepted = 0
        var refused = 0
        for iteration in 0..<Self.iterations {
            let argv = Self.mutate(Self.seeds.randomElement(using: &random)!, random: &random)
            guard let (command, consumed) = CLI.find(argv) else { continue }
            do {
                let options = try ArgumentParser.parse(Array(argv.dropFirst(consumed)), options: command.allOptions)
                switch command.name {
                case ReportCommand.name: _ = try ReportCommand.parse(options)
                case ChartCommand.name: _ = try ChartCommand.parse(options)
                default: _ = try OutputFormat.from(options)
                }
                accepted += 1
            } catch let error as UsageError {
                refused += 1
                #expect(
                    !error.message.contains("\n") && !error.message.contains("\u{1B}"),
                    "iteration \(iteration): \(error.message)")
            } catch {
                Issue.record("iteration \(iteration): \(argv) threw \(error), not a usage error")
            }
        }
        // Both sides reached: command lines that still parse and ones that are refused.
        #expect(accepted > 1000 && refused > 5000, "\(accepted) accepted, \(refused) refused")
    }

    @Test func aUsageErrorQuotingANewlineStaysOneLine() throws {
        let options = try ArgumentParser.parse(["--counter", "1\n2\u{1B}[31m"], options: ReportCommand.allOptions)
        do {
            _ = try CounterOptions.ids(options)
            Issue.record("a newline is no counter id")
        } catch let error as UsageError {
            #expect(error.message == "--counter '1 2 [31m' is not a counter id (a positive whole number)")
        }
    }
}
