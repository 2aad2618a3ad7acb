import Foundation
import MetrikaModel

/// A settled day's values by segment of one dimension (tables `segment_days`, `segment_values`):
/// what `metrika explain` and the alerts' drivers read before they ask the API, so a repeated
/// explanation costs no request.
extension HistoryStore {
    /// One segment of a stored day: its name and a value per metric asked (in the order asked).
    package typealias SegmentRow = (segment: String, values: [Double?])

    /// Keeps `days` (each complete: every segment the API had for it) of `dimension` for `metrics`
    /// (API names; each row's values in that order), replacing what was kept for those days. The
    /// caller passes settled days only. One transaction: all or nothing.
    package func storeSegments(
        counterID: Int, dimension: String, metrics: [String], days: [Day: [SegmentRow]], fetchedAt: Date
    ) async throws {
        guard !days.isEmpty, !metrics.isEmpty else { return }
        try await withLock { database in
            try database.inTransaction {
                for (day, rows) in days {
                    for (column, metric) in metrics.enumerated() {
                        let key: [SQLiteValue] = [.int(counterID), .text(metric), .text(dimension), .text(day.iso)]
                        try database.execute(
                            "DELETE FROM segment_days WHERE counter_id = ? AND metric = ? AND dimension = ? AND day = ?",
                            key)
                        try database.execute(
                            "INSERT INTO segment_days (counter_id, metric, dimension, day, fetched_at) VALUES (?, ?, ?, ?, ?)",
                            key + [.real(fetchedAt.timeIntervalSince1970)])
                        for row in rows {
                            let value = column < row.values.count ? row.values[column] : nil
                            // A segment named twice in one answer (two ids, one name) adds up, as the API's total does.
                            try database.execute(
                                """
                                INSERT INTO segment_values (counter_id, metric, dimension, day, segment, value) VALUES (?, ?, ?, ?, ?, ?)
                                ON CONFLICT (counter_id, metric, dimension, day, segment) DO UPDATE SET value = coalesce(value, 0) + coalesce(excluded.value, 0)
                                """, key + [.text(row.segment), .real(value.flatMap { $0.isFinite ? $0 : nil })])
                        }
                    }
                }
            }
        }
    }

    /// The kept segments of `days` for every one of `metrics`: only days kept for all of them, each
    /// row's values in the order of `metrics` (a segment one metric lacks has nil there).
    package func storedSegments(counterID: Int, dimension: String, metrics: [String], days: [Day]) async throws -> [Day:
        [SegmentRow]]
    {
        guard !metrics.isEmpty, !days.isEmpty else { return [:] }
        return try await withLock { database in
            var result: [Day: [SegmentRow]] = [:]
            for day in days {
                var rows: [String: [Double?]] = [:]
                var order: [String] = []
                var complete = true
                for (column, metric) in metrics.enumerated() {
                    let key: [SQLiteValue] = [.int(counterID), .text(metric), .text(dimension), .text(day.iso)]
                    guard
                        try database.scalar(
                            "SELECT 1 FROM segment_days WHERE counter_id = ? AND metric = ? AND dimension = ? AND day = ?",
                            key) != nil
                    else {
                        complete = false
                        break
                    }
                    for row in try database.rows(
                        """
                        SELECT segment, value FROM segment_values WHERE counter_id = ? AND metric = ? AND dimension = ? AND day = ? ORDER BY segment
                        """, key)
                    {
                        let segment = row[0].string ?? ""
                        if rows[segment] == nil {
                            rows[segment] = Array(repeating: nil, count: metrics.count)
                            order.append(segment)
                        }
                        rows[segment]?[column] = row[1].double
                    }
                }
                if complete { result[day] = order.map { (segment: $0, values: rows[$0] ?? []) } }
            }
            return result
        }
    }
}
