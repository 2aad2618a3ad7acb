import Foundation
import Testing
@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// The nightly range: the last N loaded days again, then every finished day up to yesterday.
@Suite("Logs continuation")
struct LogsContinuationTests {
    static func load(_ first: String, _ last: String) -> LogLoad {
        LogLoad(counterID: 1001, source: .visits, destination: "t", firstDay: Day(iso: first)!, lastDay: Day(iso: last)!, loadedAt: Date())
    }

    @Test(arguments: [
        // first, last loaded, late days, today → range (or nil)
        ("2026-06-01", "2026-06-10", 3, "2026-06-15", "2026-06-08…2026-06-14"),
        ("2026-06-01", "2026-06-14", 3, "2026-06-15", "2026-06-12…2026-06-14"),  // ran already today: the late days again
        ("2026-06-01", "2026-06-14", 1, "2026-06-16", "2026-06-14…2026-06-15"),
        ("2026-06-10", "2026-06-10", 3, "2026-06-15", "2026-06-10…2026-06-14"),  // never before the first loaded day
        ("2026-06-01", "2026-06-10", 0, "2026-06-15", "2026-06-11…2026-06-14"),
        ("2026-06-01", "2026-06-14", 0, "2026-06-15", "nothing"),
        ("2026-01-01", "2026-03-31", 3, "2026-06-15", "2026-03-29…2026-06-14"),  // a long gap: every missed day
    ])
    func rangeAfterAnEarlierLoad(first: String, last: String, late: Int, today: String, expected: String) {
        let range = LogsContinuation.range(after: Self.load(first, last), lateDays: late, today: Day(iso: today)!)
        #expect(range.map { "\($0.from.iso)…\($0.to.iso)" } ?? "nothing" == expected)
    }
}
