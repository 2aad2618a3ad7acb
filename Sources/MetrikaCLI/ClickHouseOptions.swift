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

extension Option where Value == String? {
    /// `--clickhouse URL[,URL…]`, as written (`ClickHouseSettings` checks each URL); `sync` tells it
    /// in its own words.
    static var clickhouse: Option<String?> {
        .text("clickhouse", value: "URL[,URL…]", help: "Load into ClickHouse over HTTP (e.g. http://127.0.0.1:8123); one URL per shard with --cluster")
    }
    /// `--cluster NAME`, as written (`ClickHouseCluster` checks it).
    static var cluster: Option<String?> {
        .text("cluster", value: "NAME", help: "Load a sharded ClickHouse: NAME as in remote_servers (default: METRIKA_CLICKHOUSE_CLUSTER)")
    }
}
