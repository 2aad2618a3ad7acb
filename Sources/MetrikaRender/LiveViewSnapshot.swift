import MetrikaModel

/// What `metrika live` shows of one counter at one refresh: today's visits hour by hour against the
/// band of the same hours on the same weekday of earlier weeks, the total so far against what those
/// weeks had by now, the goals, the time of the last data and the requests spent today. Built by the
/// use case (`LiveJudgement`), drawn by `LiveView`; plain values only, so a layout test needs no clock.
package struct LiveSnapshot: Sendable, Equatable {
    /// The usual range of one hour: the lowest, the median and the highest of the earlier weeks.
    package struct Band: Sendable, Equatable {
        package var low: Double
        package var median: Double
        package var high: Double

        package init(low: Double, median: Double, high: Double) {
            self.low = low
            self.median = median
            self.high = high
        }
    }

    /// One hour of today (0 … 23, the counter's own time zone).
    package struct Hour: Sendable, Equatable {
        package var hour: Int
        /// Visits in this hour; nil for an hour that has not begun (or has no data yet).
        package var visits: Double?
        /// The earlier weeks' band; nil when there is no history for it.
        package var band: Band?
        /// The hour still running: its number is incomplete.
        package var running: Bool

        package init(hour: Int, visits: Double?, band: Band?, running: Bool = false) {
            self.hour = hour
            self.visits = visits
            self.band = band
            self.running = running
        }
    }

    /// A goal's reaches today so far, and what the earlier weeks had by now.
    package struct Goal: Sendable, Equatable {
        package var name: String
        package var reaches: Double
        package var expected: Double?

        package init(name: String, reaches: Double, expected: Double?) {
            self.name = name
            self.reaches = reaches
            self.expected = expected
        }
    }

    /// The one-phrase judgement of today so far.
    package enum Verdict: Sendable, Equatable {
        /// Within the usual range.
        case onTrack
        /// The hours from `since` to the last finished one together `percent` off the usual
        /// (negative: fewer); `since` nil means the day as a whole.
        case off(percent: Int, since: Int?)
        /// No earlier weeks to compare with.
        case noBaseline
        /// Nothing counted yet today (just after midnight, or no data).
        case noData

        /// `on track`, `−40% since 14:00`, `+25% today`, `no history to compare with`, `no data yet`.
        package var text: String {
            switch self {
            case .onTrack: return "on track"
            case .off(let percent, let since):
                let sign = percent < 0 ? "\u{2212}" : "+"
                let when = since.map { "since " + LiveSnapshot.hourText($0) } ?? "today"
                return "\(sign)\(abs(percent))% \(when)"
            case .noBaseline: return "no history to compare with"
            case .noData: return "no data yet"
            }
        }
    }

    package var counterID: Int
    package var counterName: String
    package var day: Day
    /// The counter's local time now, `14:35`.
    package var clock: String
    /// 24 hours, 00:00 … 23:00.
    package var hours: [Hour]
    package var visitsSoFar: Double
    /// What the earlier weeks had by this time of day (the running hour pro rata); nil without history.
    package var expectedByNow: Double?
    package var verdict: Verdict
    package var goals: [Goal]
    /// The counter's local time of the newest data the API has (`14:20`); nil when unknown.
    package var lastData: String?
    /// API requests spent today (this counter's share of the refreshes).
    package var requestsToday: Int

    package init(
        counterID: Int, counterName: String, day: Day, clock: String, hours: [Hour], visitsSoFar: Double,
        expectedByNow: Double?, verdict: Verdict, goals: [Goal], lastData: String?, requestsToday: Int
    ) {
        self.counterID = counterID
        self.counterName = counterName
        self.day = day
        self.clock = clock
        self.hours = hours
        self.visitsSoFar = visitsSoFar
        self.expectedByNow = expectedByNow
        self.verdict = verdict
        self.goals = goals
        self.lastData = lastData
        self.requestsToday = requestsToday
    }

    /// `09:00`.
    package static func hourText(_ hour: Int) -> String { (hour < 10 ? "0" : "") + String(hour) + ":00" }
}
