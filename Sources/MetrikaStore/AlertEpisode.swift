import Foundation
import MetrikaModel

/// An anomaly an alert check announced and has not yet seen end, of either grain: the daily check's
/// (`metrika alert`: a day) or the hourly check's (`metrika alert --today`: an hour of a local day).
/// One per counter, metric and grain (table `alert_episodes`): the daily check never closes an
/// hourly episode, nor the hourly one a daily. While it is open, a later run of its grain that sees
/// the same kind of anomaly stays silent.
package struct AlertEpisode: Sendable, Equatable {
    /// What an episode is measured in.
    package enum Grain: String, Sendable, Equatable {
        /// Days: `since` and `lastDay` (its hours are 0 and not stored).
        case day
        /// Hours of the counter's local days: `since` + `sinceHour` to `lastDay` + `lastHour`, across
        /// midnight too.
        case hour
    }

    /// Its short id in the history database (`metrika alert --status`, `--forget ID`); nil until stored.
    /// Never reused: an episode forgotten and told again gets a new one.
    package var id: Int?
    package var counterID: Int
    /// The metric's API name (`ym:s:visits`, `ym:s:goal4001reaches`), or any key of the caller's
    /// that names one thing watched per counter.
    package var metric: String
    package var grain: Grain
    /// `drop`, `rise` or `stopped`.
    package var kind: String
    /// The first day of the anomaly (for `stopped`, the first day of zeros), and for the hour grain its
    /// first hour (00–23) that day.
    package var since: Day
    package var sinceHour: Int
    /// The last day (and for the hour grain the last finished hour) checked while it lasted.
    package var lastDay: Day
    package var lastHour: Int
    /// The value and the expected value when it was announced (the hour grain: over the judged hours).
    package var value: Double
    package var expected: Double
    package var notifiedAt: Date
    /// The value and the expected value the last run that saw it measured (nil: none since it was told).
    package var lastValue: Double?
    package var lastExpected: Double?
    /// An hour's episode: the last day whose daily check continued its story (`still stopped since …`),
    /// so that it is continued once a day at most; nil: never.
    package var continuedOn: Day?

    /// A day's episode.
    package init(
        id: Int? = nil, counterID: Int, metric: String, kind: String, since: Day, lastDay: Day, value: Double,
        expected: Double,
        notifiedAt: Date, lastValue: Double? = nil, lastExpected: Double? = nil
    ) {
        self.init(
            id: id, counterID: counterID, metric: metric, grain: .day, kind: kind, since: since, sinceHour: 0,
            lastDay: lastDay, lastHour: 0,
            value: value, expected: expected, notifiedAt: notifiedAt, lastValue: lastValue, lastExpected: lastExpected)
    }

    /// An hour's episode: from `day` at `sinceHour` to `lastDay` at `lastHour`.
    package init(
        id: Int? = nil, counterID: Int, metric: String, kind: String, day: Day, sinceHour: Int, lastDay: Day,
        lastHour: Int,
        value: Double, expected: Double, notifiedAt: Date
    ) {
        self.init(
            id: id, counterID: counterID, metric: metric, grain: .hour, kind: kind, since: day, sinceHour: sinceHour,
            lastDay: lastDay,
            lastHour: lastHour, value: value, expected: expected, notifiedAt: notifiedAt)
    }

    package init(
        id: Int?, counterID: Int, metric: String, grain: Grain, kind: String, since: Day, sinceHour: Int, lastDay: Day,
        lastHour: Int,
        value: Double, expected: Double, notifiedAt: Date, lastValue: Double? = nil, lastExpected: Double? = nil
    ) {
        self.id = id
        self.counterID = counterID
        self.metric = metric
        self.grain = grain
        self.kind = kind
        self.since = since
        self.sinceHour = sinceHour
        self.lastDay = lastDay
        self.lastHour = lastHour
        self.value = value
        self.expected = expected
        self.notifiedAt = notifiedAt
        self.lastValue = lastValue
        self.lastExpected = lastExpected
    }

    /// Whether `other` is the same anomaly as told: its counter, metric, grain, kind and start.
    package func sameStart(as other: AlertEpisode) -> Bool {
        counterID == other.counterID && metric == other.metric && grain == other.grain && kind == other.kind
            && since == other.since && sinceHour == other.sinceHour
    }
}
