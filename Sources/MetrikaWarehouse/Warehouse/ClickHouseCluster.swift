import Foundation
import MetrikaModel

/// A sharded ClickHouse as `--clickhouse URL1,URL2,… --cluster NAME` names it: one HTTP URL per shard,
/// in the order of the cluster's shards in the servers' `remote_servers`. metrika writes each shard's
/// local table (`metrika.visits_local`) itself and creates `metrika.visits` on every shard as a
/// `Distributed` table over them, for reading.
package struct ClickHouseCluster: Sendable {
    /// The cluster's name in `remote_servers`.
    package var name: String
    /// One per shard: its URL, the local table (`<table>_local`), the credentials.
    package var shards: [ClickHouseSettings]
    /// `db.table` of the Distributed table users query.
    package var distributedTable: String

    /// The destination as progress records it: the cluster, every shard and the table.
    package var identity: String {
        "cluster \(name): " + shards.map { "\($0.url.host ?? ""):\($0.url.port ?? 8123)" }.joined(separator: ",") + "/"
            + distributedTable
    }

    /// `settings` for the table users query (`metrika.visits`); `urls` one per shard.
    package static func make(
        name: String, urls: [String], table: ClickHouseSettings, environment: [String: String], timeout: Double
    ) throws -> ClickHouseCluster {
        guard ClickHouseSettings.isIdentifier(name) else {
            throw ClickHouseError.badClusterName(shown: TerminalText.quote(name))
        }
        var shards: [ClickHouseSettings] = []
        for text in urls {
            var shard = try ClickHouseSettings.make(
                url: text, table: nil, source: .visits, environment: environment, timeout: timeout)
            shard.database = table.database
            shard.table = table.table + "_local"
            if shards.contains(where: { $0.url == shard.url }) {
                throw ClickHouseError.repeatedShard(shown: TerminalText.quote(text))
            }
            shards.append(shard)
        }
        return ClickHouseCluster(name: name, shards: shards, distributedTable: table.qualifiedTable)
    }

    /// `CREATE TABLE IF NOT EXISTS <distributed> AS <local> ENGINE = Distributed(…)`: rows inserted
    /// through it would go to the shard `client_id % shards` picks, as metrika places them.
    package func createDistributed(_ shard: ClickHouseSettings, shardingKey: String) -> String {
        "CREATE TABLE IF NOT EXISTS \(distributedTable) AS \(shard.qualifiedTable) ENGINE = Distributed(\(name), \(shard.database), \(shard.table), \(shardingKey))"
    }
}
