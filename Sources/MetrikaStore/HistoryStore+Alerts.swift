import Foundation
import MetrikaModel

/// What `metrika alert` remembers in the history database: the open episodes (tables
/// `alert_episodes`) and each counter's goals as last read (`counter_goals`, `counter_goals_read`).
extension HistoryStore {
    /// Runs `body` in one transaction holding the lock, translating SQLite's errors.
    private func alertTransaction<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try withLock { database in try database.inTransaction { try body(database) } }
    }

    // MARK: - Episodes

    /// The open episodes of a counter, by metric API name.
    package func openAlertEpisodes(counterID: Int) throws -> [String: AlertEpisode] {
        let rows = try alertTransaction { database in
            try database.rows(
                "SELECT metric, kind, since, last_day, value, expected, notified_at FROM alert_episodes WHERE counter_id = ?",
                [.integer(Int64(counterID))])
        }
        var result: [String: AlertEpisode] = [:]
        for row in rows {
            guard let metric = row[0].string, let kind = row[1].string, let since = row[2].string.flatMap(Day.init(iso:)),
                  let last = row[3].string.flatMap(Day.init(iso:)), let value = row[4].double, let expected = row[5].double,
                  let notified = row[6].double else { continue }
            result[metric] = AlertEpisode(counterID: counterID, metric: metric, kind: kind, since: since, lastDay: last, value: value,
                                          expected: expected, notifiedAt: Date(timeIntervalSince1970: notified))
        }
        return result
    }

    /// Records a run's decisions in ONE transaction: `opened` replace any episode of their counter and
    /// metric, `closed` (counter id, metric) are forgotten, `touched` only move their last day on.
    package func recordAlertEpisodes(opened: [AlertEpisode], touched: [AlertEpisode], closed: [(counterID: Int, metric: String)]) throws {
        guard !(opened.isEmpty && touched.isEmpty && closed.isEmpty) else { return }
        try alertTransaction { database in
            for episode in opened {
                try database.execute("""
                    INSERT OR REPLACE INTO alert_episodes (counter_id, metric, kind, since, last_day, value, expected, notified_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.integer(Int64(episode.counterID)), .text(episode.metric), .text(episode.kind), .text(episode.since.iso),
                     .text(episode.lastDay.iso), .real(episode.value), .real(episode.expected), .real(episode.notifiedAt.timeIntervalSince1970)])
            }
            for episode in touched {
                try database.execute(
                    "UPDATE alert_episodes SET last_day = max(last_day, ?) WHERE counter_id = ? AND metric = ?",
                    [.text(episode.lastDay.iso), .integer(Int64(episode.counterID)), .text(episode.metric)])
            }
            for (counterID, metric) in closed {
                try database.execute("DELETE FROM alert_episodes WHERE counter_id = ? AND metric = ?", [.integer(Int64(counterID)), .text(metric)])
            }
        }
    }

    /// The API's `data_lag` (seconds) of the counter's latest fetch, if it said one.
    package func latestDataLag(counterID: Int) throws -> Double? {
        try alertTransaction { database in
            try database.scalar("SELECT data_lag FROM fetch_log WHERE counter_id = ? ORDER BY fetched_at DESC, id DESC LIMIT 1",
                                [.integer(Int64(counterID))])?.double
        }
    }

    // MARK: - Goals

    /// The counter's goals as last stored, and when they were read; nil when they never were.
    package func storedGoals(counterID: Int) throws -> (goals: [Goal], fetchedAt: Date)? {
        try alertTransaction { database in
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
    package func storeGoals(counterID: Int, goals: [Goal], fetchedAt: Date) throws {
        try alertTransaction { database in
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
