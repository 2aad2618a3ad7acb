import Foundation
import MetrikaModel

/// An anomaly `metrika alert` announced and has not yet seen end: one per counter and metric.
/// While it is open, a later run that sees the same kind of anomaly stays silent.
package struct AlertEpisode: Sendable, Equatable {
    /// Its short id in the history database (`metrika alert --status`, `--forget ID`); nil until stored.
    /// Never reused: an episode forgotten and told again gets a new one.
    package var id: Int?
    package var counterID: Int
    /// The metric's API name (`ym:s:visits`, `ym:s:goal4001reaches`), or any key of the caller's
    /// that names one thing watched per counter (an hourly check's own episodes).
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
    /// The value and the expected value the last run that saw it measured (nil: none since it was told).
    package var lastValue: Double?
    package var lastExpected: Double?

    package init(id: Int? = nil, counterID: Int, metric: String, kind: String, since: Day, lastDay: Day, value: Double, expected: Double,
                 notifiedAt: Date, lastValue: Double? = nil, lastExpected: Double? = nil) {
        self.id = id
        self.counterID = counterID
        self.metric = metric
        self.kind = kind
        self.since = since
        self.lastDay = lastDay
        self.value = value
        self.expected = expected
        self.notifiedAt = notifiedAt
        self.lastValue = lastValue
        self.lastExpected = lastExpected
    }
}

/// The daily check's news and claims: the one family's (`EpisodeNews`, `EpisodeClaim`) over days.
package typealias AlertNews = EpisodeNews<AlertEpisode>
package typealias AlertClaim = EpisodeClaim<AlertEpisode>
