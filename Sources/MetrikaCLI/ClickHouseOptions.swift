import Foundation

/// Where `logs` and `sync` find ClickHouse when the command line does not say: `--clickhouse` >
/// METRIKA_CLICKHOUSE_URL > `"clickhouse_url"` in config.json, and `--cluster` >
/// METRIKA_CLICKHOUSE_CLUSTER > `"clickhouse_cluster"` (docs/clickhouse.md).
enum ClickHouseOptions {
    /// The URL (or `URL1,URL2,…`, one per shard) from the environment or the config file.
    static func defaultURL(session: Session) throws -> String? {
        if let value = session.context.environment["METRIKA_CLICKHOUSE_URL"], !value.isEmpty { return value }
        return try session.configFile()?.clickhouseURL
    }

    /// `--cluster`, else the environment's or the config file's cluster name.
    static func cluster(_ options: ParsedOptions, session: Session) throws -> String? {
        if let value = options[.cluster] { return value }
        if let value = session.context.environment["METRIKA_CLICKHOUSE_CLUSTER"], !value.isEmpty { return value }
        return try session.configFile()?.clickhouseCluster
    }
}
