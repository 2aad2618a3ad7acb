import Foundation
import MetrikaModel
import MetrikaWarehouse

/// Where `logs` and `sync` find ClickHouse when the command line does not say: `--clickhouse` >
/// METRIKA_CLICKHOUSE_URL > `"clickhouse_url"` in config.json, and `--cluster` >
/// METRIKA_CLICKHOUSE_CLUSTER > `"clickhouse_cluster"` (docs/clickhouse.md).
enum ClickHouseOptions {
    /// The URL (or `URL1,URL2,…`, one per shard) from the environment or the config file.
    static func defaultURL(session: Session) throws -> String? {
        if let value = session.context.environment["METRIKA_CLICKHOUSE_URL"], !value.isEmpty { return value }
        return try session.services.configFile()?.clickhouseURL
    }

    /// `--cluster`, else the environment's or the config file's cluster name.
    static func cluster(_ options: ParsedOptions, session: Session) throws -> String? {
        if let value = options[.cluster] { return value }
        if let value = session.context.environment["METRIKA_CLICKHOUSE_CLUSTER"], !value.isEmpty { return value }
        return try session.services.configFile()?.clickhouseCluster
    }

    /// The ClickHouse target of `urls` (`--clickhouse` or its default), built by Warehouse's one rule;
    /// its passwords become secrets of the run, and its errors are worded with this command line's options.
    static func target(
        urls: String, table: String?, defaultTable: String? = nil, source: LogSource, cluster: String?, session: Session
    ) throws -> ClickHouseEndpoint {
        let timeout = try session.services.requestTimeout()
        do {
            let target = try ClickHouseEndpoint.make(
                urls: urls, table: table, defaultTable: defaultTable, source: source, cluster: cluster,
                environment: session.context.environment, timeout: timeout)
            for password in target.passwords { session.context.secrets.add(password) }
            return target
        } catch ClickHouseEndpointError.shardsWithoutCluster(let count) {
            throw UsageError(
                "--clickhouse names \(count) URLs: a sharded ClickHouse also needs --cluster NAME (as in the servers' remote_servers)"
            )
        }
    }
}
