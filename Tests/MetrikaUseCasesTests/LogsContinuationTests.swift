import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// The nightly range: the last N loaded days again, then every finished day up to yesterday.
@Suite("Logs continuation")
struct LogsContinuationTests {
    static func load(_ first: String, _ last: String) -> LogLoad {
        LogLoad(
            counterID: 1001, source: .visits, destination: "t", firstDay: Day(iso: first)!, lastDay: Day(iso: last)!,
            loadedAt: Date())
    }

    @Test(arguments: [
        // first, last loaded, late days, today → range (or nil)
        ("2026-06-01", "2026-06-10", 3, "2026-06-15", "2026-06-08…2026-06-14"),
        // ran already today: the late days again
        ("2026-06-01", "2026-06-14", 3, "2026-06-15", "2026-06-12…2026-06-14"),
        ("2026-06-01", "2026-06-14", 1, "2026-06-16", "2026-06-14…2026-06-15"),
        ("2026-06-10", "2026-06-10", 3, "2026-06-15", "2026-06-10…2026-06-14"), // never before the first loaded day
        ("2026-06-01", "2026-06-10", 0, "2026-06-15", "2026-06-11…2026-06-14"),
        ("2026-06-01", "2026-06-14", 0, "2026-06-15", "nothing"),
        ("2026-01-01", "2026-03-31", 3, "2026-06-15", "2026-03-29…2026-06-14") // a long gap: every missed day
    ])
    func rangeAfterAnEarlierLoad(first: String, last: String, late: Int, today: String, expected: String) {
        let range = LogsContinuation.range(after: Self.load(first, last), lateDays: late, today: Day(iso: today)!)
        #expect(range.map { "\($0.from.iso)…\($0.to.iso)" } ?? "nothing" == expected)
    }

    static func days(_ list: String) -> [Day] {
        list.split(separator: ",").flatMap { piece -> [Day] in
            let ends = piece.split(separator: "…").map { Day(iso: String($0))! }
            return (ends[0].ordinal...ends.last!.ordinal).map(Day.init(ordinal:))
        }
    }

    static func text(_ ranges: [DateRange]) -> String {
        ranges.map { "\($0.from.iso)…\($0.to.iso)" }.joined(separator: ",")
    }

    /// Issue 32.5: loaded days as ranges, and the gaps between them.
    @Test(arguments: [
        // loaded days → ranges | gaps
        (
            "2026-06-01…2026-06-09,2026-05-20…2026-05-29", "2026-05-20…2026-05-29,2026-06-01…2026-06-09",
            "2026-05-30…2026-05-31"
        ),
        ("2026-06-01…2026-06-09,2026-06-03…2026-06-12", "2026-06-01…2026-06-12", ""), // overlapping loads: one range
        ("2026-06-01…2026-06-05,2026-06-06…2026-06-06", "2026-06-01…2026-06-06", ""), // adjacent: one range
        (
            "2026-06-01,2026-06-03,2026-06-07…2026-06-08",
            "2026-06-01…2026-06-01,2026-06-03…2026-06-03,2026-06-07…2026-06-08",
            "2026-06-02…2026-06-02,2026-06-04…2026-06-06"
        ),
        // across a month end
        ("2026-02-27…2026-03-01,2026-03-03", "2026-02-27…2026-03-01,2026-03-03…2026-03-03", "2026-03-02…2026-03-02")
    ])
    func loadedDaysAreRangesWithTheGapsBetween(loaded: String, ranges: String, gaps: String) {
        let made = LogsContinuation.ranges(of: Self.days(loaded))
        #expect(Self.text(made) == ranges)
        #expect(Self.text(LogsContinuation.gaps(made)) == gaps)
    }

    /// A run without dates loads the gaps first (those its continuing range does not cover), then
    /// continues; with nothing after and no gap, nothing.
    @Test(arguments: [
        // loaded days, late days, today → gaps | next
        (
            "2026-06-01…2026-06-09,2026-05-20…2026-05-29", 3, "2026-06-15", "2026-05-30…2026-05-31",
            "2026-06-07…2026-06-14"
        ),
        (
            "2026-06-01…2026-06-09,2026-06-12…2026-06-14", 3, "2026-06-15", "2026-06-10…2026-06-11",
            "2026-06-12…2026-06-14"
        ),
        (
            "2026-06-01…2026-06-05,2026-06-09…2026-06-14", 3, "2026-06-15", "2026-06-06…2026-06-08",
            "2026-06-12…2026-06-14"
        ),
        // up to date, but a gap
        ("2026-06-01…2026-06-05,2026-06-08…2026-06-14", 0, "2026-06-15", "2026-06-06…2026-06-07", "nothing"),
        // the late days cover the gap
        ("2026-06-01…2026-06-10,2026-06-13…2026-06-14", 4, "2026-06-15", "", "2026-06-11…2026-06-14")
    ])
    func aRunWithoutDatesFillsTheGapsFirst(loaded: String, late: Int, today: String, gaps: String, next: String) {
        let days = Self.days(loaded).sorted()
        let load = LogLoad(
            counterID: 1001, source: .visits, destination: "t", firstDay: days.first!, lastDay: days.last!,
            loadedAt: Date(), days: days)
        let plan = LogsContinuation.plan(after: load, lateDays: late, today: Day(iso: today)!)
        #expect(Self.text(plan.gaps) == gaps)
        #expect(plan.next.map { Self.text([$0]) } ?? "nothing" == next)
        #expect(plan.ranges == plan.gaps + (plan.next.map { [$0] } ?? []))
    }
}
