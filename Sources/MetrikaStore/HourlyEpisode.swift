import Foundation
import MetrikaModel

/// An anomaly `metrika alert --today` announced and has not yet seen end: one per counter and metric
/// (table `hourly_episodes`, apart from the daily check's `alert_episodes`). While it is open, a
/// later run that sees the same kind of anomaly stays silent.
package struct HourlyEpisode: Sendable, Equatable {
    package var counterID: Int
    /// The metric's API name (`ym:s:visits`, `ym:s:goal4001reaches`).
    package var metric: String
    /// `drop`, `rise` or `stopped`.
    package var kind: String
    /// The local day and hour it began (for `stopped`, the first hour of zeros).
    package var day: Day
    package var sinceHour: Int
    /// The last local day and finished hour checked while it lasted.
    package var lastDay: Day
    package var lastHour: Int
    /// The value and the expected value when it was announced (over the judged hours).
    package var value: Double
    package var expected: Double
    package var notifiedAt: Date

    package init(counterID: Int, metric: String, kind: String, day: Day, sinceHour: Int, lastDay: Day, lastHour: Int,
                 value: Double, expected: Double, notifiedAt: Date) {
        self.counterID = counterID
        self.metric = metric
        self.kind = kind
        self.day = day
        self.sinceHour = sinceHour
        self.lastDay = lastDay
        self.lastHour = lastHour
        self.value = value
        self.expected = expected
        self.notifiedAt = notifiedAt
    }
}

/// The hourly check's news and claims: the one family's (`EpisodeNews`, `EpisodeClaim`) over hours.
package typealias HourlyNews = EpisodeNews<HourlyEpisode>
package typealias HourlyClaim = EpisodeClaim<HourlyEpisode>
