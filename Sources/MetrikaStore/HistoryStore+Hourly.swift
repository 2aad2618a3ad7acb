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
    package func storeHourly(
        counterID: Int, metrics: [Metric], values: [Day: [[Double?]?]], settledBefore: Day, fetchedAt: Date
    ) async throws {
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
                        throw StoreError(
                            .invalidInput, path: path, detail: "\(values[day]?.count ?? 0) hours on \(day.iso), not 24")
                    }
                    for metric in metrics {
                        try database.execute(
                            "DELETE FROM hourly_values WHERE counter_id = ? AND metric = ? AND day = ?",
                            [.int(counterID), .text(metric.apiName), .text(day.iso)])
                    }
                    for (hour, row) in hours.enumerated() {
                        guard let row else { continue }
                        guard row.count == metrics.count else {
                            throw StoreError(
                                .invalidInput, path: path,
                                detail: "\(row.count) values for \(metrics.count) metrics at \(day.iso) \(hour):00")
                        }
                        for (metric, value) in zip(metrics, row) {
                            try database.execute(
                                """
                                INSERT INTO hourly_values (counter_id, metric, day, hour, unit, value, settled, fetched_at)
                                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                                """,
                                [
                                    .int(counterID), .text(metric.apiName), .text(day.iso), .int(hour),
                                    .text(metric.storedUnit),
                                    .real(value.flatMap { $0.isFinite ? $0 : nil }), .bool(day < settledBefore),
                                    .real(fetchedAt.timeIntervalSince1970)
                                ])
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
        return Set(
            cells.compactMap { day, hours in
                hours.allSatisfy { row in row.allSatisfy { $0?.settled == true } } ? day : nil
            })
    }

    private func hourlyCells(counterID: Int, days: [Day], metrics: [Metric]) async throws -> [Day: [[(
        value: Double?, settled: Bool
    )?]]] {
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
        let empty = Array(
            repeating: Array(repeating: (value: Double?, settled: Bool)?.none, count: metrics.count), count: 24)
        for row in rows {
            guard let day = row[0].string.flatMap(Day.init(iso:)), let hour = row[1].int, (0..<24).contains(hour),
                let metric = row[2].string,
                let (index, unit) = column[metric], row[3].string == unit
            else { continue }
            cells[day, default: empty][hour][index] = (row[4].double, row[5].int == 1)
        }
        return cells
    }
}
