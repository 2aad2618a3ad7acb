import Foundation
import MetrikaAPI
import MetrikaModel

/// Mirrors the daily history into ClickHouse `metrika.daily` for `metrika sync --clickhouse`:
/// `counter_id`, `date`, `metric` (its CSV name, such as `visits`, `bounce_rate`), `value` in API
/// units, and `version` (milliseconds since 1970 at the sync). The table is a ReplacingMergeTree on
/// `version`, so a re-synced day replaces the old value once merged; queries read it with `FINAL`.
public struct ClickHouseDailyMirror: Sendable {
    let client: ClickHouseClient

    public init(settings: ClickHouseSettings, transport: any StreamingHTTPTransport) {
        client = ClickHouseClient(settings: settings, transport: transport)
    }

    /// The DDL, SQL that 18.16 and current releases both accept.
    public static func createTable(_ table: String) -> String {
        "CREATE TABLE IF NOT EXISTS \(table) (counter_id UInt32, date Date, metric String, value Float64, version UInt64) ENGINE = ReplacingMergeTree(version) PARTITION BY toYYYYMM(date) ORDER BY (counter_id, metric, date)"
    }

    /// Creates the database and table when missing, then inserts one row per (day, metric) with a value.
    /// Rows are few (days × metrics), so the body is built in memory.
    public func mirror(counterID: Int, values: [Day: [Double?]], metrics: [Metric], version: UInt64) async throws -> Int {
        let settings = client.settings
        try await client.execute("CREATE DATABASE IF NOT EXISTS \(settings.database)", doing: "creating database \(settings.database)")
        try await client.execute(Self.createTable(settings.qualifiedTable), doing: "creating the table")
        var body: [UInt8] = []
        var rows = 0
        for day in values.keys.sorted() {
            for (index, metric) in metrics.enumerated() {
                guard let value = values[day]?[index] ?? nil, value.isFinite else { continue }
                body += Array("\(counterID)\t\(day.iso)\t\(metric.columnName)\t\(value)\t\(version)\n".utf8)
                rows += 1
            }
        }
        guard rows > 0 else { return 0 }
        let payload = body
        try await client.insert(into: settings.qualifiedTable, columns: ["counter_id", "date", "metric", "value", "version"], format: "TabSeparated",
                                doing: "mirroring the daily history of counter \(counterID)") { write in try write(payload) }
        return rows
    }
}
