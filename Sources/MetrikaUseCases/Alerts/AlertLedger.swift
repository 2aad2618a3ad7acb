import Foundation
import MetrikaModel
import MetrikaStore

/// What a judgement means given what was announced before: each anomaly is told once, while it lasts
/// later runs stay silent, and a metric that comes back after `stopped` is told once more. Pure.
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
        /// It had stopped (since the episode's first day) and has values again.
        case backToNormal(AlertEpisode)

        /// The same kind of news: the same kind of anomaly, or both back to normal.
        package func sameKind(as other: Notice) -> Bool {
            switch (self, other) {
            case (.alert(let a), .alert(let b)): return a == b
            case (.backToNormal, .backToNormal): return true
            default: return false
            }
        }
    }

    /// What to remember.

    /// Decides for `judgement` of `metric` of counter `counterID`, given its open episode.
    package static func decide(_ judgement: AlertJudgement, counterID: Int, metric: String, open: AlertEpisode?, now: Date) -> (notice: Notice?, change: EpisodeChange) {
        // A day older than the one the episode last saw (a clock set back): never flap over it.
        if let open, judgement.day < open.lastDay { return (nil, .none) }
        if let kind = judgement.kind {
            if let open, open.kind == kind.rawValue {
                var moved = open
                moved.lastDay = judgement.day
                moved.lastValue = judgement.value
                moved.lastExpected = judgement.expected
                return (nil, .touch(moved))
            }
            let episode = AlertEpisode(counterID: counterID, metric: metric, kind: kind.rawValue, since: judgement.since ?? judgement.day,
                                       lastDay: judgement.day, value: judgement.value, expected: judgement.expected, notifiedAt: now)
            return (.alert(kind), .open(episode))
        }
        guard let open else { return (nil, .none) }
        if open.kind == AlertKind.stopped.rawValue {
            // Still zero, though no longer unusual against a baseline the zeros now fill: not back yet.
            guard judgement.value > 0 else {
                var moved = open
                moved.lastDay = judgement.day
                moved.lastValue = judgement.value
                moved.lastExpected = judgement.expected
                return (nil, .touch(moved))
            }
            return (.backToNormal(open), .close(counterID: counterID, metric: metric))
        }
        return (nil, .close(counterID: counterID, metric: metric))
    }

    /// The news a decision tells, to claim before telling it: the episode a new anomaly opens, or
    /// the one a metric back to normal closes; nil for a silent change.
    package static func news(_ notice: Notice?, _ change: EpisodeChange) -> AlertNews? {
        switch (notice, change) {
        case (.alert?, .open(let episode)): return .open(episode)
        case (.backToNormal(let episode)?, .close): return .close(episode)
        default: return nil
        }
    }
}
