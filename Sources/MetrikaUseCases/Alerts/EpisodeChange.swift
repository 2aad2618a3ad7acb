import Foundation
import MetrikaStore

/// What a run's decision changes in the episodes of either grain (days: `AlertLedger`, hours:
/// `HourlyLedger`): the one family's change, claimed and recorded the same way for both.
package enum EpisodeChange<Episode: Sendable & Equatable>: Sendable, Equatable {
    case none
    case open(Episode)
    case touch(Episode)
    case close(counterID: Int, metric: String)

    /// `changes` sorted for the store's one-transaction record: opened, touched, closed.
    package static func split(_ changes: [EpisodeChange]) -> (opened: [Episode], touched: [Episode], closed: [(counterID: Int, metric: String)]) {
        var opened: [Episode] = []
        var touched: [Episode] = []
        var closed: [(counterID: Int, metric: String)] = []
        for change in changes {
            switch change {
            case .none: break
            case .open(let episode): opened.append(episode)
            case .touch(let episode): touched.append(episode)
            case .close(let counterID, let metric): closed.append((counterID, metric))
            }
        }
        return (opened, touched, closed)
    }

    /// Of `findings` whose news is `news` (nil: nothing to claim), those this run may tell — without
    /// news, or whose claim it won (`won`, one per non-nil news, nil where another run won) — and
    /// the won claims. The same for days and hours.
    package static func keepWon<Finding>(_ findings: [Finding], news: [EpisodeNews<Episode>?], won: [EpisodeClaim<Episode>?])
        -> (kept: [Finding], claims: [EpisodeClaim<Episode>]) {
        var claims: [EpisodeClaim<Episode>] = []
        var kept: [Finding] = []
        var next = 0
        for (finding, news) in zip(findings, news) {
            guard news != nil else {
                kept.append(finding)
                continue
            }
            defer { next += 1 }
            guard next < won.count, let claim = won[next] else { continue }
            claims.append(claim)
            kept.append(finding)
        }
        return (kept, claims)
    }
}
