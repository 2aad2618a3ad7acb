import Foundation
import Testing

@testable import MetrikaCLI
@testable import MetrikaModel

/// Options that would change nothing are refused, one line each, instead of silently ignored; and
/// `--sort` takes the short names the rest of the command line takes.
@Suite("No silently ignored options")
struct IgnoredOptionsTests {
    static func parse(_ arguments: [String]) throws -> ParsedOptions {
        try ArgumentParser.parse(arguments, options: ReportCommand.allOptions)
    }

    @Test(arguments: [
        (
            ["--limit", "5"],
            "--limit applies to dimension reports (--dimensions or --preset); a time series has one row per day: choose the days with --from/--to or --period"
        ),
        (
            ["--group", "week", "--limit", "5"],
            "--limit applies to dimension reports (--dimensions or --preset); a time series has one row per week: choose the days with --from/--to or --period"
        ),
        (
            ["--sort", "-visits"],
            "--sort applies to dimension reports (--dimensions or --preset); a time series is always in date order"
        ),
        (
            ["--lang", "ru"],
            "--lang sets the language of dimension names (--dimensions or --preset); this report has none"
        ),
        (
            ["--lang", "ru", "--filters", "ym:s:trafficSource=='organic'"],
            "--lang sets the language of dimension names (--dimensions or --preset); this report has none"
        ),
        (
            ["--dimensions", "trafficSource", "--sort", "visitz"],
            "--sort 'visitz' names no metric or dimension: use e.g. visits, -bounceRate, trafficSource (short or ym:s: names, - for descending)"
        )
    ])
    func refusedWhereTheyWouldChangeNothing(extra: [String], message: String) throws {
        do {
            _ = try ReportCommand.parse(Self.parse(["--counter", "1001"] + extra))
            Issue.record("\(extra) must be refused")
        } catch let error as UsageError {
            #expect(error.message == message)
            #expect(error.exitCode == ExitCode.usage)
        }
    }

    @Test func acceptedWhereTheyApply() throws {
        let dimensions = try ReportCommand.parse(
            Self.parse([
                "--counter", "1001", "--dimensions", "trafficSource", "--limit", "5", "--sort", "-visits,trafficSource",
                "--lang", "ru"
            ]))
        #expect(dimensions.request.limit == 5)
        #expect(dimensions.request.sort == "-ym:s:visits,ym:s:trafficSource")
        #expect(dimensions.request.lang == "ru")
        let full = try ReportCommand.parse(
            Self.parse(["--counter", "1001", "--preset", "traffic", "--sort", "-ym:s:bounceRate"]))
        #expect(full.request.sort == "-ym:s:bounceRate")
        // A time series straight from the API (--filters) has rows the API sorts and limits.
        let filtered = try ReportCommand.parse(
            Self.parse([
                "--counter", "1001", "--filters", "ym:s:trafficSource=='organic'", "--limit", "3", "--sort", "ym:s:date"
            ]))
        #expect(filtered.request.limit == 3)
    }
}
