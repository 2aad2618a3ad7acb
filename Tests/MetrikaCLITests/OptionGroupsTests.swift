import Foundation
import Testing

@testable import MetrikaCLI
@testable import MetrikaModel

/// The shared option groups parse once into typed values and refuse bad input as usage errors
/// (exit 64) with a message naming the option.
@Suite("Option groups")
struct OptionGroupsTests {
    static func parse(_ arguments: [String], _ specs: [OptionSpec]) throws -> ParsedOptions {
        try ArgumentParser.parse(arguments, options: specs + CommonOptions.always)
    }

    /// The usage error `body` throws (failing the test when it throws none).
    static func usageError(_ body: () throws -> Void) -> UsageError? {
        do {
            try body()
            Issue.record("no usage error")
        } catch let error as UsageError {
            #expect(error.exitCode == 64)
            return error
        } catch {
            Issue.record("not a usage error: \(error)")
        }
        return nil
    }

    @Test func countersAreListedOnceInTheOrderGiven() throws {
        let options = try Self.parse(["--counter", "3,1", "-c", "3", "--counter", " 2 "], [CounterOptions.spec()])
        #expect(try CounterOptions.ids(options) == [3, 1, 2])
    }

    @Test(arguments: [
        ([String](), "Missing --counter ID"),
        (["--counter", "abc"], "--counter 'abc' is not a counter id"),
        (["--counter", "-5"], "--counter '-5' is not a counter id"),
        (["--counter", "0"], "--counter '0' is not a counter id")
    ])
    func badCountersAreRefused(arguments: [String], message: String) throws {
        let options = try Self.parse(arguments, [CounterOptions.spec()])
        let error = Self.usageError { _ = try CounterOptions.ids(options) }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
    }

    @Test func oneCounterWhereOneIsTaken() throws {
        #expect(try CounterOptions.one(Self.parse(["--counter", "7"], [CounterOptions.spec()])) == 7)
        let options = try Self.parse(["--counter", "7,8"], [CounterOptions.spec()])
        #expect(
            Self.usageError { _ = try CounterOptions.one(options) }?.message
                == "--counter takes one counter id here, not 2")
    }

    @Test func metricsAreNamedOnceOrRefused() throws {
        let spec = MetricsOptions.spec(help: "m")
        #expect(try MetricsOptions.metrics(Self.parse([], [spec])) == nil)
        #expect(
            try MetricsOptions.metrics(Self.parse(["-m", "visits,ym:s:visits,bounceRate"], [spec]))?.map(\.apiName) == [
                "ym:s:visits", "ym:s:bounceRate"
            ])
        let empty = try Self.parse(["--metrics", ","], [spec])
        #expect(
            Self.usageError { _ = try MetricsOptions.metrics(empty) }?.message.hasPrefix("--metrics is empty") == true)
        let unknown = try Self.parse(["--metrics", "vists"], [spec])
        #expect(
            Self.usageError { _ = try MetricsOptions.metrics(unknown) }?.message.hasPrefix("Unknown metric 'vists'")
                == true)
        let many = try Self.parse(["--metrics", (1...21).map { "goal\($0)reaches" }.joined(separator: ",")], [spec])
        #expect(
            Self.usageError { _ = try MetricsOptions.metrics(many) }?.message
                == "--metrics lists 21 metrics; the API allows at most 20 per report")
    }

    @Test func datesDefaultOrComeFromAPeriod() throws {
        let specs = DateOptions.specs(defaultFrom: "6daysAgo")
        let none = try DateOptions.parse(Self.parse([], specs), defaultFrom: "6daysAgo")
        #expect(none.from == .daysAgo(6) && none.to == .daysAgo(0) && none.period == nil)
        let named = try DateOptions.parse(Self.parse(["--period", "lastWeek"], specs), defaultFrom: "6daysAgo")
        #expect(named.period == .lastWeek)
        #expect(named.from == .period(.lastWeek, end: false) && named.to == .period(.lastWeek, end: true))
    }

    @Test(arguments: [
        (["--period", "lastWeek", "--from", "2025-01-01"], "--period and --from contradict each other"),
        (
            ["--period", "lastWeek", "--from", "today", "--to", "today"],
            "--period and --from/--to contradict each other"
        ),
        (
            ["--from", "2026-02-01", "--to", "2026-01-01"],
            "--from 2026-02-01 is after --to 2026-01-01: the range is reversed"
        ),
        (["--from", "1daysAgo", "--to", "3daysAgo"], "--from yesterday is after --to 3daysAgo: the range is reversed"),
        (["--from", "2007-12-31"], "--from 2007-12-31 is before 2008-01-01"),
        (["--period", "fortnight"], "--period 'fortnight' is not a period")
    ])
    func badDatesAreRefused(arguments: [String], message: String) throws {
        let options = try Self.parse(arguments, DateOptions.specs(defaultFrom: "6daysAgo"))
        let error = Self.usageError { _ = try DateOptions.parse(options, defaultFrom: "6daysAgo") }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
    }

    @Test func formatAndItsShorthands() throws {
        #expect(try FormatOptions.parse(Self.parse([], FormatOptions.specs), toTerminal: false).format == .table)
        #expect(try FormatOptions.parse(Self.parse(["--csv"], FormatOptions.specs), toTerminal: false).format == .csv)
        let csv = try FormatOptions.parse(
            Self.parse(["--format", "CSV", "--crlf", "--csv-formulas", "keep"], FormatOptions.specs), toTerminal: true)
        #expect(csv.csv.lineEnding == .crlf && csv.csv.formulas == .keep && csv.csv.terminal)
    }

    @Test(arguments: [
        (["--csv", "--json"], "Choose one output format: --format csv, json contradict each other"),
        (["--format", "xml"], "--format must be table, csv or json, not 'xml'"),
        (["--crlf"], "--crlf applies to CSV output only: add --csv"),
        (["--csv", "--csv-formulas", "maybe"], "--csv-formulas must be defuse or keep, not 'maybe'")
    ])
    func badFormatsAreRefused(arguments: [String], message: String) throws {
        let options = try Self.parse(arguments, FormatOptions.specs)
        #expect(Self.usageError { _ = try FormatOptions.parse(options, toTerminal: false) }?.message == message)
    }

    @Test func offlineAndRefreshContradict() throws {
        let both = try Self.parse(["--offline", "--refresh"], HistoryOptions.specs)
        #expect(
            Self.usageError { _ = try HistoryOptions.parse(both) }?.message
                == "--offline and --refresh contradict each other: choose one")
        let offline = try HistoryOptions.parse(Self.parse(["--offline"], HistoryOptions.specs))
        #expect(offline.offline && !offline.refresh)
    }

    @Test func theDatabaseIsTheOptionElseTheEnvironment() throws {
        #expect(
            DatabaseOptions.path(
                try Self.parse(["--db", "/tmp/x.sqlite"], DatabaseOptions.specs),
                environment: ["METRIKA_DB": "/tmp/y.sqlite"]) == "/tmp/x.sqlite")
        #expect(
            DatabaseOptions.path(
                try Self.parse([], DatabaseOptions.specs), environment: ["METRIKA_DB": "/tmp/y.sqlite"])
                == "/tmp/y.sqlite")
    }

    /// The report gets the validated limit, and whether it was given, never the raw text.
    @Test func theReportsLimitIsValidatedOnce() throws {
        let given = try ReportCommand.parse(
            Self.parse(["--counter", "1", "--dimensions", "trafficSource", "--limit", "250"], ReportCommand.options))
        #expect(given.request.limit == 250 && given.request.requestedLimit == 250)
        let absent = try ReportCommand.parse(
            Self.parse(["--counter", "1", "--dimensions", "trafficSource"], ReportCommand.options))
        #expect(absent.request.limit == 100 && absent.request.requestedLimit == nil)
        let zero = try Self.parse(["--counter", "1", "--limit", "0"], ReportCommand.options)
        #expect(
            Self.usageError { _ = try ReportCommand.parse(zero) }?.message
                == "--limit must be a whole number from 1 to 10000000, not '0'")
    }

    /// Through the whole CLI: exit 64, the message, then the command's usage line; no request.
    @Test(arguments: [
        (
            ["report", "--counter", "1", "--offline", "--refresh"], "--offline and --refresh contradict each other",
            "report"
        ),
        (
            ["chart", "--counter", "1", "--offline", "--refresh", "--output", "x.svg"],
            "--offline and --refresh contradict each other", "chart"
        ),
        (["goals", "--counter", "1,2"], "--counter takes one counter id here, not 2", "goals"),
        (["counters", "--csv", "--json"], "Choose one output format", "counters"),
        (["sync", "--counter", "x"], "--counter 'x' is not a counter id", "sync"),
        (["report", "--counter", "1", "--limit", "many"], "--limit must be a whole number", "report")
    ])
    func refusedThroughTheCLI(arguments: [String], message: String, command: String) async {
        let result = await CLIConventionsTests.run(arguments)
        #expect(result.code == 64)
        #expect(result.out.isEmpty)
        #expect(result.err.hasPrefix("Error: \(message)"), "\(result.err)")
        #expect(result.err.contains("\nUsage: metrika \(command) "), "\(result.err)")
    }
}
