import Foundation
import MetrikaModel
import MetrikaStore

/// The range of a `metrika logs` run without `--from/--to` (the nightly one): visits keep changing for
/// about three days after they start (Yandex: 99 % close within three days), so the run loads again the
/// last `lateDays` days an earlier run loaded into the same table, then every finished day after them
/// up to yesterday in the counter's time zone. Days never loaded between earlier loads (a gap, such as
/// 05-30…05-31 after loading 06-01…06-09, then 05-20…05-29) are loaded first.
package enum LogsContinuation {
    /// Days loaded again by default.
    package static let defaultLateDays = 3

    /// The range to load after `load`, or nil when there is nothing to load (no late days asked and
    /// yesterday is already in).
    package static func range(after load: LogLoad, lateDays: Int, today: Day) -> DateRange? {
        let yesterday = today.adding(days: -1)
        let from =
            lateDays > 0 ? max(load.firstDay, load.lastDay.adding(days: -(lateDays - 1))) : load.lastDay.adding(days: 1)
        guard from <= yesterday else { return nil }
        return DateRange(from: from, to: yesterday)
    }

    /// What a run without dates loads: the gaps inside the loaded days (those the continuing range
    /// does not cover anyway), then that range.
    package struct Plan: Sendable, Equatable {
        package var gaps: [DateRange]
        package var next: DateRange?
        /// Every range to load, in order.
        package var ranges: [DateRange] { gaps + (next.map { [$0] } ?? []) }
    }

    package static func plan(after load: LogLoad, lateDays: Int, today: Day) -> Plan {
        let next = range(after: load, lateDays: lateDays, today: today)
        let gaps = self.gaps(ranges(of: load.days)).compactMap { gap -> DateRange? in
            guard let next else { return gap }
            return DateRange(from: gap.from, to: min(gap.to, next.from.adding(days: -1)))
        }
        return Plan(gaps: gaps, next: next)
    }

    /// Days (in any order, repeats allowed) as the fewest ranges, in order.
    package static func ranges(of days: [Day]) -> [DateRange] {
        var result: [DateRange] = []
        for day in Set(days).sorted() {
            if let last = result.last, last.to.adding(days: 1) == day {
                result[result.count - 1] = DateRange(from: last.from, to: day)!
            } else {
                result.append(DateRange(from: day, to: day)!)
            }
        }
        return result
    }

    /// The days between consecutive ranges (as `ranges(of:)` makes them), as ranges.
    package static func gaps(_ ranges: [DateRange]) -> [DateRange] {
        zip(ranges, ranges.dropFirst()).compactMap {
            DateRange(from: $0.to.adding(days: 1), to: $1.from.adding(days: -1))
        }
    }
}
