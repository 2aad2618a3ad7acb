import Foundation
import MetrikaModel

/// An anomaly `metrika alert` announced and has not yet seen end: one per counter and metric.
/// While it is open, a later run that sees the same kind of anomaly stays silent.
package struct AlertEpisode: Sendable, Equatable {
    package var counterID: Int
    /// The metric's API name (`ym:s:visits`, `ym:s:goal4001reaches`).
    package var metric: String
    /// `drop`, `rise` or `stopped`.
    package var kind: String
    /// The first day of the anomaly (for `stopped`, the first day of zeros).
    package var since: Day
    /// The last day checked while it lasted.
    package var lastDay: Day
    /// The value and the expected value when it was announced.
    package var value: Double
    package var expected: Double
    package var notifiedAt: Date

    package init(counterID: Int, metric: String, kind: String, since: Day, lastDay: Day, value: Double, expected: Double, notifiedAt: Date) {
        self.counterID = counterID
        self.metric = metric
        self.kind = kind
        self.since = since
        self.lastDay = lastDay
        self.value = value
        self.expected = expected
        self.notifiedAt = notifiedAt
    }
}
