import Foundation
import MetrikaStore

/// What a run's decision (`AlertLedger`) changes in the episodes of either grain (days or hours):
/// the one family's change, claimed, given back and recorded the same way for both
/// (`claim`, `release`, `record` below, over the store's one table).
package enum EpisodeChange: Sendable, Equatable {
    case none
    case open(AlertEpisode)
    case touch(AlertEpisode)
    case close(counterID: Int, metric: String)

    /// `changes` sorted for the store's one-transaction record: opened, touched, closed.
    package static func split(_ changes: [EpisodeChange]) -> (
        opened: [AlertEpisode], touched: [AlertEpisode], closed: [(counterID: Int, metric: String)]
    ) {
        var opened: [AlertEpisode] = []
        var touched: [AlertEpisode] = []
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
    package static func keepWon<Finding>(_ findings: [Finding], news: [AlertNews?], won: [AlertClaim?])
        -> (kept: [Finding], claims: [AlertClaim])
    {
        var claims: [AlertClaim] = []
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

    /// Claims the news of a run's findings (either grain) in the history database (one transaction,
    /// `HistoryStore.claimNews`) before anything is told: `findings` keeps only those this run won (an
    /// overlapping run that won the others tells them), `changes` only those still to `record` after
    /// telling (claimed news is written already, and news another run won is its to write). `news`
    /// and `change` read a finding's news (nil: nothing to claim) and change. Returns the won claims,
    /// to `release` when telling fails. Never called by a dry run.
    ///
    /// `queue` makes the messages that tell the findings won (with their claims): they are written to
    /// the outbox in the claim's own transaction, so news claimed is never lost by a run that dies.
    package static func claim<Finding>(
        _ findings: inout [Finding], changes: inout [EpisodeChange], in store: HistoryStore,
        news: (Finding) -> AlertNews?, change: (Finding) -> EpisodeChange,
        queue: ([Finding], [AlertClaim]) -> [OutboxMessage] = { _, _ in [] }
    ) async throws -> [AlertClaim] {
        let told = findings.map(news)
        let all = findings
        let won: [AlertClaim?]
        if told.contains(where: { $0 != nil }) {
            won = try await store.claimNews(told.compactMap { $0 }) { won in
                let (kept, claims) = keepWon(all, news: told, won: won)
                return kept.isEmpty ? [] : queue(kept, claims)
            }.claims
        } else {
            // Nothing to claim (findings without news): queued on their own.
            won = []
            let messages = all.isEmpty ? [] : queue(all, [])
            try await store.queueOutbox(messages)
        }
        let (kept, claims) = keepWon(findings, news: told, won: won)
        let claimed = findings.filter { news($0) != nil }.map(change)
        changes.removeAll { claimed.contains($0) }
        findings = kept
        return claims
    }

    /// Gives back `claims` whose news could not be told, so that the next run tells it again.
    package static func release(_ claims: [AlertClaim], in store: HistoryStore, droppingBatch batch: String? = nil)
        async throws
    {
        try await store.releaseClaims(claims, droppingBatch: batch)
    }

    /// Remembers what a run of `grain` decided (one transaction): told anomalies stay silent from now on.
    package static func record(_ changes: [EpisodeChange], grain: AlertEpisode.Grain, in store: HistoryStore)
        async throws
    {
        let (opened, touched, closed) = split(changes)
        try await store.recordEpisodes(grain: grain, opened: opened, touched: touched, closed: closed)
    }
}
