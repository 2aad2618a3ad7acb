import Foundation
import MetrikaModel
import MetrikaStore

/// What an hourly judgement means given what was announced before (`alert_episodes`, the hour grain): each anomaly
/// is told once; while it lasts — the next run within the hour, the next hours, the next day — later
/// runs are silent; a metric that had stopped and has values again is told once ("back to normal at
/// 17:00"). Pure.
package enum HourlyLedger {
    package enum Notice: Sendable, Equatable {
        /// A new anomaly (or a different kind of one than was announced).
        case alert(AlertKind)
        /// It had stopped and has values again from `hour` on (today).
        case backToNormal(AlertEpisode, hour: Int)
    }


    /// Decides for one metric. `judgement` nil (nothing finished, no baseline) changes nothing;
    /// `today` is the metric's values of today's finished hours (for the hour it came back at).
    /// An open episode is one anomaly however long it lasts, across midnight too (issue 40): a stop
    /// stays open while its metric is still at zero, whatever today's few hours after midnight make
    /// of it (a `drop` over one zero hour, a stop "since midnight"); a drop or a rise stays open while
    /// the change is still as large, though a quiet night's small counts no longer prove it.
    package static func decide(_ judgement: HourlyJudgement?, day: Day, today: [Double?], counterID: Int, metric: String,
                               open: AlertEpisode?, now: Date, settings: AlertSettings = AlertSettings()) -> (notice: Notice?, change: EpisodeChange) {
        guard let judgement else { return (nil, .none) }
        let last = judgement.hours.upperBound
        // An hour older than the one the episode last saw (a clock set back, a late run): never flap.
        if let open, (day, last) < (open.lastDay, open.lastHour) { return (nil, .none) }
        func touched(_ open: AlertEpisode) -> EpisodeChange {
            var moved = open
            (moved.lastDay, moved.lastHour) = (day, last)
            return .touch(moved)
        }
        if let open, open.kind == AlertKind.stopped.rawValue {
            // A stopped metric with values again at the last finished hour is back, whatever the window
            // of the last hours says: its zeros still pull that window down (0 + 0 + 100 reads as a
            // drop), and telling a drop would both cry wolf and swallow the recovery.
            if judgement.kind != .stopped, last < today.count, let latest = today[last], latest > 0 {
                return (.backToNormal(open, hour: backHour(open: open, day: day, last: last, today: today)), .close(counterID: counterID, metric: metric))
            }
            // Still zero at the last finished hour (a night, the first hours after midnight): the same stop.
            return (nil, touched(open))
        }
        if let kind = judgement.kind {
            if let open, open.kind == kind.rawValue { return (nil, touched(open)) }
            let episode = AlertEpisode(counterID: counterID, metric: metric, kind: kind.rawValue, day: day, sinceHour: judgement.hours.lowerBound,
                                        lastDay: day, lastHour: last, value: judgement.value, expected: judgement.expected, notifiedAt: now)
            return (.alert(kind), .open(episode))
        }
        guard let open else { return (nil, .none) }
        // Judged as usual only because the counts are too small to prove the change (a night): still
        // as far off as the threshold, so the same drop (or rise) goes on.
        let stillOff = open.kind == AlertKind.drop.rawValue ? judgement.value <= judgement.expected * settings.dropRatio
            : open.kind == AlertKind.rise.rawValue && judgement.value >= judgement.expected * settings.riseRatio
        return (nil, stillOff ? touched(open) : .close(counterID: counterID, metric: metric))
    }

    /// Back from the first hour with values after the zeros (today's, or midnight's if it stopped earlier).
    private static func backHour(open: AlertEpisode, day: Day, last: Int, today: [Double?]) -> Int {
        let from = open.since == day ? open.sinceHour : 0
        var back = last
        while back > from, back - 1 < today.count, let earlier = today[back - 1], earlier > 0 { back -= 1 }
        return back
    }
}
