import Foundation
import MetrikaModel

/// What `metrika alert` remembers in the history database: the open episodes of both grains (table
/// `alert_episodes`) and each counter's goals as last read (`counter_goals`, `counter_goals_read`).
extension HistoryStore {
    /// Runs `body` in one transaction holding the lock, translating SQLite's errors.
    private func alertTransaction<T: Sendable>(_ body: (Database) throws -> T) async throws -> T {
        try await withLock { database in try database.inTransaction { try body(database) } }
    }

    // MARK: - Episodes (both grains: one table, one claim, one release, one record)

    private static let episodeColumns =
        "id, counter_id, metric, grain, kind, since, since_hour, last_day, last_hour, value, expected, notified_at, last_value, last_expected, continued_on"

    private static func episode(_ row: [SQLiteValue]) -> AlertEpisode? {
        guard let id = row[0].int, let counterID = row[1].int, let metric = row[2].string,
            let grain = row[3].string.flatMap(AlertEpisode.Grain.init(rawValue:)),
            let kind = row[4].string, let since = row[5].string.flatMap(Day.init(iso:)),
            let last = row[7].string.flatMap(Day.init(iso:)),
            let value = row[9].double, let expected = row[10].double, let notified = row[11].double
        else { return nil }
        var episode = AlertEpisode(
            id: id, counterID: counterID, metric: metric, grain: grain, kind: kind, since: since,
            sinceHour: row[6].int ?? 0,
            lastDay: last, lastHour: row[8].int ?? 0, value: value, expected: expected,
            notifiedAt: Date(timeIntervalSince1970: notified),
            lastValue: row[12].double, lastExpected: row[13].double)
        episode.continuedOn = row.count > 14 ? row[14].string.flatMap(Day.init(iso:)) : nil
        return episode
    }

    /// `(counter_id, metric, grain)`: the key of an episode.
    private static func key(_ episode: AlertEpisode) -> [SQLiteValue] {
        [.int(episode.counterID), .text(episode.metric), .text(episode.grain.rawValue)]
    }

    /// A day episode's hours are not stored (NULL); an hour episode's are.
    private static func hour(_ hour: Int, _ grain: AlertEpisode.Grain) -> SQLiteValue {
        grain == .hour ? .int(hour) : .null
    }

    /// The open episode of `counterID`'s `metric` in `grain`, read inside the caller's transaction.
    private static func openEpisode(_ database: Database, _ episode: AlertEpisode) throws -> AlertEpisode? {
        try database.rows(
            "SELECT \(episodeColumns) FROM alert_episodes WHERE counter_id = ? AND metric = ? AND grain = ?",
            key(episode)
        ).first.flatMap(Self.episode)
    }

    /// Writes `episode` in place of any of its counter, metric and grain: a new id, unless it carries
    /// one (an episode put back by a release keeps its id). Returns the id it was written with.
    @discardableResult
    private static func insert(_ episode: AlertEpisode, _ database: Database) throws -> Int? {
        try database.execute(
            """
            INSERT OR REPLACE INTO alert_episodes
                (id, counter_id, metric, grain, kind, since, since_hour, last_day, last_hour, value, expected, notified_at, last_value, last_expected, continued_on)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                episode.id.map { .int($0) } ?? .null, .int(episode.counterID), .text(episode.metric),
                .text(episode.grain.rawValue), .text(episode.kind),
                .text(episode.since.iso), hour(episode.sinceHour, episode.grain), .text(episode.lastDay.iso),
                hour(episode.lastHour, episode.grain),
                .real(episode.value), .real(episode.expected), .real(episode.notifiedAt.timeIntervalSince1970),
                episode.lastValue.map { .real($0) } ?? .null, episode.lastExpected.map { .real($0) } ?? .null,
                episode.continuedOn.map { .text($0.iso) } ?? .null
            ])
        return try database.scalar("SELECT last_insert_rowid()")?.int
    }

    private static func delete(_ episode: AlertEpisode, _ database: Database) throws {
        try database.execute(
            "DELETE FROM alert_episodes WHERE counter_id = ? AND metric = ? AND grain = ?", key(episode))
    }

    /// How long a closed hourly alert is remembered (`closedHourEpisodes`): days before its last day.
    package static let closedHourDays = 14

    /// Remembers the open hour's episode of `counterID`'s `metric` as closed, before it is forgotten (the
    /// daily check never tells its days again); a day's episode is not kept. Forgets those long over.
    private static func rememberClosed(counterID: Int, metric: String, grain: AlertEpisode.Grain, _ database: Database)
        throws
    {
        guard grain == .hour,
            let open = try database.rows(
                "SELECT \(episodeColumns) FROM alert_episodes WHERE counter_id = ? AND metric = ? AND grain = 'hour'",
                [.int(counterID), .text(metric)]
            ).first.flatMap(Self.episode)
        else { return }
        try database.execute(
            """
            INSERT OR REPLACE INTO closed_hourly_alerts (counter_id, metric, kind, since, since_hour, last_day, last_hour)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .int(counterID), .text(metric), .text(open.kind), .text(open.since.iso), .int(open.sinceHour),
                .text(open.lastDay.iso), .int(open.lastHour)
            ])
        try database.execute(
            "DELETE FROM closed_hourly_alerts WHERE counter_id = ? AND last_day < ?",
            [.int(counterID), .text(open.lastDay.adding(days: -closedHourDays).iso)])
    }

    /// The hourly alerts of a counter that closed in the last two weeks (back to normal, or no longer
    /// as far off), by metric API name: what the hourly check told and saw end. No ids, no values.
    package func closedHourEpisodes(counterID: Int) async throws -> [String: [AlertEpisode]] {
        let rows = try await alertTransaction { database in
            try database.rows(
                """
                SELECT metric, kind, since, since_hour, last_day, last_hour FROM closed_hourly_alerts
                WHERE counter_id = ? ORDER BY since, since_hour
                """,
                [.int(counterID)])
        }
        var result: [String: [AlertEpisode]] = [:]
        for row in rows {
            guard let metric = row[0].string, let kind = row[1].string,
                let since = row[2].string.flatMap(Day.init(iso:)), let last = row[4].string.flatMap(Day.init(iso:))
            else { continue }
            let episode = AlertEpisode(
                counterID: counterID, metric: metric, kind: kind, day: since, sinceHour: row[3].int ?? 0,
                lastDay: last, lastHour: row[5].int ?? 0, value: 0, expected: 0,
                notifiedAt: Date(timeIntervalSince1970: 0))
            result[metric, default: []].append(episode)
        }
        return result
    }

    /// The open episodes of a counter in `grain`, by metric API name.
    package func openEpisodes(counterID: Int, grain: AlertEpisode.Grain) async throws -> [String: AlertEpisode] {
        let rows = try await alertTransaction { database in
            try database.rows(
                "SELECT \(Self.episodeColumns) FROM alert_episodes WHERE counter_id = ? AND grain = ?",
                [.int(counterID), .text(grain.rawValue)])
        }
        var result: [String: AlertEpisode] = [:]
        for episode in rows.compactMap(Self.episode) { result[episode.metric] = episode }
        return result
    }

    /// Every open episode of both grains, by counter and then in the order they were told (`metrika
    /// alert --status`, the bot's `/alerts`).
    package func allOpenAlertEpisodes() async throws -> [AlertEpisode] {
        try await alertTransaction { database in
            try database.rows("SELECT \(Self.episodeColumns) FROM alert_episodes ORDER BY counter_id, id").compactMap(
                Self.episode)
        }
    }

    /// Records a run's decisions in ONE transaction, for episodes of `grain`: `opened` replace any
    /// episode of their counter and metric, `closed` (counter id, metric) are forgotten, `touched` only
    /// move their last day (and hour) on — never back — and keep the values they measured.
    package func recordEpisodes(
        grain: AlertEpisode.Grain, opened: [AlertEpisode], touched: [AlertEpisode],
        closed: [(counterID: Int, metric: String)]
    ) async throws {
        guard !(opened.isEmpty && touched.isEmpty && closed.isEmpty) else { return }
        try await alertTransaction { database in
            for episode in opened { try Self.insert(episode, database) }
            for episode in touched {
                let lastHour = Self.hour(episode.lastHour, episode.grain)
                try database.execute(
                    """
                    UPDATE alert_episodes SET last_day = ?, last_hour = ?, last_value = coalesce(?, last_value), last_expected = coalesce(?, last_expected)
                    WHERE counter_id = ? AND metric = ? AND grain = ? AND (last_day, coalesce(last_hour, 0)) <= (?, coalesce(?, 0))
                    """,
                    [
                        .text(episode.lastDay.iso), lastHour, episode.lastValue.map { .real($0) } ?? .null,
                        episode.lastExpected.map { .real($0) } ?? .null
                    ]
                        + Self.key(episode) + [.text(episode.lastDay.iso), lastHour])
            }
            for (counterID, metric) in closed {
                try Self.rememberClosed(counterID: counterID, metric: metric, grain: grain, database)
                try database.execute(
                    "DELETE FROM alert_episodes WHERE counter_id = ? AND metric = ? AND grain = ?",
                    [.int(counterID), .text(metric), .text(grain.rawValue)])
            }
        }
    }

    /// Claims `news` (either grain) in ONE write transaction (`BEGIN IMMEDIATE`: overlapping runs queue
    /// on the busy timeout), so that of any number of runs (processes, connections) deciding the same
    /// news, exactly one wins it and tells it. Per item, in order: the claim as written (an opened
    /// episode with its new id), or nil when the news is already told (another run opened that episode
    /// or closed that one first). A won claim is already remembered: give it back with
    /// `releaseClaims` when telling it fails.
    package func claimNews(_ news: [AlertNews]) async throws -> [AlertClaim?] {
        try await claimNews(news, queue: { _ in [] }).claims
    }

    /// `claimNews`, and in the SAME transaction the messages that tell the news won, as `queue` makes
    /// them from the claims (nil where another run won): written to the outbox before anything is
    /// sent, so that news claimed is never lost — a run killed after this delivers nothing, and the
    /// next run delivers it from the outbox. `queue` must not block (it runs on the store's queue).
    package func claimNews(_ news: [AlertNews], queue: ([AlertClaim?]) -> [OutboxMessage]) async throws -> (
        claims: [AlertClaim?], queued: [OutboxMessage]
    ) {
        guard !news.isEmpty else { return ([], []) }
        return try await alertTransaction { database in
            let claims = try Self.claim(news, database)
            let queued = try Self.insertOutbox(queue(claims), database)
            return (claims, queued)
        }
    }

    private static func claim(_ news: [AlertNews], _ database: Database) throws -> [AlertClaim?] {
        try news.map { item -> AlertClaim? in
            let current = try Self.openEpisode(database, item.episode)
            switch item {
            case .open(var opened):
                if let current, current.kind == opened.kind { return nil }
                // An hourly alert of another kind that this one replaces was told: remembered as closed.
                if let current {
                    try rememberClosed(
                        counterID: current.counterID, metric: current.metric, grain: current.grain, database)
                }
                opened.id = nil
                opened.id = try Self.insert(opened, database)
                return AlertClaim(news: .open(opened), previous: current)
            case .close(let episode):
                guard let current, current.sameStart(as: episode) else { return nil }
                try rememberClosed(counterID: current.counterID, metric: current.metric, grain: current.grain, database)
                try Self.delete(current, database)
                return AlertClaim(news: .close(current), previous: current)
            case .continueStory(let episode, let day):
                // Once a day at most: the episode still open, and not yet continued for `day`.
                guard let current, current.id == episode.id, current.continuedOn.map({ $0 < day }) ?? true,
                    let id = current.id
                else { return nil }
                try database.execute(
                    "UPDATE alert_episodes SET continued_on = ? WHERE id = ?", [.text(day.iso), .int(id)])
                var continued = current
                continued.continuedOn = day
                return AlertClaim(news: .continueStory(continued, day: day), previous: current)
            }
        }
    }

    /// Gives back claims whose news could not be told (a webhook or mail that failed), in ONE
    /// transaction, so that the next run tells it again: an opened episode still as claimed is
    /// removed (and the one it replaced put back); a closed one is put back unless reopened since.
    package func releaseClaims(_ claims: [AlertClaim], droppingBatch batch: String? = nil) async throws {
        guard !claims.isEmpty || batch != nil else { return }
        try await alertTransaction { database in
            if let batch {
                try database.execute("DELETE FROM outbox WHERE batch = ? AND state = 'pending'", [.text(batch)])
            }
            for claim in claims {
                let current = try Self.openEpisode(database, claim.news.episode)
                switch claim.news {
                case .open(let opened):
                    guard let current, current.id == opened.id else { continue }
                    try Self.delete(current, database)
                    if let previous = claim.previous { try Self.insert(previous, database) }
                case .close(let closed):
                    guard current == nil else { continue }
                    try Self.insert(closed, database)
                case .continueStory(let episode, let day):
                    guard let current, current.id == episode.id, current.continuedOn == day, let id = current.id
                    else { continue }
                    try database.execute(
                        "UPDATE alert_episodes SET continued_on = ? WHERE id = ?",
                        [claim.previous?.continuedOn.map { .text($0.iso) } ?? .null, .int(id)])
                }
            }
        }
    }

    /// Forgets the open episode `id`, of either grain (`metrika alert --forget ID`): the next run of
    /// its check may tell it again. Returns it, or nil when no open episode has that id.
    package func forgetAlertEpisode(id: Int) async throws -> AlertEpisode? {
        try await alertTransaction { database in
            guard
                let episode = try database.rows(
                    "SELECT \(Self.episodeColumns) FROM alert_episodes WHERE id = ?", [.int(id)]
                )
                .first.flatMap(Self.episode)
            else {
                return nil
            }
            try database.execute("DELETE FROM alert_episodes WHERE id = ?", [.int(id)])
            return episode
        }
    }

    /// Forgets every open episode, of both grains, and the closed hourly alerts the daily check knows
    /// (the next runs tell anew); returns how many open ones there were.
    package func forgetAllAlertEpisodes() async throws -> Int {
        try await alertTransaction { database in
            try database.execute("DELETE FROM alert_episodes")
            let forgotten = database.changes
            try database.execute("DELETE FROM closed_hourly_alerts")
            return forgotten
        }
    }

    /// The API's `data_lag` (seconds) of the counter's latest fetch, if it said one.
    package func latestDataLag(counterID: Int) async throws -> Double? {
        try await alertTransaction { database in
            try database.scalar(
                "SELECT data_lag FROM fetch_log WHERE counter_id = ? ORDER BY fetched_at DESC, id DESC LIMIT 1",
                [.integer(Int64(counterID))])?.double
        }
    }

    // MARK: - Goals

    /// The counter's goals as last stored, and when they were read; nil when they never were.
    package func storedGoals(counterID: Int) async throws -> (goals: [Goal], fetchedAt: Date)? {
        try await alertTransaction { database in
            guard
                let fetched = try database.scalar(
                    "SELECT fetched_at FROM counter_goals_read WHERE counter_id = ?", [.integer(Int64(counterID))])?
                    .double
            else {
                return nil
            }
            let goals = try database.rows(
                "SELECT goal_id, name, type FROM counter_goals WHERE counter_id = ? ORDER BY position",
                [.integer(Int64(counterID))]
            )
            .compactMap { row -> Goal? in
                guard let id = row[0].int else { return nil }
                return Goal(id: id, name: row[1].string ?? "", type: row[2].string ?? "")
            }
            return (goals, Date(timeIntervalSince1970: fetched))
        }
    }

    /// Replaces the counter's stored goals with `goals`, read at `fetchedAt`.
    package func storeGoals(counterID: Int, goals: [Goal], fetchedAt: Date) async throws {
        try await storeGoals([counterID: goals], fetchedAt: fetchedAt)
    }

    /// Replaces the stored goals of every counter in `lists` (the counters list's `field=goals`), in
    /// one transaction: a thousand counters' lists are one write, not a thousand.
    package func storeGoals(_ lists: [Int: [Goal]], fetchedAt: Date) async throws {
        guard !lists.isEmpty else { return }
        try await alertTransaction { database in
            for (counterID, goals) in lists.sorted(by: { $0.key < $1.key }) {
                try Self.replaceGoals(counterID: counterID, goals: goals, fetchedAt: fetchedAt, in: database)
            }
        }
    }

    private static func replaceGoals(counterID: Int, goals: [Goal], fetchedAt: Date, in database: Database) throws {
        try database.execute("DELETE FROM counter_goals WHERE counter_id = ?", [.integer(Int64(counterID))])
        for (position, goal) in goals.enumerated() {
            try database.execute(
                "INSERT INTO counter_goals (counter_id, position, goal_id, name, type, fetched_at) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .integer(Int64(counterID)), .integer(Int64(position)), .integer(Int64(goal.id)),
                    .text(goal.name), .text(goal.type),
                    .real(fetchedAt.timeIntervalSince1970)
                ])
        }
        try database.execute(
            "INSERT OR REPLACE INTO counter_goals_read (counter_id, fetched_at) VALUES (?, ?)",
            [.integer(Int64(counterID)), .real(fetchedAt.timeIntervalSince1970)])
    }
}
