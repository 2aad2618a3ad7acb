import Foundation
import MetrikaModel

/// The history database remembers `metrika logs` progress (tables `log_jobs`, `log_job_parts`).
extension HistoryStore: LogProgressStore {
    package func job(counterID: Int, source: LogSource, from: Day, to: Day, fields: String, destination: String)
        async throws -> LogJob?
    {
        try await withLock { database in
            let rows = try database.rows(
                "SELECT request_id FROM log_jobs WHERE counter_id = ? AND source = ? AND date_from = ? AND date_to = ? AND fields = ? AND destination = ? ORDER BY created_at DESC LIMIT 1",
                [
                    .integer(Int64(counterID)), .text(source.rawValue), .text(from.iso), .text(to.iso), .text(fields),
                    .text(destination)
                ])
            guard let id = rows.first?.first?.int else { return nil }
            let parts = try database.rows("SELECT part FROM log_job_parts WHERE request_id = ?", [.integer(Int64(id))])
                .compactMap { $0.first?.int }
            return LogJob(
                counterID: counterID, source: source, from: from, to: to, fields: fields, destination: destination,
                requestID: id, loadedParts: Set(parts))
        }
    }

    package func saveJob(_ job: LogJob) async throws {
        try await withLock { database in
            try database.execute(
                "INSERT OR REPLACE INTO log_jobs (request_id, counter_id, source, date_from, date_to, fields, destination, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .integer(Int64(job.requestID)), .integer(Int64(job.counterID)), .text(job.source.rawValue),
                    .text(job.from.iso), .text(job.to.iso),
                    .text(job.fields), .text(job.destination), .real(Date().timeIntervalSince1970)
                ])
        }
    }

    package func markLoaded(requestID: Int, part: Int) async throws {
        try await withLock { database in
            try database.execute(
                "INSERT OR REPLACE INTO log_job_parts (request_id, part, loaded_at) VALUES (?, ?, ?)",
                [.integer(Int64(requestID)), .integer(Int64(part)), .real(Date().timeIntervalSince1970)])
        }
    }

    package func removeJob(requestID: Int) async throws {
        try await withLock { database in
            try database.execute("DELETE FROM log_job_parts WHERE request_id = ?", [.integer(Int64(requestID))])
            try database.execute("DELETE FROM log_jobs WHERE request_id = ?", [.integer(Int64(requestID))])
        }
    }

    package func recordLoaded(counterID: Int, source: LogSource, destination: String, from: Day, to: Day, at: Date)
        async throws
    {
        try await recordLoaded(
            counterID: counterID, source: source, destination: destination, from: from, to: to, rows: nil, at: at)
    }

    package func recordLoaded(
        counterID: Int, source: LogSource, destination: String, from: Day, to: Day, rows: [Day: Int]?, at: Date
    ) async throws {
        try await withLock { database in
            try database.execute("BEGIN IMMEDIATE")
            do {
                for ordinal in from.ordinal...max(from.ordinal, to.ordinal) {
                    let day = Day(ordinal: ordinal)
                    let count: SQLiteValue = rows.map { .integer(Int64($0[day] ?? 0)) } ?? .null
                    try database.execute(
                        "INSERT OR REPLACE INTO log_loaded_days (counter_id, source, destination, day, rows, loaded_at) VALUES (?, ?, ?, ?, ?, ?)",
                        [
                            .integer(Int64(counterID)), .text(source.rawValue), .text(destination), .text(day.iso),
                            count, .real(at.timeIntervalSince1970)
                        ])
                }
                try database.execute(
                    """
                    INSERT INTO log_loads (counter_id, source, destination, first_day, last_day, loaded_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (counter_id, source, destination) DO UPDATE SET
                        first_day = min(first_day, excluded.first_day), last_day = max(last_day, excluded.last_day), loaded_at = excluded.loaded_at
                    """,
                    [
                        .integer(Int64(counterID)), .text(source.rawValue), .text(destination), .text(from.iso),
                        .text(to.iso), .real(at.timeIntervalSince1970)
                    ])
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
    }

    package func load(counterID: Int, source: LogSource, destination: String) async throws -> LogLoad? {
        try await loads(counterID: counterID).first { $0.source == source && $0.destination == destination }
    }

    package func loads(counterID: Int) async throws -> [LogLoad] {
        try await withLock { database in
            let rows = try database.rows(
                "SELECT source, destination, first_day, last_day, loaded_at FROM log_loads WHERE counter_id = ? ORDER BY source, destination",
                [.integer(Int64(counterID))])
            // Every loaded day, in order, per source and destination: ranges, gaps and rows.
            var days: [String: [(day: Day, rows: Int?)]] = [:]
            for row in try database.rows(
                "SELECT source, destination, day, rows FROM log_loaded_days WHERE counter_id = ? ORDER BY source, destination, day",
                [.integer(Int64(counterID))]
            ) where row.count == 4 {
                guard let source = row[0].string, let destination = row[1].string,
                    let day = row[2].string.flatMap(Day.init(iso:))
                else { continue }
                days[source + "\t" + destination, default: []].append((day, row[3].int))
            }
            return rows.compactMap { row -> LogLoad? in
                guard row.count == 5, let source = row[0].string.flatMap(LogSource.init(rawValue:)),
                    let destination = row[1].string,
                    let first = row[2].string.flatMap(Day.init(iso:)), let last = row[3].string.flatMap(Day.init(iso:))
                else { return nil }
                let loaded = days[source.rawValue + "\t" + destination] ?? []
                let counted = loaded.compactMap(\.rows)
                return LogLoad(
                    counterID: counterID, source: source, destination: destination, firstDay: first, lastDay: last,
                    loadedAt: Date(timeIntervalSince1970: row[4].double ?? 0),
                    days: loaded.isEmpty ? nil : loaded.map(\.day),
                    rows: !loaded.isEmpty && counted.count == loaded.count ? counted.reduce(0, +) : nil)
            }
        }
    }

    package func jobs(counterID: Int) async throws -> [LogJob] {
        try await withLock { database in
            let rows = try database.rows(
                "SELECT request_id, source, date_from, date_to, fields, destination FROM log_jobs WHERE counter_id = ? ORDER BY created_at",
                [.integer(Int64(counterID))])
            return rows.compactMap { row -> LogJob? in
                guard row.count == 6, let id = row[0].int,
                    let source = row[1].string.flatMap(LogSource.init(rawValue:)),
                    let from = row[2].string.flatMap(Day.init(iso:)), let to = row[3].string.flatMap(Day.init(iso:)),
                    let fields = row[4].string, let destination = row[5].string
                else { return nil }
                return LogJob(
                    counterID: counterID, source: source, from: from, to: to, fields: fields, destination: destination,
                    requestID: id)
            }
        }
    }
}
