import Foundation
import MetrikaAPI
import MetrikaModel

/// Loads log parts into a sharded ClickHouse: every shard's local table (`metrika.visits_local`) is
/// loaded with the same staged replace as one server (`ClickHouseDestination`: day partitions swapped
/// in from a staging table), and `metrika.visits` on every shard is a `Distributed` table over them.
///
/// A row goes to shard `client_id % shards` (`ShardSpool`): a client's visits and hits stay on one
/// shard, so per-user questions (uniq users, a user's path) can be answered shard by shard, and a
/// counter of any size spreads over every shard. Each part is first split on disk, then inserted into
/// a part table on every shard, then moved into every shard's staging table; `commitRange` swaps the
/// range in shard by shard. A failure before the swap leaves every shard's old rows; a failure during
/// it is repaired by running again (every shard's staging is filled again, the swap is repeated).
package final class ClickHouseClusterDestination: LogDestination {
    let cluster: ClickHouseCluster
    let shards: [ClickHouseDestination]
    let keyField: String

    init(cluster: ClickHouseCluster, shards: [ClickHouseDestination], keyField: String) {
        self.cluster = cluster
        self.shards = shards
        self.keyField = keyField
    }

    /// The field that places a row on a shard: `clientID`, requested in cluster mode always.
    package static func shardingField(_ source: LogSource) -> String { source.prefix + "clientID" }

    /// On every shard: checks that the servers know the cluster with one shard per URL, creates the
    /// local table (checked as on one server) and the Distributed table over the shards. All before a
    /// log is ordered.
    package static func prepare(
        _ cluster: ClickHouseCluster, counterID: Int, source: LogSource, fields: [String],
        transport: any StreamingHTTPTransport
    ) async throws -> ClickHouseClusterDestination {
        ShardSpool.sweepAbandoned()
        var destinations: [ClickHouseDestination] = []
        for (index, settings) in cluster.shards.enumerated() {
            let client = ClickHouseClient(settings: settings, transport: transport)
            let place = "shard \(index + 1) (\(settings.url.host ?? ""):\(settings.url.port ?? 8123))"
            let known = try await client.rows(
                "SELECT count(DISTINCT shard_num) FROM system.clusters WHERE cluster = \(ClickHouseClient.quote(cluster.name))",
                doing: "reading the cluster's shards")
            let count = Int(known.first?.first ?? "") ?? 0
            guard count == cluster.shards.count else {
                throw count == 0
                    ? ClickHouseError.unknownCluster(place: place, cluster: cluster.name)
                    : ClickHouseError.shardCountMismatch(
                        place: place, cluster: cluster.name, known: count, given: cluster.shards.count)
            }
            let destination = try await ClickHouseDestination.prepare(
                settings, counterID: counterID, source: source, fields: fields, transport: transport,
                clusterHint: .shardsLoadedLocally(settings.qualifiedTable))
            try await client.execute(
                cluster.createDistributed(settings, shardingKey: ClickHouseSchema.columnName(shardingField(source))),
                doing: "creating the Distributed table \(cluster.distributedTable)")
            let (database, table) = split(cluster.distributedTable)
            let engine = try await client.rows(
                "SELECT engine FROM system.tables WHERE database = \(ClickHouseClient.quote(database)) AND name = \(ClickHouseClient.quote(table))",
                doing: "reading what \(cluster.distributedTable) is")
            guard engine.first?.first == "Distributed" else {
                throw ClickHouseError.notDistributed(
                    distributed: cluster.distributedTable, place: place,
                    engine: TerminalText.quote(engine.first?.first ?? "missing"), local: settings.qualifiedTable)
            }
            destinations.append(destination)
        }
        return ClickHouseClusterDestination(cluster: cluster, shards: destinations, keyField: shardingField(source))
    }

    static func split(_ qualified: String) -> (String, String) {
        let pieces = qualified.split(separator: ".", maxSplits: 1).map(String.init)
        return (pieces[0], pieces.count > 1 ? pieces[1] : "")
    }

    package func beginRange(from: Day, to: Day, resuming: Bool) async throws -> Bool {
        var kept: [Bool] = []
        for shard in shards { kept.append(try await shard.beginRange(from: from, to: to, resuming: resuming)) }
        if kept.allSatisfy({ $0 }) { return true }
        // One shard lost its staging (a swap that got as far as that shard): fill every shard again.
        for (shard, wasKept) in zip(shards, kept) where wasKept {
            _ = try await shard.beginRange(from: from, to: to, resuming: false)
        }
        return false
    }

    package func load(part: Int, of count: Int, from: Day, to: Day, feed: (StreamWriter) async throws -> Void)
        async throws
    {
        let spool = try ShardSpool(shardCount: shards.count, keyField: keyField)
        defer { spool.remove() }
        try await feed { chunk in try spool.write(chunk) }
        try spool.finish()
        for (index, shard) in shards.enumerated() {
            try await shard.during(from, to) {
                try await shard.insertPart(part, of: count, from: from, to: to) { write in
                    try await spool.read(index, into: write)
                }
            }
        }
        for shard in shards {
            try await shard.during(from, to) { try await shard.movePart(part, of: count, from: from, to: to) }
        }
    }

    package func discardPart(part: Int, from: Day, to: Day) async -> Bool {
        for shard in shards { _ = await shard.discardPart(part: part, from: from, to: to) }
        return true
    }

    package func commitRange(from: Day, to: Day, parts: Int) async throws {
        for (index, shard) in shards.enumerated() {
            do {
                try await shard.commitRange(from: from, to: to, parts: parts)
            } catch ClickHouseError.stoppedDuringLoad(let host, let port, let table, let from, let to) where index > 0 {
                // The shards before it hold the new rows already: the range is half swapped, not untouched.
                throw ClickHouseError.stoppedDuringSwap(host: host, port: port, table: table, from: from, to: to)
            }
        }
    }

    package func discardRange(from: Day, to: Day) async throws {
        for shard in shards { try await shard.discardRange(from: from, to: to) }
    }

    package func rowsPerDay(from: Day, to: Day) async throws -> [Day: Int]? {
        var total: [Day: Int] = [:]
        for shard in shards {
            for (day, rows) in try await shard.rowsPerDay(from: from, to: to) ?? [:] { total[day, default: 0] += rows }
        }
        return total
    }

    package var remembersLoadedDays: Bool { true }

    package func finish() async throws {}

    package func abandon() {}
}
