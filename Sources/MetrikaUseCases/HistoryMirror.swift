import Foundation
import MetrikaModel
import MetrikaStore
import MetrikaWarehouse

/// `metrika sync --clickhouse`: sends the synced days' values to ClickHouse `metrika.daily`, only those
/// that changed since the last sync sent them (the history database keeps what was sent per table):
/// a warm nightly sync sends the few recent days whose numbers moved, not the whole history again.
/// A table that was not there (new, or dropped since) gets everything.
package struct HistoryMirror: Sendable {
    package var store: HistoryStore
    package var mirror: ClickHouseDailyMirror

    package init(store: HistoryStore, mirror: ClickHouseDailyMirror) {
        self.store = store
        self.mirror = mirror
    }

    /// What a mirror run did.
    package struct Summary: Sendable, Equatable {
        /// Values sent.
        package var sent = 0
        /// Values already there, as sent by an earlier sync.
        package var unchanged = 0
    }

    /// Mirrors `range` of each counter; `version` orders the values (the sync's time in milliseconds).
    package func run(_ counters: [(counterID: Int, range: DateRange)], metrics: [Metric], version: UInt64) async throws
        -> Summary
    {
        let destination = "clickhouse:" + mirror.identity
        if try await mirror.prepare() { try await store.forgetMirrored(destination: destination) }
        var summary = Summary()
        for (counterID, range) in counters {
            let values = try await store.dailyValues(counterID: counterID, range: range, metrics: metrics)
            let sent = try await store.mirrored(destination: destination, counterID: counterID, range: range)
            var rows: [ClickHouseDailyMirror.Row] = []
            for day in values.keys.sorted() {
                for (index, metric) in metrics.enumerated() {
                    guard let value = values[day]?[index] ?? nil, value.isFinite else { continue }
                    if sent[HistoryStore.MirroredCell(day: day, metric: metric.columnName)] == value {
                        summary.unchanged += 1
                    } else {
                        rows.append(ClickHouseDailyMirror.Row(day: day, metric: metric.columnName, value: value))
                    }
                }
            }
            try await mirror.insert(counterID: counterID, rows: rows, version: version)
            try await store.recordMirrored(
                destination: destination, counterID: counterID,
                cells: rows.map { (HistoryStore.MirroredCell(day: $0.day, metric: $0.metric), $0.value) })
            summary.sent += rows.count
        }
        return summary
    }
}
