import Foundation
import MetrikaModel

/// Where a job writes into ClickHouse, built once from what the person named: one server, or a
/// sharded cluster (one URL per shard, in the order of the cluster's shards in `remote_servers`).
/// `logs` and `sync` both build theirs here, so the URLs are read and checked by one rule.
package enum ClickHouseEndpoint: Sendable {
    case server(ClickHouseSettings)
    case cluster(ClickHouseCluster)

    /// The target of `urls` (`URL` or `URL1,URL2,…`): the table `table` (`db.table` or `table`; nil:
    /// `defaultTable`, else the source's), on one server, or over the shards of cluster `cluster`.
    /// Several URLs without a cluster name are `ClickHouseEndpointError.shardsWithoutCluster`.
    package static func make(
        urls text: String, table: String?, defaultTable: String? = nil, source: LogSource, cluster: String?,
        environment: [String: String], timeout: Double
    ) throws -> ClickHouseEndpoint {
        let urls = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        var settings = try ClickHouseSettings.make(
            url: urls[0], table: table, source: source, environment: environment, timeout: timeout)
        if table == nil, let defaultTable { settings.table = defaultTable }
        if let cluster {
            return .cluster(
                try ClickHouseCluster.make(
                    name: cluster, urls: urls, table: settings, environment: environment, timeout: timeout))
        }
        guard urls.count == 1 else { throw ClickHouseEndpointError.shardsWithoutCluster(urls: urls.count) }
        return .server(settings)
    }

    /// Every server of `urls` (`URL` or `URL1,URL2,…`) with the table `table` (nil: metrika.visits):
    /// where `logs --clean-all` looks for the staging tables failed runs left in the table's database.
    package static func servers(urls text: String, table: String?, environment: [String: String], timeout: Double)
        throws -> [ClickHouseSettings]
    {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { url in
            try ClickHouseSettings.make(
                url: url.trimmingCharacters(in: .whitespaces), table: table, source: .visits, environment: environment,
                timeout: timeout)
        }
    }

    /// The passwords it will send (the caller's secrets to mask).
    package var passwords: [String] {
        switch self {
        case .server(let settings): return [settings.password].compactMap { $0 }
        case .cluster(let cluster): return cluster.shards.compactMap(\.password)
        }
    }
}

/// A ClickHouse target that cannot be built from what was named. Each entry point words it in its
/// own terms (the CLI with `--clickhouse` and `--cluster`); `message` is the neutral fallback.
package enum ClickHouseEndpointError: MetrikaFailure, Equatable {
    /// Several URLs (shards) and no cluster name to place them in.
    case shardsWithoutCluster(urls: Int)

    package var exitCode: Int32 { ExitCode.usage }

    package var message: String {
        switch self {
        case .shardsWithoutCluster(let urls):
            return
                "\(urls) ClickHouse URLs name shards: a sharded ClickHouse also needs the cluster's name (as in the servers' remote_servers)"
        }
    }
}
