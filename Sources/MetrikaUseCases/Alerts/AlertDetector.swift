import Foundation
import MetrikaModel
import MetrikaStore

/// What `metrika alert` checks and how sure it must be before it speaks. The defaults need no
/// configuration; the config file's `"alerts"` member may change each (docs/alerts.md).
package struct AlertSettings: Sendable, Equatable {
    /// Same-weekday days the baseline looks back over (the median of these).
    package var weeks = 6
    /// Fewer same-weekday days with history than this: the metric is not judged at all.
    package var minimumWeeks = 4
    /// How far the day must be from the expected value, in percent: a drop keeps at most
    /// `100 - minimumChange` % of it, a rise reaches at least `100 / (1 - minimumChange/100)` % (the
    /// same ratio the other way: 40 means ×0.6 or ×1.67).
    package var minimumChangePercent = 40.0
    /// How unusual the day must be: its distance from the baseline on the square-root scale, in
    /// standard deviations of Poisson noise plus the baseline's own robust spread.
    package var minimumScore = 4.0
    /// The counters' own metrics to check (counts only); goals come on top with `checkGoals`.
    package var metrics: [Metric] = [.visits]
    /// Whether every goal's reaches are checked too.
    package var checkGoals = true
    /// Whether a shop's purchases and revenue are checked too (a counter with purchases in the
    /// loaded weeks; others cost no request more).
    package var checkShop = true
    /// Counters never checked.
    package var skippedCounters: Set<Int> = []

    package init() {}

    /// The ratio at or below which a day is low enough to be a drop (0.6 for 40 %).
    package var dropRatio: Double { max(0, 1 - minimumChangePercent / 100) }
    /// The ratio at or above which a day is high enough to be a rise (1/0.6 ≈ 1.67 for 40 %).
    package var riseRatio: Double { dropRatio > 0 ? 1 / dropRatio : .infinity }
}

/// The three things `metrika alert` reports.
package enum AlertKind: String, Sendable, Equatable, CaseIterable {
    /// Far below the same weekday of earlier weeks.
    case drop
    /// Far above it (a bot wave, a mention somewhere).
    case rise
    /// Zero where it never is: the tracking code or the goal is broken.
    case stopped
}

/// One metric judged against its baseline, over a grain: a day against the same weekday of earlier
/// weeks, or today's last finished hours against the same hours of the same weekday.
package struct AlertJudgement: Sendable, Equatable {
    /// The judged day (the hour grain: today in the counter's time zone).
    package var day: Day
    /// The hour grain's judged hours (local, `first...last`): the run of zeros for `stopped`, else the
    /// last finished hours (up to `AlertDetector.HourRule.window`); nil for a day. `last` is an hour
    /// of `day`; `first` below 0 is an hour of the day before (`-1`: its 23:00), as the window reaches
    /// back across midnight.
    package var hours: ClosedRange<Int>? = nil
    /// The day's value (hours: today's total over `hours`), and the median of the same weekday over the
    /// baseline weeks (hours: the sum of each hour's median).
    package var value: Double
    package var expected: Double
    /// How many same-weekday days the baseline had (the day grain).
    package var baselineDays = 0
    /// Distance from the baseline in robust standard deviations (negative: below).
    package var score: Double
    /// nil: an ordinary day (or hours).
    package var kind: AlertKind?
    /// For a day's `stopped`: the first day of the run of zeros (the hour grain's is `sinceHour`).
    package var since: Day?
    /// For an hour's `stopped`: the hour before the zeros is unknown (not stored, offline), so they
    /// may have begun earlier than `sinceHour`.
    package var sinceOrEarlier = true

    /// What was judged: a day, or hours of one.
    package var grain: AlertEpisode.Grain { hours == nil ? .day : .hour }

    /// The hour grain's first judged hour ("stopped at 14:00", `0...23`); nil for a day.
    package var sinceHour: Int? { hours.map { ($0.lowerBound % 24 + 24) % 24 } }

    /// The day of the first judged hour: `day`, or an earlier one when the hours began before midnight.
    package var sinceDay: Day {
        guard let first = hours?.lowerBound, first < 0 else { return day }
        return day.adding(days: -((-first + 23) / 24))
    }

    /// This hour judgement over a series of several days (`hours` counted from the first day's
    /// midnight, `day` that first day) as one on the day of its last hour.
    package func endingOnItsLastDay() -> AlertJudgement {
        guard let hours, hours.upperBound >= 24 else { return self }
        let days = hours.upperBound / 24
        var moved = self
        moved.day = day.adding(days: days)
        moved.hours = (hours.lowerBound - 24 * days)...(hours.upperBound - 24 * days)
        return moved
    }

    /// The relative change against the expected value, in percent; nil when nothing was expected.
    package var changePercent: Double? {
        expected > 0 ? (value - expected) / expected * 100 : nil
    }
}

/// Judges a count metric against the same weekday of the previous weeks, over a grain: a day, or
/// today's last finished hours. Pure: the series in, the judgement out (docs/alerts.md says why these
/// statistics).
///
/// - Baseline: the median of the same weekday over `weeks` earlier weeks, so a quiet Sunday is
///   compared with Sundays and one odd week (a holiday, an earlier bot wave) cannot move it; an hour's
///   is the median of the same hour on those days.
/// - Noise: counts of independent events are Poisson-like, whose square root has a standard
///   deviation of about ½ whatever the mean; real traffic varies more, so the baseline's own spread
///   (1.4826 × the median absolute deviation of the square roots, a robust standard deviation) is
///   added. A goal reached 2 times a day that reaches 0 scores about −2.8 (noise); 25 a day that
///   reaches 0 scores −10 (an alert).
/// - A change is reported only when it is large both relatively (`minimumChangePercent`) and
///   statistically (`minimumScore`).
/// - Hours (docs/alerts.md, "Hourly"): only finished hours count. `stopped` is the last finished
///   hours at 0 (at least `HourRule.minimumStoppedHours`) where every known earlier week had some, and
///   together they were expected to hold at least `HourRule.minimumStoppedExpected` (a Poisson count
///   with that mean is 0 once in e⁸ ≈ 3,000 times); hours at night, where zeros happen, never stop.
///   A drop or a rise is the last `HourRule.window` finished hours together against their baselines
///   together, whose baseline must expect at least `HourRule.minimumExpected`, so a small site's
///   night is never judged on noise.
package enum AlertDetector {
    /// Judges `day` in `values` (a count per day; a missing day is unknown, not zero). nil when the
    /// day itself is unknown or fewer than `minimumWeeks` same-weekday days are known.
    /// Money (revenue) is judged in orders' worth: `unitSize` is the typical order, so that a day's
    /// revenue is about "how many orders" and its noise the orders' (Poisson-like) noise; the judgement
    /// comes back in money.
    package static func judge(_ values: [Day: Double], day: Day, settings: AlertSettings, unitSize: Double)
        -> AlertJudgement?
    {
        guard unitSize > 0, unitSize.isFinite else { return nil }
        guard var judgement = judge(values.mapValues { $0 / unitSize }, day: day, settings: settings) else {
            return nil
        }
        judgement.value = values[day] ?? judgement.value * unitSize
        judgement.expected *= unitSize
        return judgement
    }

    package static func judge(_ values: [Day: Double], day: Day, settings: AlertSettings) -> AlertJudgement? {
        guard let value = values[day], value.isFinite, value >= 0 else { return nil }
        let baseline = (1...max(1, settings.weeks)).compactMap { week -> Double? in
            guard let past = values[day.adding(days: -7 * week)], past.isFinite, past >= 0 else { return nil }
            return past
        }
        guard baseline.count >= max(1, settings.minimumWeeks) else { return nil }
        let expected = median(baseline)
        let score = Self.score(value, expected: expected, samples: baseline)
        var judgement = AlertJudgement(
            day: day, value: value, expected: expected, baselineDays: baseline.count, score: score,
            kind: Self.kind(value, expected: expected, score: score, settings: settings))
        if judgement.kind == .drop, value == 0, let since = stoppedSince(values, day: day) {
            judgement.kind = .stopped
            judgement.since = since
        }
        return judgement
    }

    /// The distance of `value` from `expected` on the square-root scale, in standard deviations of
    /// Poisson noise (½) plus the robust spread of the baseline's `samples` around it (none: noise only).
    static func score(_ value: Double, expected: Double, samples: [Double]) -> Double {
        let center = expected.squareRoot()
        let spread = 1.4826 * median(samples.map { abs($0.squareRoot() - center) })
        return (value.squareRoot() - center) / (0.25 + spread * spread).squareRoot()
    }

    /// A drop or a rise when `value` is far from `expected` both relatively and by `score`; else nil.
    static func kind(_ value: Double, expected: Double, score: Double, settings: AlertSettings) -> AlertKind? {
        if value <= expected * settings.dropRatio, score <= -settings.minimumScore { return .drop }
        if expected > 0, value >= expected * settings.riseRatio, score >= settings.minimumScore { return .rise }
        return nil
    }

    /// The first day of the run of zeros that ends on `day`, when the four weeks before it had no
    /// zero at all (and at least two weeks of them are known): zero where there never is. nil when
    /// zeros happen there anyway (a tiny goal, a site closed on Sundays): that is a drop, not a stop.
    package static func stoppedSince(_ values: [Day: Double], day: Day) -> Day? {
        var start = day
        while let earlier = values[start.adding(days: -1)], earlier == 0, start.days(to: day) < 366 {
            start = start.adding(days: -1)
        }
        let before = (1...28).compactMap { values[start.adding(days: -$0)] }
        guard before.count >= 14, before.allSatisfy({ $0 > 0 }) else { return nil }
        return start
    }

    /// The hour grain's thresholds.
    package enum HourRule {
        /// Finished hours judged together for a drop or a rise.
        package static let window = 3
        /// Fewer earlier weeks known for an hour: it has no baseline.
        package static let minimumWeeks = 3
        /// The least expected count of the window for a drop or rise to be judged at all.
        package static let minimumExpected = 20.0
        /// A stop: at least this many zero hours, expected to hold at least `minimumStoppedExpected`.
        package static let minimumStoppedHours = 2
        package static let minimumStoppedExpected = 8.0
    }

    /// Judges one metric's `day` (today) hour by hour: `today[hour]` for hours `0..<finishedHours` (nil:
    /// unknown), `weeks[week][hour]` the same hours of earlier weeks (nil: unknown). The series may run
    /// past 24 hours (the alert check passes yesterday's and today's: hour 24 is the next day's 00:00). nil when nothing
    /// can be judged (no finished hour, the last hours unknown or without a baseline, a baseline too
    /// small to judge).
    package static func judge(
        day: Day, today: [Double?], finishedHours: Int, weeks: [[Double?]], settings: AlertSettings
    ) -> AlertJudgement? {
        let finished = min(finishedHours, today.count)
        guard finished > 0 else { return nil }
        func earlier(_ hour: Int) -> [Double] {
            weeks.compactMap { hour < $0.count ? $0[hour] : nil }.filter { $0.isFinite && $0 >= 0 }
        }
        func known(_ hour: Int) -> Double? {
            guard let value = today[hour], value.isFinite, value >= 0 else { return nil }
            return value
        }
        // The trailing run of zeros, for `stopped`.
        var first = finished
        while first > 0, known(first - 1) == 0 { first -= 1 }
        let zeroHours = first..<finished
        let startUnknown = first == 0 || known(first - 1) == nil
        if zeroHours.count >= HourRule.minimumStoppedHours {
            let expecting = zeroHours.filter { hour in
                let past = earlier(hour)
                return past.count >= HourRule.minimumWeeks && past.allSatisfy { $0 > 0 }
            }
            let expected = zeroHours.reduce(0.0) { sum, hour in
                let past = earlier(hour)
                return sum + (past.count >= HourRule.minimumWeeks ? median(past) : 0)
            }
            if expecting.count >= HourRule.minimumStoppedHours, expected >= HourRule.minimumStoppedExpected {
                return AlertJudgement(
                    day: day, hours: zeroHours.lowerBound...(finished - 1), value: 0, expected: expected,
                    score: -2 * expected.squareRoot(), kind: .stopped, sinceOrEarlier: startUnknown)
            }
        }
        // Drop or rise: the last `window` finished hours together.
        let hours = max(0, finished - HourRule.window)...(finished - 1)
        var value = 0.0
        var expected = 0.0
        var weekSums = Array(repeating: 0.0, count: weeks.count)
        var weekKnown = Array(repeating: true, count: weeks.count)
        for hour in hours {
            guard let today = known(hour) else { return nil }
            let past = earlier(hour)
            guard past.count >= HourRule.minimumWeeks else { return nil }
            value += today
            expected += median(past)
            for (index, week) in weeks.enumerated() {
                if hour < week.count, let number = week[hour], number.isFinite, number >= 0 {
                    weekSums[index] += number
                } else {
                    weekKnown[index] = false
                }
            }
        }
        guard expected >= HourRule.minimumExpected else { return nil }
        let sums = zip(weekSums, weekKnown).filter(\.1).map(\.0)
        let score = Self.score(value, expected: expected, samples: sums.count >= HourRule.minimumWeeks ? sums : [])
        // Only the last hour at 0: a stop beginning, or one empty hour; the next hour tells which, so
        // it is not told as a drop now (and as a stop an hour later).
        let waits = zeroHours.count == 1 && HourRule.minimumStoppedHours > 1
        let kind = waits ? nil : Self.kind(value, expected: expected, score: score, settings: settings)
        return AlertJudgement(day: day, hours: hours, value: value, expected: expected, score: score, kind: kind)
    }

    /// The median (the mean of the middle two for an even count); 0 for none.
    package static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
