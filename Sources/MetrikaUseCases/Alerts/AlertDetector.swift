import Foundation
import MetrikaModel

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

/// One metric of one day judged against its baseline.
package struct AlertJudgement: Sendable, Equatable {
    package var day: Day
    package var value: Double
    /// The median of the same weekday over the baseline weeks.
    package var expected: Double
    /// How many same-weekday days the baseline had.
    package var baselineDays: Int
    /// Distance from the baseline in robust standard deviations (negative: below).
    package var score: Double
    /// nil: an ordinary day.
    package var kind: AlertKind?
    /// For `stopped`: the first day of the run of zeros.
    package var since: Day?

    /// The relative change against the expected value, in percent; nil when nothing was expected.
    package var changePercent: Double? {
        expected > 0 ? (value - expected) / expected * 100 : nil
    }
}

/// Judges a day of a count metric against the same weekday of the previous weeks. Pure: the series
/// in, the judgement out (docs/alerts.md says why these statistics).
///
/// - Baseline: the median of the same weekday over `weeks` earlier weeks, so a quiet Sunday is
///   compared with Sundays and one odd week (a holiday, an earlier bot wave) cannot move it.
/// - Noise: counts of independent events are Poisson-like, whose square root has a standard
///   deviation of about ½ whatever the mean; real traffic varies more, so the baseline's own spread
///   (1.4826 × the median absolute deviation of the square roots, a robust standard deviation) is
///   added. A goal reached 2 times a day that reaches 0 scores about −2.8 (noise); 25 a day that
///   reaches 0 scores −10 (an alert).
/// - A change is reported only when it is large both relatively (`minimumChangePercent`) and
///   statistically (`minimumScore`).
package enum AlertDetector {
    /// Judges `day` in `values` (a count per day; a missing day is unknown, not zero). nil when the
    /// day itself is unknown or fewer than `minimumWeeks` same-weekday days are known.
    /// Money (revenue) is judged in orders' worth: `unitSize` is the typical order, so that a day's
    /// revenue is about "how many orders" and its noise the orders' (Poisson-like) noise; the judgement
    /// comes back in money.
    package static func judge(_ values: [Day: Double], day: Day, settings: AlertSettings, unitSize: Double) -> AlertJudgement? {
        guard unitSize > 0, unitSize.isFinite else { return nil }
        guard var judgement = judge(values.mapValues { $0 / unitSize }, day: day, settings: settings) else { return nil }
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
        let center = expected.squareRoot()
        let spread = 1.4826 * median(baseline.map { abs($0.squareRoot() - center) })
        let deviation = (0.25 + spread * spread).squareRoot()
        let score = (value.squareRoot() - center) / deviation
        var judgement = AlertJudgement(day: day, value: value, expected: expected, baselineDays: baseline.count, score: score)
        if value <= expected * settings.dropRatio, score <= -settings.minimumScore {
            judgement.kind = .drop
            if value == 0, let since = stoppedSince(values, day: day) {
                judgement.kind = .stopped
                judgement.since = since
            }
        } else if expected > 0, value >= expected * settings.riseRatio, score >= settings.minimumScore {
            judgement.kind = .rise
        }
        return judgement
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

    /// The median (the mean of the middle two for an even count); 0 for none.
    package static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
