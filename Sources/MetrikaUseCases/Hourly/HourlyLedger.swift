import Foundation
import MetrikaModel
import MetrikaStore

/// What an hourly judgement means given what was announced before (`hourly_episodes`): each anomaly
/// is told once; while it lasts — the next run within the hour, the next hours, the next day — later
/// runs are silent; a metric that had stopped and has values again is told once ("back to normal at
/// 17:00"). Pure.
package enum HourlyLedger {
    package enum Notice: Sendable, Equatable {
        /// A new anomaly (or a different kind of one than was announced).
        case alert(AlertKind)
        /// It had stopped and has values again from `hour` on (today).
        case backToNormal(HourlyEpisode, hour: Int)
    }

    package enum Change: Sendable, Equatable {
        case none
        case open(HourlyEpisode)
        case touch(HourlyEpisode)
        case close(counterID: Int, metric: String)
    }

    /// Decides for one metric. `judgement` nil (nothing finished, no baseline) changes nothing;
    /// `today` is the metric's values of today's finished hours (for the hour it came back at).
    package static func decide(_ judgement: HourlyJudgement?, day: Day, today: [Double?], counterID: Int, metric: String,
                               open: HourlyEpisode?, now: Date) -> (notice: Notice?, change: Change) {
        guard let judgement else { return (nil, .none) }
        let last = judgement.hours.upperBound
        // An hour older than the one the episode last saw (a clock set back, a late run): never flap.
        if let open, (day, last) < (open.lastDay, open.lastHour) { return (nil, .none) }
        // A stopped metric with values again at the last finished hour is back, whatever the window of
        // the last hours says: its zeros still pull that window down (0 + 0 + 100 reads as a drop), and
        // telling a drop would both cry wolf and swallow the recovery.
        if let open, open.kind == AlertKind.stopped.rawValue, judgement.kind != .stopped,
           last < today.count, let latest = today[last], latest > 0 {
            return (.backToNormal(open, hour: backHour(open: open, day: day, last: last, today: today)), .close(counterID: counterID, metric: metric))
        }
        if let kind = judgement.kind {
            if let open, open.kind == kind.rawValue {
                var moved = open
                (moved.lastDay, moved.lastHour) = (day, last)
                return (nil, .touch(moved))
            }
            let episode = HourlyEpisode(counterID: counterID, metric: metric, kind: kind.rawValue, day: day, sinceHour: judgement.hours.lowerBound,
                                        lastDay: day, lastHour: last, value: judgement.value, expected: judgement.expected, notifiedAt: now)
            return (.alert(kind), .open(episode))
        }
        guard let open else { return (nil, .none) }
        guard open.kind == AlertKind.stopped.rawValue else { return (nil, .close(counterID: counterID, metric: metric)) }
        // Still zero at the last finished hour (a night whose zeros are usual): not back yet.
        guard last < today.count, let latest = today[last], latest > 0 else {
            var moved = open
            (moved.lastDay, moved.lastHour) = (day, last)
            return (nil, .touch(moved))
        }
        return (.backToNormal(open, hour: backHour(open: open, day: day, last: last, today: today)), .close(counterID: counterID, metric: metric))
    }

    /// Back from the first hour with values after the zeros (today's, or midnight's if it stopped earlier).
    private static func backHour(open: HourlyEpisode, day: Day, last: Int, today: [Double?]) -> Int {
        let from = open.day == day ? open.sinceHour : 0
        var back = last
        while back > from, back - 1 < today.count, let earlier = today[back - 1], earlier > 0 { back -= 1 }
        return back
    }
}
