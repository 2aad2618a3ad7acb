import Foundation
import MetrikaModel

/// What `metrika sync --clickhouse` last sent to each ClickHouse table (`daily_mirror`), so that a sync
/// sends only the values that changed since (issue: every sync re-sent the whole history).
extension HistoryStore {
    /// One mirrored value: a counter's metric (its CSV name) on a day.
    package struct MirroredCell: Hashable, Sendable {
        package var day: Day
        package var metric: String

        package init(day: Day, metric: String) {
            self.day = day
            self.metric = metric
        }
    }

    /// The values last mirrored into `destination` for a counter within `range`.
    package func mirrored(destination: String, counterID: Int, range: DateRange) async throws -> [MirroredCell: Double]
    {
        try await withLock { database in
            let rows = try database.rows(
                "SELECT day, metric, value FROM daily_mirror WHERE destination = ? AND counter_id = ? AND day BETWEEN ? AND ?",
                [.text(destination), .int(counterID), .text(range.from.iso), .text(range.to.iso)])
            var cells: [MirroredCell: Double] = [:]
            for row in rows where row.count == 3 {
                guard let day = row[0].string.flatMap(Day.init(iso:)), let metric = row[1].string,
                    let value = row[2].double
                else { continue }
                cells[MirroredCell(day: day, metric: metric)] = value
            }
            return cells
        }
    }

    /// `cells` reached `destination` (after ClickHouse accepted the insert).
    package func recordMirrored(destination: String, counterID: Int, cells: [(MirroredCell, Double)]) async throws {
        try await withLock { database in
            try database.inTransaction {
                for (cell, value) in cells {
                    try database.execute(
                        "INSERT OR REPLACE INTO daily_mirror (destination, counter_id, day, metric, value) VALUES (?, ?, ?, ?, ?)",
                        [.text(destination), .int(counterID), .text(cell.day.iso), .text(cell.metric), .real(value)])
                }
            }
        }
    }

    /// The table at `destination` is new (or was dropped): nothing there was sent by an earlier sync.
    package func forgetMirrored(destination: String) async throws {
        try await withLock { database in
            try database.execute("DELETE FROM daily_mirror WHERE destination = ?", [.text(destination)])
        }
    }
}
