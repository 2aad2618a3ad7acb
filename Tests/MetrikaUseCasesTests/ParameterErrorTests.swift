import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaUseCases

/// Use cases refuse parameters by a neutral identity; each entry point words the refusal (issue 36),
/// and the sentences say what is allowed without repeating themselves (issue 40 items 12 and 14).
struct ParameterErrorTests {
    static let counter = Counter(
        id: 1001, name: "Blog", site: "blog.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
        createTime: "2020-01-01T00:00:00+00:00")
    /// A third entry point's words: a chat bot's `/report 1001 lastWeek` names its arguments by place.
    static let bot = ParameterNaming(
        name: { "the \($0.words.joined(separator: " ")) of /report" }, action: { _ in "send /report again" })

    static func refusal(_ body: () throws -> Void) -> ParameterError? {
        do {
            try body()
            Issue.record("nothing was refused")
            return nil
        } catch let error as ParameterError {
            return error
        } catch {
            Issue.record("not a parameter error: \(error)")
            return nil
        }
    }

    @Test func oneRefusalIsWordedByEachEntryPoint() throws {
        let error = try #require(Self.refusal { _ = try DateExpression(parsing: "2026-13-45", option: .from) })
        #expect(error.parameter == .from && error.problem == .malformed(value: "2026-13-45"))
        #expect(error.exitCode == ExitCode.usage)
        let tail =
            "'2026-13-45' is not a date: use YYYY-MM-DD (a real date), today, yesterday, NdaysAgo, NweeksAgo or NmonthsAgo (e.g. 6daysAgo, 2weeksAgo, 3monthsAgo)"
        #expect(error.message(cliNaming) == "--from " + tail)
        #expect(error.message(.neutral) == "from " + tail)
        #expect(error.message == "from " + tail)
        #expect(error.message(Self.bot) == "the from of /report " + tail)
    }

    @Test func aContradictionCarriesTheParametersItNames() throws {
        let error = try #require(
            Self.refusal {
                _ = try ReportDates.parse(from: "today", to: nil, period: "lastWeek", defaultFrom: "6daysAgo")
            })
        #expect(error.parameter == .period && error.problem == .contradicts([.from]))
        #expect(
            error.message(cliNaming)
                == "--period and --from contradict each other: give a named period or dates, not both")
    }

    @Test func aMultiWordParameterIsJoinedByTheEntryPoint() {
        #expect(Parameter.unsettledDays.words == ["unsettled", "days"])
        #expect(cliNaming[.unsettledDays] == "--unsettled-days")
    }

    // MARK: - Issue 40 item 12: lastNdays out of range says the range

    @Test(arguments: ["last0days", "last99999days", "last000days", "last99999999999999999999999days", "LAST36501DAYS"])
    func aLastNdaysOutOfRangeSaysTheRange(text: String) throws {
        let error = try #require(Self.refusal { _ = try NamedPeriod(parsing: text) })
        #expect(error.problem == .outOfRange(value: text, allowed: 1...36_500))
        #expect(
            error.message(cliNaming)
                == "--period '\(text)': N of lastNdays must be from 1 to 36500 (a hundred years), e.g. last7days, last30days"
        )
    }

    @Test func theEdgesOfLastNdaysAreAccepted() throws {
        #expect(try NamedPeriod(parsing: "last1days") == .lastDays(1))
        #expect(try NamedPeriod(parsing: "last36500days") == .lastDays(36_500))
        #expect(try NamedPeriod(parsing: "last007days") == .lastDays(7))
    }

    // MARK: - Issue 40 item 14: the wording of a range refused

    @Test func aFutureStartSaysTheCountersToday() throws {
        let error = try #require(
            Self.refusal {
                _ = try resolveRange(
                    from: .absolute(Day(iso: "2026-12-05")!), to: .daysAgo(0), counter: Self.counter, now: testNow)
            })
        #expect(
            error.message(cliNaming)
                == "--from 2026-12-05 is in the future for counter 1001 (today is 2026-11-29 in its time zone)")
    }

    @Test func aReversedRangeSaysAnAbsoluteDateOnce() throws {
        let absolute = try #require(
            Self.refusal {
                _ = try resolveRange(
                    from: .absolute(Day(iso: "2026-11-22")!), to: .absolute(Day(iso: "2026-11-20")!),
                    counter: Self.counter, now: testNow)
            })
        #expect(absolute.message(cliNaming) == "--from 2026-11-22 is after --to 2026-11-20: the range is reversed")
        let relative = try #require(
            Self.refusal {
                _ = try resolveRange(
                    from: .absolute(Day(iso: "2026-11-22")!), to: .weeksAgo(2), counter: Self.counter, now: testNow)
            })
        #expect(
            relative.message(cliNaming)
                == "--from 2026-11-22 is after --to 2026-11-15 (2weeksAgo): the range is reversed")
    }

    @Test func aNoteOfTheUseCaseIsWordedByItsActivity() throws {
        var notes: [String] = []
        _ = try resolveRange(
            from: .daysAgo(1), to: .absolute(Day(iso: "2026-12-01")!), counter: Self.counter, now: testNow,
            naming: cliNaming
        ) { notes.append($0) }
        #expect(notes == ["Note: --to 2026-12-01 is after today (2026-11-29) for counter 1001; showing up to today."])
        notes = []
        _ = try resolveRange(
            from: .daysAgo(1), to: .absolute(Day(iso: "2026-12-01")!), counter: Self.counter, now: testNow
        ) { notes.append($0) }
        #expect(notes == ["Note: to 2026-12-01 is after today (2026-11-29) for counter 1001; showing up to today."])
    }
}
