import Foundation
import MetrikaModel

/// One metric of one counter's today judged hour by hour against the same hours of the same weekday
/// of earlier weeks (`HourlyDetector`).
package struct HourlyJudgement: Sendable, Equatable {
    /// The judged hours (local, `first...last`): the run of zeros for `stopped`, else the last
    /// finished hours (up to `HourlyDetector.window`).
    package var hours: ClosedRange<Int>
    /// Today's total over those hours, and the sum of their baselines (medians).
    package var value: Double
    package var expected: Double
    /// Distance from the baseline in robust standard deviations (negative: below).
    package var score: Double
    /// nil: as usual.
    package var kind: AlertKind?

    /// The first hour of `stopped` ("stopped at 14:00").
    package var since: Int { hours.lowerBound }

    /// The relative change in percent; nil when nothing was expected.
    package var changePercent: Double? {
        expected > 0 ? (value - expected) / expected * 100 : nil
    }
}

/// The hourly judgement. Pure: hours in, a judgement out (docs/alerts.md, "Hourly").
///
/// - Only finished hours count: the running hour's numbers are incomplete, and an hour that has not
///   happened has none. With no finished hour there is nothing to judge.
/// - Baseline of an hour: the median of the same hour on the same weekday of earlier weeks (at least
///   `minimumWeeks` of them known), so a quiet night or a Sunday morning is compared with its like.
/// - `stopped`: the last finished hours are 0 (at least `minimumStoppedHours` of them) where every
///   known earlier week had some, and together they were expected to hold at least
///   `minimumStoppedExpected` (a Poisson count with that mean is 0 once in e⁸ ≈ 3,000 times): the
///   tracking code or the goal broke at `since`. Hours at night, where zeros happen, never stop.
/// - `drop` / `rise`: the last `window` finished hours together against their baselines together, with
///   the daily check's two tests (relatively `minimumChangePercent`, statistically `minimumScore` on
///   the square-root scale with the baseline weeks' own spread); their baseline must expect at least
///   `minimumExpected`, so a small site's night is never judged on noise.
package enum HourlyDetector {
    /// Finished hours judged together for a drop or a rise.
    package static let window = 3
    /// Fewer earlier weeks known for an hour: it has no baseline.
    package static let minimumWeeks = 3
    /// The least expected count of the window for a drop or rise to be judged at all.
    package static let minimumExpected = 20.0
    /// A stop: at least this many zero hours, expected to hold at least `minimumStoppedExpected`.
    package static let minimumStoppedHours = 2
    package static let minimumStoppedExpected = 8.0

    /// Judges one metric: `today[hour]` for hours `0..<finishedHours` (nil: unknown), `weeks[week][hour]`
    /// the same hours of earlier weeks (nil: unknown). nil when nothing can be judged (no finished
    /// hour, the last hours unknown or without a baseline, a baseline too small to judge).
    package static func judge(today: [Double?], finishedHours: Int, weeks: [[Double?]], settings: AlertSettings) -> HourlyJudgement? {
        let finished = min(finishedHours, today.count, 24)
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
        if zeroHours.count >= minimumStoppedHours {
            let expecting = zeroHours.filter { hour in
                let past = earlier(hour)
                return past.count >= minimumWeeks && past.allSatisfy { $0 > 0 }
            }
            let expected = zeroHours.reduce(0.0) { sum, hour in
                let past = earlier(hour)
                return sum + (past.count >= minimumWeeks ? AlertDetector.median(past) : 0)
            }
            if expecting.count >= minimumStoppedHours, expected >= minimumStoppedExpected {
                return HourlyJudgement(hours: zeroHours.lowerBound...(finished - 1), value: 0, expected: expected,
                                       score: -2 * expected.squareRoot(), kind: .stopped)
            }
        }
        // Drop or rise: the last `window` finished hours together.
        let hours = max(0, finished - window)...(finished - 1)
        var value = 0.0
        var expected = 0.0
        var weekSums = Array(repeating: 0.0, count: weeks.count)
        var weekKnown = Array(repeating: true, count: weeks.count)
        for hour in hours {
            guard let today = known(hour) else { return nil }
            let past = earlier(hour)
            guard past.count >= minimumWeeks else { return nil }
            value += today
            expected += AlertDetector.median(past)
            for (index, week) in weeks.enumerated() {
                if hour < week.count, let number = week[hour], number.isFinite, number >= 0 { weekSums[index] += number } else { weekKnown[index] = false }
            }
        }
        guard expected >= minimumExpected else { return nil }
        let sums = zip(weekSums, weekKnown).filter(\.1).map(\.0)
        let center = expected.squareRoot()
        let spread = sums.count >= minimumWeeks ? 1.4826 * AlertDetector.median(sums.map { abs($0.squareRoot() - center) }) : 0
        let score = (value.squareRoot() - center) / (0.25 + spread * spread).squareRoot()
        var judgement = HourlyJudgement(hours: hours, value: value, expected: expected, score: score)
        if value <= expected * settings.dropRatio, score <= -settings.minimumScore {
            judgement.kind = .drop
        } else if value >= expected * settings.riseRatio, score >= settings.minimumScore {
            judgement.kind = .rise
        }
        return judgement
    }

    /// `14:00` for 14.
    package static func hourName(_ hour: Int) -> String {
        hour < 10 ? "0\(hour):00" : "\(hour):00"
    }
}
