import Foundation
import MetrikaModel

/// What `metrika alert` remembers in the history database: the open episodes (tables
/// `alert_episodes`) and each counter's goals as last read (`counter_goals`, `counter_goals_read`).
extension HistoryStore {
    /// Runs `body` in one transaction holding the lock, translating SQLite's errors.
    private func alertTransaction<T: Sendable>(_ body: (Database) throws -> T) async throws -> T {
        try await withLock { database in try database.inTransaction { try body(database) } }
    }

    // MARK: - Episodes

    private static let episodeColumns = "id, counter_id, metric, kind, since, last_day, value, expected, notified_at, last_value, last_expected"

    private static func episode(_ row: [SQLiteValue]) -> AlertEpisode? {
        guard let id = row[0].int, let counterID = row[1].int, let metric = row[2].string, let kind = row[3].string,
              let since = row[4].string.flatMap(Day.init(iso:)), let last = row[5].string.flatMap(Day.init(iso:)),
              let value = row[6].double, let expected = row[7].double, let notified = row[8].double else { return nil }
        return AlertEpisode(id: id, counterID: counterID, metric: metric, kind: kind, since: since, lastDay: last, value: value, expected: expected,
                            notifiedAt: Date(timeIntervalSince1970: notified), lastValue: row[9].double, lastExpected: row[10].double)
    }

    /// The open episode of `counterID`'s `metric`, read inside the caller's transaction.
    private static func openEpisode(_ database: Database, counterID: Int, metric: String) throws -> AlertEpisode? {
        try database.rows("SELECT \(episodeColumns) FROM alert_episodes WHERE counter_id = ? AND metric = ?",
                          [.integer(Int64(counterID)), .text(metric)]).first.flatMap(episode)
    }

    /// Writes `episode` in place of any of its counter and metric: a new id, unless it carries one
    /// (an episode put back by a release keeps its id).
    private static func insert(_ episode: AlertEpisode, _ database: Database) throws {
        try database.execute("""
            INSERT OR REPLACE INTO alert_episodes (id, counter_id, metric, kind, since, last_day, value, expected, notified_at, last_value, last_expected)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [episode.id.map { .integer(Int64($0)) } ?? .null, .integer(Int64(episode.counterID)), .text(episode.metric), .text(episode.kind),
             .text(episode.since.iso), .text(episode.lastDay.iso), .real(episode.value), .real(episode.expected),
             .real(episode.notifiedAt.timeIntervalSince1970), episode.lastValue.map { .real($0) } ?? .null, episode.lastExpected.map { .real($0) } ?? .null])
    }

    /// The open episodes of a counter, by metric API name.
    package func openAlertEpisodes(counterID: Int) async throws -> [String: AlertEpisode] {
        let rows = try await alertTransaction { database in
            try database.rows("SELECT \(Self.episodeColumns) FROM alert_episodes WHERE counter_id = ?", [.integer(Int64(counterID))])
        }
        var result: [String: AlertEpisode] = [:]
        for episode in rows.compactMap(Self.episode) { result[episode.metric] = episode }
        return result
    }

    /// Every open episode, by counter and then in the order they were told (`metrika alert --status`).
    package func allOpenAlertEpisodes() async throws -> [AlertEpisode] {
        try await alertTransaction { database in
            try database.rows("SELECT \(Self.episodeColumns) FROM alert_episodes ORDER BY counter_id, id").compactMap(Self.episode)
        }
    }

    /// Records a run's decisions in ONE transaction: `opened` replace any episode of their counter and
    /// metric, `closed` (counter id, metric) are forgotten, `touched` only move their last day on (and
    /// keep the value and expected value they measured).
    package func recordAlertEpisodes(opened: [AlertEpisode], touched: [AlertEpisode], closed: [(counterID: Int, metric: String)]) async throws {
        guard !(opened.isEmpty && touched.isEmpty && closed.isEmpty) else { return }
        try await alertTransaction { database in
            for episode in opened { try Self.insert(episode, database) }
            for episode in touched {
                try database.execute("""
                    UPDATE alert_episodes SET last_day = max(last_day, ?), last_value = coalesce(?, last_value), last_expected = coalesce(?, last_expected)
                    WHERE counter_id = ? AND metric = ? AND last_day <= ?
                    """,
                    [.text(episode.lastDay.iso), episode.lastValue.map { .real($0) } ?? .null, episode.lastExpected.map { .real($0) } ?? .null,
                     .integer(Int64(episode.counterID)), .text(episode.metric), .text(episode.lastDay.iso)])
            }
            for (counterID, metric) in closed {
                try database.execute("DELETE FROM alert_episodes WHERE counter_id = ? AND metric = ?", [.integer(Int64(counterID)), .text(metric)])
            }
        }
    }

    /// Claims `news` in ONE write transaction (`BEGIN IMMEDIATE`: overlapping runs queue on the busy
    /// timeout), so that of any number of runs (processes, connections) deciding the same news, exactly
    /// one wins it and tells it. Per item, in order: the claim as written, or nil when the news is
    /// already told (another run opened that episode or closed that one first). A won claim is
    /// already remembered: give it back with `releaseAlertClaims` when telling it fails.
    package func claimAlertNews(_ news: [AlertNews]) async throws -> [AlertClaim?] {
        guard !news.isEmpty else { return [] }
        return try await alertTransaction { database in
            try news.map { item -> AlertClaim? in
                let episode = item.episode
                let current = try Self.openEpisode(database, counterID: episode.counterID, metric: episode.metric)
                switch item {
                case .open:
                    if let current, current.kind == episode.kind { return nil }
                    var opened = episode
                    opened.id = nil
                    try Self.insert(opened, database)
                    opened.id = try database.scalar("SELECT id FROM alert_episodes WHERE counter_id = ? AND metric = ?",
                                                    [.integer(Int64(episode.counterID)), .text(episode.metric)])?.int
                    return AlertClaim(news: .open(opened), previous: current)
                case .close:
                    guard let current, current.kind == episode.kind, current.since == episode.since else { return nil }
                    try database.execute("DELETE FROM alert_episodes WHERE id = ?", [.int(current.id ?? 0)])
                    return AlertClaim(news: .close(current), previous: current)
                }
            }
        }
    }

    /// Gives back claims whose news could not be told (a webhook or mail that failed), in ONE
    /// transaction, so that the next run tells it again: an opened episode still as claimed is
    /// removed (and the one it replaced put back); a closed one is put back unless reopened since.
    package func releaseAlertClaims(_ claims: [AlertClaim]) async throws {
        guard !claims.isEmpty else { return }
        try await alertTransaction { database in
            for claim in claims {
                let episode = claim.news.episode
                let current = try Self.openEpisode(database, counterID: episode.counterID, metric: episode.metric)
                switch claim.news {
                case .open(let opened):
                    guard let current, current.id == opened.id else { continue }
                    try database.execute("DELETE FROM alert_episodes WHERE id = ?", [.int(current.id ?? 0)])
                    if let previous = claim.previous { try Self.insert(previous, database) }
                case .close(let closed):
                    guard current == nil else { continue }
                    try Self.insert(closed, database)
                }
            }
        }
    }

    /// Forgets the open episode `id` (`metrika alert --forget ID`): the next run may tell it again.
    /// Returns it, or nil when no open episode has that id.
    package func forgetAlertEpisode(id: Int) async throws -> AlertEpisode? {
        try await alertTransaction { database in
            guard let episode = try database.rows("SELECT \(Self.episodeColumns) FROM alert_episodes WHERE id = ?", [.int(id)]).first.flatMap(Self.episode) else {
                return nil
            }
            try database.execute("DELETE FROM alert_episodes WHERE id = ?", [.int(id)])
            return episode
        }
    }

    /// Forgets every open episode; returns how many there were.
    package func forgetAllAlertEpisodes() async throws -> Int {
        try await alertTransaction { database in
            try database.execute("DELETE FROM alert_episodes")
            return database.changes
        }
    }

    /// The API's `data_lag` (seconds) of the counter's latest fetch, if it said one.
    package func latestDataLag(counterID: Int) async throws -> Double? {
        try await alertTransaction { database in
            try database.scalar("SELECT data_lag FROM fetch_log WHERE counter_id = ? ORDER BY fetched_at DESC, id DESC LIMIT 1",
                                [.integer(Int64(counterID))])?.double
        }
    }

    // MARK: - Goals

    /// The counter's goals as last stored, and when they were read; nil when they never were.
    package func storedGoals(counterID: Int) async throws -> (goals: [Goal], fetchedAt: Date)? {
        try await alertTransaction { database in
            guard let fetched = try database.scalar("SELECT fetched_at FROM counter_goals_read WHERE counter_id = ?", [.integer(Int64(counterID))])?.double else {
                return nil
            }
            let goals = try database.rows("SELECT goal_id, name, type FROM counter_goals WHERE counter_id = ? ORDER BY position", [.integer(Int64(counterID))])
                .compactMap { row -> Goal? in
                    guard let id = row[0].int else { return nil }
                    return Goal(id: id, name: row[1].string ?? "", type: row[2].string ?? "")
                }
            return (goals, Date(timeIntervalSince1970: fetched))
        }
    }

    /// Replaces the counter's stored goals with `goals`, read at `fetchedAt`.
    package func storeGoals(counterID: Int, goals: [Goal], fetchedAt: Date) async throws {
        try await alertTransaction { database in
            try database.execute("DELETE FROM counter_goals WHERE counter_id = ?", [.integer(Int64(counterID))])
            for (position, goal) in goals.enumerated() {
                try database.execute(
                    "INSERT INTO counter_goals (counter_id, position, goal_id, name, type, fetched_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [.integer(Int64(counterID)), .integer(Int64(position)), .integer(Int64(goal.id)), .text(goal.name), .text(goal.type),
                     .real(fetchedAt.timeIntervalSince1970)])
            }
            try database.execute(
                "INSERT OR REPLACE INTO counter_goals_read (counter_id, fetched_at) VALUES (?, ?)",
                [.integer(Int64(counterID)), .real(fetchedAt.timeIntervalSince1970)])
        }
    }
}
