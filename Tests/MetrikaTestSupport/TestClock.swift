import Foundation

/// The instant the tests take as now when a test pins none of its own: the simulator's `--now`, metrika's
/// `METRIKA_NOW`, an in-process simulator's and CLI's clock. A Wednesday, 12:00 in Moscow: yesterday and
/// last week are settled, and no result depends on the day, hour or time zone the suite happens to run in.
package enum TestClock {
    package static let now = "2026-12-02T09:00:00Z"
    package static let date = Date(timeIntervalSince1970: 1_796_202_000)
}
