import Foundation
import MetrikaModel
import MetrikaStore

/// What a judgement means given what was announced before, over a grain (a day's episodes, or an
/// hour's: `alert_episodes`): each anomaly is told once, while it lasts later runs stay silent (for
/// hours: the next run within the hour, the next hours, the next day), and a metric that comes back
/// after `stopped` is told once more ("back to normal", at an hour for the hour grain). Pure.
///
/// Telling is claimed: a run turns each notice into `AlertNews` (`news(_:_:)`), claims it in the history
/// database (`HistoryStore.claimNews`: one transaction, so of overlapping runs exactly one wins
/// each) and tells only what it won; when the telling fails it gives the claims back
/// (`HistoryStore.releaseClaims`) and the next run tells them again. Any check with episodes of
/// its own (one per counter and key) can use the same two calls.
package enum AlertLedger {
    /// What to tell the owner about one metric.
    package enum Notice: Sendable, Equatable {
        /// A new anomaly (or a different kind of one than was announced).
        case alert(AlertKind)
        /// It had stopped (since the episode's start) and has values again; for the hour grain, from
        /// `hour` on (today).
        case backToNormal(AlertEpisode, hour: Int? = nil)
        /// The daily check's day is the story of an hourly alert still open (`episode`): told as one
        /// line that continues it (`still stopped since 14:00 on Mon …`), once for `day`, on that alert.
        case continues(AlertEpisode, day: Day)

        /// The same kind of news: the same kind of anomaly, or both back to normal.
        package func sameKind(as other: Notice) -> Bool {
            switch (self, other) {
            case (.alert(let a), .alert(let b)): return a == b
            case (.backToNormal, .backToNormal): return true
            case (.continues, .continues): return true
            default: return false
            }
        }
    }

    /// Decides for `judgement` of `metric` of counter `counterID`, given its open episode of the
    /// judgement's grain. `judgement` nil (nothing finished, no baseline) changes nothing; `today` is
    /// the hour grain's values of the finished hours of the judgement's day (for the hour a stopped
    /// metric came back at).
    ///
    /// An hour's episode is one anomaly however long it lasts, across midnight too: a stop
    /// stays open while its metric is still at zero at the last finished hour, whatever today's few
    /// hours after midnight make of it (a `drop` over one zero hour, a stop "since midnight"); a drop
    /// or a rise stays open while the change is still as large, though a quiet night's small counts no
    /// longer prove it.
    package static func decide(
        _ judgement: AlertJudgement?, today: [Double?] = [], counterID: Int, metric: String,
        open: AlertEpisode?, now: Date,
        settings: AlertSettings = AlertSettings()
    ) -> (notice: Notice?, change: EpisodeChange) {
        guard let judgement else { return (nil, .none) }
        // A day's episode is at hour 0.
        let last = judgement.hours?.upperBound ?? 0
        // A time older than the one the episode last saw (a clock set back, a late run): never flap over it.
        if let open, (judgement.day, last) < (open.lastDay, open.lastHour) { return (nil, .none) }
        func touched(_ open: AlertEpisode) -> EpisodeChange {
            var moved = open
            (moved.lastDay, moved.lastHour) = (judgement.day, last)
            // Either grain keeps the last values measured for `--status` (an hour's: its last judged hours').
            (moved.lastValue, moved.lastExpected) = (judgement.value, judgement.expected)
            return .touch(moved)
        }
        let closed = EpisodeChange.close(counterID: counterID, metric: metric)
        if let open, open.kind == AlertKind.stopped.rawValue, judgement.hours != nil {
            // A stopped metric with values again at the last finished hour is back, whatever the window
            // of the last hours says: its zeros still pull that window down (0 + 0 + 100 reads as a
            // drop), and telling a drop would both cry wolf and swallow the recovery.
            if judgement.kind != .stopped, last < today.count, let latest = today[last], latest > 0 {
                let hour = backHour(open: open, day: judgement.day, last: last, today: today)
                return (.backToNormal(open, hour: hour), closed)
            }
            // Still zero at the last finished hour (a night, the first hours after midnight): the same stop.
            return (nil, touched(open))
        }
        if let kind = judgement.kind {
            if let open, open.kind == kind.rawValue { return (nil, touched(open)) }
            let episode: AlertEpisode
            if let hours = judgement.hours {
                // Hours that began before midnight: the episode starts on that day.
                episode = AlertEpisode(
                    counterID: counterID, metric: metric, kind: kind.rawValue, day: judgement.sinceDay,
                    sinceHour: judgement.sinceHour ?? max(0, hours.lowerBound), lastDay: judgement.day, lastHour: last,
                    value: judgement.value, expected: judgement.expected, notifiedAt: now)
            } else {
                episode = AlertEpisode(
                    counterID: counterID, metric: metric, kind: kind.rawValue,
                    since: judgement.since ?? judgement.day,
                    lastDay: judgement.day, value: judgement.value, expected: judgement.expected, notifiedAt: now)
            }
            return (.alert(kind), .open(episode))
        }
        guard let open else { return (nil, .none) }
        if open.kind == AlertKind.stopped.rawValue {
            // A day still at zero, though no longer unusual against a baseline the zeros now fill: not back yet.
            guard judgement.value > 0 else { return (nil, touched(open)) }
            return (.backToNormal(open), closed)
        }
        // Hours judged as usual only because the counts are too small to prove the change (a night):
        // still as far off as the threshold, so the same drop (or rise) goes on.
        let (value, expected) = (judgement.value, judgement.expected)
        let stillOff =
            judgement.hours != nil
            && (open.kind == AlertKind.drop.rawValue
                ? value <= expected * settings.dropRatio
                : open.kind == AlertKind.rise.rawValue && value >= expected * settings.riseRatio)
        return (nil, stillOff ? touched(open) : closed)
    }

    /// Back from the first hour with values after the zeros (today's, or midnight's if it stopped earlier).
    private static func backHour(open: AlertEpisode, day: Day, last: Int, today: [Double?]) -> Int {
        let from = open.since == day ? open.sinceHour : 0
        var back = last
        while back > from, back - 1 < today.count, let earlier = today[back - 1], earlier > 0 { back -= 1 }
        return back
    }

    /// The news a decision tells, to claim before telling it: the episode a new anomaly opens, or
    /// the one a metric back to normal closes; nil for a silent change.
    package static func news(_ notice: Notice?, _ change: EpisodeChange) -> AlertNews? {
        switch (notice, change) {
        case (.alert?, .open(let episode)): return .open(episode)
        case (.backToNormal(let episode, _)?, .close): return .close(episode)
        case (.continues(let episode, let day)?, _): return .continueStory(episode, day: day)
        default: return nil
        }
    }
}
