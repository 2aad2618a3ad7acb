import Foundation
import MetrikaAPI
import MetrikaModel

/// Mirrors the daily history into ClickHouse `metrika.daily` for `metrika sync --clickhouse`:
/// `counter_id`, `date`, `metric` (its CSV name, such as `visits`, `bounce_rate`), `value` in API
/// units, and `version` (milliseconds since 1970 at the sync). The table is a ReplacingMergeTree on
/// `version`, so a re-sent day replaces the old value once merged; queries read it with `FINAL`.
/// Which values to send (only those that changed) is the caller's choice (`HistoryMirror`).
///
/// On a cluster (`--cluster`), every shard gets `metrika.daily_local` and `metrika.daily` as a
/// `Distributed` table over them; a counter's rows go to shard `counter_id % shards` (a counter's
/// history is small: kept together, it is replaced on one shard).
package struct ClickHouseDailyMirror: Sendable {
    /// One per shard (one on a single server), each with the table it writes.
    let clients: [ClickHouseClient]
    let cluster: ClickHouseCluster?

    package init(settings: ClickHouseSettings, transport: any StreamingHTTPTransport) {
        clients = [ClickHouseClient(settings: settings, transport: transport)]
        cluster = nil
    }

    /// A cluster's shards: their `…_local` tables, and the Distributed table over them.
    package init(cluster: ClickHouseCluster, transport: any StreamingHTTPTransport) {
        clients = cluster.shards.map { ClickHouseClient(settings: $0, transport: transport) }
        self.cluster = cluster
    }

    /// The mirror into `target` (one server or a cluster's shards).
    package init(target: ClickHouseEndpoint, transport: any StreamingHTTPTransport) {
        switch target {
        case .server(let settings): self.init(settings: settings, transport: transport)
        case .cluster(let cluster): self.init(cluster: cluster, transport: transport)
        }
    }

    /// Where the rows go, as the sync's ledger records it: host, port and table (or the cluster's).
    package var identity: String { cluster?.identity ?? clients[0].settings.identity }

    /// The table users query.
    package var table: String { cluster?.distributedTable ?? clients[0].settings.qualifiedTable }

    /// The DDL, SQL that 18.16 and current releases both accept.
    package static func createTable(_ table: String) -> String {
        "CREATE TABLE IF NOT EXISTS \(table) (counter_id UInt32, date Date, metric String, value Float64, version UInt64) ENGINE = ReplacingMergeTree(version) PARTITION BY toYYYYMM(date) ORDER BY (counter_id, metric, date)"
    }

    /// Creates the database and table when missing. True when the table was not there before (so
    /// nothing an earlier sync sent is in it).
    package func prepare() async throws -> Bool {
        var created = false
        for client in clients {
            let settings = client.settings
            try await client.execute(
                "CREATE DATABASE IF NOT EXISTS \(settings.database)", doing: "creating database \(settings.database)")
            let existed = try await client.execute(
                "EXISTS TABLE \(settings.qualifiedTable)", doing: "checking the table")
            try await client.execute(Self.createTable(settings.qualifiedTable), doing: "creating the table")
            if existed.trimmingCharacters(in: .whitespacesAndNewlines) != "1" { created = true }
            if let cluster {
                try await client.execute(
                    cluster.createDistributed(settings, shardingKey: "counter_id"),
                    doing: "creating the Distributed table \(cluster.distributedTable)")
            }
        }
        return created
    }

    /// One value of the daily history.
    package struct Row: Sendable, Equatable {
        package var day: Day
        /// The metric's CSV name.
        package var metric: String
        package var value: Double

        package init(day: Day, metric: String, value: Double) {
            self.day = day
            self.metric = metric
            self.value = value
        }
    }

    /// Inserts `rows` of a counter in one statement. Rows are few (days × metrics), so the body is
    /// built in memory.
    package func insert(counterID: Int, rows: [Row], version: UInt64) async throws {
        guard !rows.isEmpty else { return }
        var body: [UInt8] = []
        for row in rows {
            body += Array("\(counterID)\t\(row.day.iso)\t\(row.metric)\t\(row.value)\t\(version)\n".utf8)
        }
        let payload = body
        let client = clients[counterID % clients.count]
        try await client.insert(
            into: client.settings.qualifiedTable, columns: ["counter_id", "date", "metric", "value", "version"],
            format: "TabSeparated",
            doing: "mirroring the daily history of counter \(counterID)"
        ) { write in try await write(payload) }
    }
}
