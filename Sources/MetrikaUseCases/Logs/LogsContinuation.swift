import Foundation
import MetrikaModel
import MetrikaStore

/// The range of a `metrika logs` run without `--from/--to` (the nightly one): visits keep changing for
/// about three days after they start (Yandex: 99 % close within three days), so the run loads again the
/// last `lateDays` days an earlier run loaded into the same table, then every finished day after them
/// up to yesterday in the counter's time zone.
package enum LogsContinuation {
    /// Days loaded again by default.
    package static let defaultLateDays = 3

    /// The range to load after `load`, or nil when there is nothing to load (no late days asked and
    /// yesterday is already in).
    package static func range(after load: LogLoad, lateDays: Int, today: Day) -> DateRange? {
        let yesterday = today.adding(days: -1)
        let from = lateDays > 0 ? max(load.firstDay, load.lastDay.adding(days: -(lateDays - 1))) : load.lastDay.adding(days: 1)
        guard from <= yesterday else { return nil }
        return DateRange(from: from, to: yesterday)
    }
}
