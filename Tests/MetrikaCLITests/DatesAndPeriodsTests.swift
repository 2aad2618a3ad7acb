import Foundation
import Testing

@testable import MetrikaCLI
@testable import MetrikaModel
@testable import MetrikaUseCases

/// Dates as people write them: NweeksAgo and NmonthsAgo, named periods with --period, and the
/// command lines refused before any request (in-process; the binary's answers are in EndToEndTests).
@Suite("Dates and periods")
struct DatesAndPeriodsTests {
    static func day(_ iso: String) -> Day { Day(iso: iso)! }

    @Test(arguments: [
        ("2weeksAgo", "2025-06-18", "2025-06-04"),
        ("0weeksAgo", "2025-06-18", "2025-06-18"),
        ("1monthsAgo", "2026-03-31", "2026-02-28"),
        ("1MONTHSAGO", "2024-03-31", "2024-02-29"),
        ("12monthsAgo", "2024-02-29", "2023-02-28"),
        ("14monthsAgo", "2026-03-15", "2025-01-15"),
        ("30daysAgo", "2026-03-31", "2026-03-01")
    ])
    func relativeDatesResolve(text: String, today: String, expected: String) throws {
        let expression = try DateExpression(parsing: text, option: "from")
        #expect(expression.resolve(today: Self.day(today)).iso == expected)
    }

    @Test(arguments: ["weeksAgo", "-1weeksAgo", "1.5monthsAgo", "99999monthsAgo", "3 weeksAgo", "+2weeksAgo"])
    func malformedRelativeDatesAreUsageErrors(text: String) {
        #expect(throws: ParameterError.self) { try DateExpression(parsing: text, option: "from") }
    }

    /// The right form with an N so large the day would be before 2008, or past any integer: said so
    /// (issue 32), never "is not a date", never a trap.
    @Test(arguments: [
        "99999999daysAgo", "36501daysAgo", "9223372036854775808daysAgo", "99999999999999999999999999weeksAgo",
        "1201monthsAgo", " 5201WEEKSAGO"
    ])
    func aRelativeDateTooFarBackSaysItIsBefore2008(text: String) throws {
        let error = try #require(throws: UsageError.self) {
            try cliWorded { try DateExpression(parsing: text, option: "from") }
        }
        let shown = text.trimmingCharacters(in: .whitespaces)
        #expect(
            error.message
                == "--from \(shown) is before 2008-01-01, the first day Metrika has data for; use a later date")
    }

    @Test func leadingZerosAreTheSameNumber() throws {
        #expect(try DateExpression(parsing: "0000007daysAgo", option: "from") == .daysAgo(7))
        #expect(try DateExpression(parsing: "000daysAgo", option: "from") == .daysAgo(0))
    }

    /// 2025-06-18 is a Wednesday: weeks run Monday to Sunday, as in Metrika.
    @Test(arguments: [
        ("today", "2025-06-18", "2025-06-18"),
        ("yesterday", "2025-06-17", "2025-06-17"),
        ("thisWeek", "2025-06-16", "2025-06-18"),
        ("lastWeek", "2025-06-09", "2025-06-15"),
        ("thisMonth", "2025-06-01", "2025-06-18"),
        ("lastMonth", "2025-05-01", "2025-05-31"),
        ("thisYear", "2025-01-01", "2025-06-18"),
        ("lastYear", "2024-01-01", "2024-12-31"),
        ("last7days", "2025-06-12", "2025-06-18"),
        ("LAST30DAYS", "2025-05-20", "2025-06-18")
    ])
    func namedPeriodsResolve(name: String, from: String, to: String) throws {
        let period = try NamedPeriod(parsing: name)
        let days = period.days(today: Self.day("2025-06-18"))
        #expect("\(days.from.iso) \(days.to.iso)" == "\(from) \(to)")
    }

    @Test func lastMonthInJanuaryIsDecember() throws {
        let days = try NamedPeriod(parsing: "lastMonth").days(today: Self.day("2026-01-10"))
        #expect("\(days.from.iso) \(days.to.iso)" == "2025-12-01 2025-12-31")
    }

    static func run(_ arguments: [String]) async -> (code: Int32, err: String) {
        let out = TextSink()
        let err = TextSink()
        let context = CLIContext(
            environment: ["HOME": "/nonexistent"], stdout: out, stderr: err, transport: CLIConventionsTests.NoNetwork())
        let code = await CLI.run(arguments: arguments, context: context)
        return (code, err.text)
    }

    @Test(arguments: [
        (
            ["report", "--counter", "1", "--period", "lastWeek", "--from", "2025-01-01"],
            "--period and --from contradict each other"
        ),
        (
            ["chart", "--counter", "1", "--period", "thisMonth", "--to", "today", "--output", "x.svg"],
            "--period and --to contradict each other"
        ),
        (["report", "--counter", "1", "--period", "fortnight"], "--period 'fortnight' is not a period"),
        // The right form with N out of range: the range is said (issue 40 item 12), not the form just used.
        (
            ["report", "--counter", "1", "--period", "last0days"],
            "--period 'last0days': N of lastNdays must be from 1 to 36500"
        ),
        (
            ["report", "--counter", "1", "--period", "last99999days"],
            "--period 'last99999days': N of lastNdays must be from 1 to 36500"
        ),
        (
            ["report", "--counter", "1", "--period", "last99999999999999999999days"],
            "N of lastNdays must be from 1 to 36500"
        ),
        (["report", "--counter", "1", "--from", "1weeksAgo", "--to", "2weeksAgo"], "the range is reversed"),
        (["cache", "prune", "--before", "soon"], "--before 'soon' is not a date"),
        (["cache", "prune", "--before", "2007-12-31"], "before 2008-01-01")
    ])
    func refusedBeforeAnyRequest(arguments: [String], message: String) async {
        let result = await Self.run(arguments)
        #expect(result.code == 64)
        #expect(result.err.contains(message), "\(result.err)")
    }

    // MARK: - The real binary against the simulator
}
