import CSQLite
import Foundation
import MetrikaModel

/// Values by local hour (table `hourly_values`): what `metrika alert --today` and `metrika live`
/// compare today's hours with. A day's hours of a metric are written together; an hour is settled
/// once its day is (the caller says which days are), so the same hours of earlier weeks are fetched
/// once and read from here ever after, and today's are fetched again.
extension HistoryStore {
    /// The 24 hours of one day: `values[hour][metric]`, nil where the hour was not stored (it had not
    /// happened yet when fetched) or the API gave no number.
    package typealias HourRows = [[Double?]]

    /// Replaces the stored hours of `metrics` on every day of `values` (other days are untouched) in
    /// ONE transaction. `values[day][hour]` is nil for an hour that has not happened yet (left
    /// unstored), else one value per metric; an hour without visits is 0, not nil. Days before
    /// `settledBefore` are final.
    /// - Throws: `StoreError` (`.unknownCounter`, `.invalidInput` for a day that is not 24 hours of
    ///   `metrics.count` values); nothing is written then.
    package func storeHourly(counterID: Int, metrics: [Metric], values: [Day: [[Double?]?]], settledBefore: Day, fetchedAt: Date) async throws {
        guard Set(metrics.map(\.apiName)).count == metrics.count else {
            throw StoreError(.invalidInput, path: path, detail: "a metric is listed twice: \(metrics.map(\.apiName))")
        }
        try await withLock { database in
            try database.inTransaction {
                guard try database.scalar("SELECT 1 FROM counters WHERE id = ?", [.int(counterID)]) != nil else {
                    throw StoreError(.unknownCounter(counterID), path: path)
                }
                for day in values.keys.sorted() {
                    guard let hours = values[day], hours.count == 24 else {
                        throw StoreError(.invalidInput, path: path, detail: "\(values[day]?.count ?? 0) hours on \(day.iso), not 24")
                    }
                    for metric in metrics {
                        try database.execute("DELETE FROM hourly_values WHERE counter_id = ? AND metric = ? AND day = ?",
                                             [.int(counterID), .text(metric.apiName), .text(day.iso)])
                    }
                    for (hour, row) in hours.enumerated() {
                        guard let row else { continue }
                        guard row.count == metrics.count else {
                            throw StoreError(.invalidInput, path: path, detail: "\(row.count) values for \(metrics.count) metrics at \(day.iso) \(hour):00")
                        }
                        for (metric, value) in zip(metrics, row) {
                            try database.execute("""
                                INSERT INTO hourly_values (counter_id, metric, day, hour, unit, value, settled, fetched_at)
                                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                                """,
                                [.int(counterID), .text(metric.apiName), .text(day.iso), .int(hour), .text(metric.storedUnit),
                                 .real(value.flatMap { $0.isFinite ? $0 : nil }), .bool(day < settledBefore), .real(fetchedAt.timeIntervalSince1970)])
                        }
                    }
                }
            }
        }
    }

    /// The stored hours of `metrics` on `days`: per day, `[hour][metric]` (24 rows); an hour is nil
    /// unless every metric has it (stored with the unit the metric has now). Days without any stored
    /// hour are left out.
    package func hourlyValues(counterID: Int, days: [Day], metrics: [Metric]) async throws -> [Day: [[Double?]?]] {
        try await hourlyCells(counterID: counterID, days: days, metrics: metrics).mapValues { hours in
            hours.map { row in row.allSatisfy { $0 != nil } ? row.map { $0!.value } : nil }
        }
    }

    /// The days of `days` whose 24 hours are stored for every metric and settled: never fetched again.
    package func settledHourDays(counterID: Int, days: [Day], metrics: [Metric]) async throws -> Set<Day> {
        let cells = try await hourlyCells(counterID: counterID, days: days, metrics: metrics)
        return Set(cells.compactMap { day, hours in
            hours.allSatisfy { row in row.allSatisfy { $0?.settled == true } } ? day : nil
        })
    }

    private func hourlyCells(counterID: Int, days: [Day], metrics: [Metric]) async throws -> [Day: [[(value: Double?, settled: Bool)?]]] {
        guard !metrics.isEmpty, !days.isEmpty else { return [:] }
        var column: [String: (index: Int, unit: String)] = [:]
        for (index, metric) in metrics.enumerated() { column[metric.apiName] = (index, metric.storedUnit) }
        let dayList = Array(repeating: "?", count: days.count).joined(separator: ", ")
        let metricList = Array(repeating: "?", count: metrics.count).joined(separator: ", ")
        let sql = """
            SELECT day, hour, metric, unit, value, settled FROM hourly_values
            WHERE counter_id = ? AND day IN (\(dayList)) AND metric IN (\(metricList))
            """
        let bound: [SQLiteValue] = [.int(counterID)] + days.map { .text($0.iso) } + metrics.map { .text($0.apiName) }
        let rows = try await withLock { database in try database.rows(sql, bound) }
        var cells: [Day: [[(value: Double?, settled: Bool)?]]] = [:]
        let empty = Array(repeating: Array(repeating: (value: Double?, settled: Bool)?.none, count: metrics.count), count: 24)
        for row in rows {
            guard let day = row[0].string.flatMap(Day.init(iso:)), let hour = row[1].int, (0..<24).contains(hour), let metric = row[2].string,
                  let (index, unit) = column[metric], row[3].string == unit else { continue }
            cells[day, default: empty][hour][index] = (row[4].double, row[5].int == 1)
        }
        return cells
    }
}

// MARK: - Hourly episodes

extension HistoryStore {
    /// The open hourly episodes of a counter, by metric API name.
    package func openHourlyEpisodes(counterID: Int) async throws -> [String: HourlyEpisode] {
        let rows = try await withLock { database in
            try database.rows(
                "SELECT metric, kind, day, since_hour, last_day, last_hour, value, expected, notified_at FROM hourly_episodes WHERE counter_id = ?",
                [.int(counterID)])
        }
        var result: [String: HourlyEpisode] = [:]
        for row in rows {
            guard let metric = row[0].string, let kind = row[1].string, let day = row[2].string.flatMap(Day.init(iso:)), let since = row[3].int,
                  let lastDay = row[4].string.flatMap(Day.init(iso:)), let lastHour = row[5].int, let value = row[6].double,
                  let expected = row[7].double, let notified = row[8].double else { continue }
            result[metric] = HourlyEpisode(counterID: counterID, metric: metric, kind: kind, day: day, sinceHour: since, lastDay: lastDay,
                                           lastHour: lastHour, value: value, expected: expected, notifiedAt: Date(timeIntervalSince1970: notified))
        }
        return result
    }

    private static func hourlyEpisode(_ database: Database, counterID: Int, metric: String) throws -> HourlyEpisode? {
        guard let row = try database.rows(
            "SELECT kind, day, since_hour, last_day, last_hour, value, expected, notified_at FROM hourly_episodes WHERE counter_id = ? AND metric = ?",
            [.int(counterID), .text(metric)]).first,
            let kind = row[0].string, let day = row[1].string.flatMap(Day.init(iso:)), let since = row[2].int,
            let lastDay = row[3].string.flatMap(Day.init(iso:)), let lastHour = row[4].int, let value = row[5].double,
            let expected = row[6].double, let notified = row[7].double else { return nil }
        return HourlyEpisode(counterID: counterID, metric: metric, kind: kind, day: day, sinceHour: since, lastDay: lastDay, lastHour: lastHour,
                             value: value, expected: expected, notifiedAt: Date(timeIntervalSince1970: notified))
    }

    private static func insertHourly(_ episode: HourlyEpisode, _ database: Database) throws {
        try database.execute("""
            INSERT OR REPLACE INTO hourly_episodes
                (counter_id, metric, kind, day, since_hour, last_day, last_hour, value, expected, notified_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [.int(episode.counterID), .text(episode.metric), .text(episode.kind), .text(episode.day.iso), .int(episode.sinceHour),
             .text(episode.lastDay.iso), .int(episode.lastHour), .real(episode.value), .real(episode.expected),
             .real(episode.notifiedAt.timeIntervalSince1970)])
    }

    /// Claims `news` in ONE write transaction (`BEGIN IMMEDIATE`), so that of any number of
    /// overlapping runs exactly one wins each piece of news and tells it (as `claimAlertNews` does for
    /// the daily episodes). Per item: the claim, or nil when another run told it first. A won claim is
    /// remembered already: give it back with `releaseHourlyClaims` when telling it fails.
    package func claimHourlyNews(_ news: [HourlyNews]) async throws -> [HourlyClaim?] {
        guard !news.isEmpty else { return [] }
        return try await withLock { database in
            try database.inTransaction {
                try news.map { item -> HourlyClaim? in
                    let episode = item.episode
                    let current = try Self.hourlyEpisode(database, counterID: episode.counterID, metric: episode.metric)
                    switch item {
                    case .open:
                        if let current, current.kind == episode.kind { return nil }
                        try Self.insertHourly(episode, database)
                        return HourlyClaim(news: item, previous: current)
                    case .close:
                        guard let current, current.kind == episode.kind, current.day == episode.day, current.sinceHour == episode.sinceHour else { return nil }
                        try database.execute("DELETE FROM hourly_episodes WHERE counter_id = ? AND metric = ?", [.int(episode.counterID), .text(episode.metric)])
                        return HourlyClaim(news: .close(current), previous: current)
                    }
                }
            }
        }
    }

    /// Gives back claims whose news could not be told, in ONE transaction: an opened episode still as
    /// claimed is removed (the one it replaced put back); a closed one is put back unless reopened.
    package func releaseHourlyClaims(_ claims: [HourlyClaim]) async throws {
        guard !claims.isEmpty else { return }
        try await withLock { database in
            try database.inTransaction {
                for claim in claims {
                    let episode = claim.news.episode
                    let current = try Self.hourlyEpisode(database, counterID: episode.counterID, metric: episode.metric)
                    switch claim.news {
                    case .open(let opened):
                        guard let current, current == opened else { continue }
                        try database.execute("DELETE FROM hourly_episodes WHERE counter_id = ? AND metric = ?", [.int(episode.counterID), .text(episode.metric)])
                        if let previous = claim.previous { try Self.insertHourly(previous, database) }
                    case .close(let closed):
                        guard current == nil else { continue }
                        try Self.insertHourly(closed, database)
                    }
                }
            }
        }
    }

    /// Records a run's hourly decisions in ONE transaction: `opened` replace any episode of their
    /// counter and metric, `touched` move their last hour on, `closed` are forgotten.
    package func recordHourlyEpisodes(opened: [HourlyEpisode], touched: [HourlyEpisode], closed: [(counterID: Int, metric: String)]) async throws {
        guard !(opened.isEmpty && touched.isEmpty && closed.isEmpty) else { return }
        try await withLock { database in
            try database.inTransaction {
                for episode in opened { try Self.insertHourly(episode, database) }
                for episode in touched {
                    try database.execute(
                        "UPDATE hourly_episodes SET last_day = ?, last_hour = ? WHERE counter_id = ? AND metric = ?",
                        [.text(episode.lastDay.iso), .int(episode.lastHour), .int(episode.counterID), .text(episode.metric)])
                }
                for (counterID, metric) in closed {
                    try database.execute("DELETE FROM hourly_episodes WHERE counter_id = ? AND metric = ?", [.int(counterID), .text(metric)])
                }
            }
        }
    }
}
