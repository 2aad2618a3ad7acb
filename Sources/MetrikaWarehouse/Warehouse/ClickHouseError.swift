import MetrikaModel

/// What went wrong reaching, checking or loading ClickHouse, in words a user can act on. Every case
/// carries what the message names (the table, the shard, the option); the one-line message and the
/// exit status are derived here, and nowhere else, an option by the entry point's naming (`--table`). Text that came
/// from the user or the server is
/// held as it will be shown (already passed through `TerminalText`, a password masked), so a case can
/// never carry a secret.
package enum ClickHouseError: WordedFailure, Equatable {
    // MARK: - The command line and the environment (ClickHouseSettings, ClickHouseCluster)

    /// `--clickhouse` is not an http(s) URL with a host; `shown` is it with any credentials cut out.
    case notAURL(shown: String)
    /// `--clickhouse` holds a user or password, which would show in the process list.
    case credentialsInURL
    /// `--clickhouse` (`shown`) names a port outside 1…65535.
    case badPort(shown: String, port: Int)
    /// `--clickhouse` has a path or a query: it must be the HTTP interface's base URL.
    case notABaseURL
    /// `--table` (`shown`) is not `table` or `database.table` of identifier characters.
    case badTableName(shown: String)
    /// `--cluster` (`shown`) is not a cluster name as `remote_servers` has it.
    case badClusterName(shown: String)
    /// `--clickhouse` names the shard URL `shown` twice.
    case repeatedShard(shown: String)
    /// METRIKA_CLICKHOUSE_USER or METRIKA_CLICKHOUSE_PASSWORD (`variable`) holds a line break.
    case lineBreak(variable: String)

    // MARK: - Talking to the server (ClickHouseClient)

    /// The server could not be reached at `host:port` while `doing` something to `table`; `detail`
    /// is the transport's own account (refused, timed out, …).
    case unreachable(host: String, port: Int, doing: String, table: String, detail: String)
    /// The server answered HTTP `status` to a statement; `answer` is the first line of its answer as
    /// shown. `credentials`: the answer is about the user or password (401, 403, codes 192/193/516).
    case rejected(doing: String, table: String, status: Int, answer: String, credentials: Bool)
    /// The server at `host:port` stopped answering (killed, restarted, the network gone) while
    /// `from…to` was being loaded into `table`, before its swap: the table's old rows of those days
    /// are untouched, and the kept log request and staging table let the same command resume.
    case stoppedDuringLoad(host: String, port: Int, table: String, from: Day, to: Day)
    /// The same during the swap of `from…to` into `table`: each day is wholly old or wholly new, some
    /// may already be new; running the same command again finishes the replace.
    case stoppedDuringSwap(host: String, port: Int, table: String, from: Day, to: Day)

    // MARK: - The target table (ClickHouseTarget, ClickHouseClusterDestination)

    /// `system.tables` does not list `table` right after metrika created it in `database`.
    case tableMissing(table: String, database: String)
    /// `table` is a Distributed table; `hint` says what to load instead.
    case distributedTable(table: String, hint: DistributedHint)
    /// `table` has an engine the staged replace cannot work with (`engine` as shown).
    case unsupportedEngine(table: String, engine: String)
    /// `table` is partitioned by a key the replace does not know (`key` as shown; empty: none).
    case unsupportedPartitionKey(table: String, key: String)
    /// `table` has no column for these Logs API fields.
    case missingColumns(table: String, fields: [String])
    /// `table` has columns for these fields, but of types that do not take their values.
    case wrongColumnTypes(table: String, columns: [ColumnType])
    /// The shard at `place` knows no cluster `cluster` in its `remote_servers`.
    case unknownCluster(place: String, cluster: String)
    /// The shard at `place` knows `cluster` with `known` shards, but `given` URLs were given.
    case shardCountMismatch(place: String, cluster: String, known: Int, given: Int)
    /// On the shard at `place`, `distributed` is not a Distributed table (`engine` as shown,
    /// `missing` when absent); metrika loads `local` and reads through `distributed`.
    case notDistributed(distributed: String, place: String, engine: String, local: String)

    // MARK: - The rows (ClickHouseDestination, ShardSpool)

    /// `count` rows staged for `counterID`, `from`…`to` arrived in `table` as counter `foundCounter`
    /// on `foundDate` (both as shown): ClickHouse did not read the log as sent.
    case strayRows(
        count: Int, counterID: Int, from: Day, to: Day, table: String, foundCounter: String, foundDate: String)
    /// A line of a log part grew past 64 MiB without a line end.
    case rowTooLong
    /// A log part's header has no `field` column, the one that places a row on a shard.
    case noShardingColumn(field: String)
    /// Row `row` of a log part has `value` (as shown) in `field`, not a whole number.
    case badShardingKey(row: Int, field: String, value: String)
    /// The spool's temporary file `path` could not be created.
    case cannotCreateSpool(path: String)
    /// The spool's temporary file `path` could not be written (`reason`: the system's words).
    case cannotWriteSpool(path: String, reason: String)
    /// The spool's temporary file `path` could not be read back.
    case cannotReadSpool(path: String)

    package var exitCode: Int32 {
        switch self {
        case .notAURL, .credentialsInURL, .badPort, .notABaseURL, .badTableName, .badClusterName, .repeatedShard:
            return ExitCode.usage
        case .lineBreak, .tableMissing, .distributedTable, .unsupportedEngine, .unsupportedPartitionKey,
            .missingColumns, .wrongColumnTypes,
            .unknownCluster, .shardCountMismatch, .notDistributed:
            return ExitCode.config
        case .unreachable, .stoppedDuringLoad, .stoppedDuringSwap:
            return ExitCode.unavailable
        case .rejected(_, _, let status, _, let credentials):
            // A gateway that cannot reach the server says so with 502–504, whatever the text.
            if [502, 503, 504].contains(status) { return ExitCode.unavailable }
            return credentials ? ExitCode.noPermission : ExitCode.dataError
        case .strayRows, .rowTooLong, .noShardingColumn, .badShardingKey:
            return ExitCode.dataError
        case .cannotCreateSpool, .cannotWriteSpool, .cannotReadSpool:
            return ExitCode.cannotCreate
        }
    }

    package func message(_ naming: ParameterNaming) -> String {
        let url = naming[.clickhouse]
        let tableOption = naming[.table]
        switch self {
        case .notAURL(let shown):
            return "\(url) '\(shown)' is not an http(s) URL such as http://127.0.0.1:8123"
        case .credentialsInURL:
            return "\(url) must not hold a user or password (they would show in the process list); "
                + naming.action(.giveClickHouseCredentials)
        case .badPort(let shown, let port):
            return "\(url) '\(shown)' has port \(port); a port is 1 to 65535."
        case .notABaseURL:
            return "\(url) must be the HTTP interface's base URL (like http://127.0.0.1:8123), without path or query."
        case .badTableName(let shown):
            return "\(tableOption) '\(shown)' is not a table name like visits or metrika.visits (letters, digits, _)."
        case .badClusterName(let shown):
            return
                "\(naming[.cluster]) '\(shown)' is not a cluster name as remote_servers has it (letters, digits and _)."
        case .repeatedShard(let shown):
            return "\(url) names \(shown) twice; give one URL per shard."
        case .lineBreak(let variable):
            return "\(variable) holds a line break; fix it."
        case .unreachable(let host, let port, let doing, let table, let detail):
            return "ClickHouse at \(host):\(port) is unreachable while \(doing) (table \(table)): \(detail)."
        case .stoppedDuringLoad(let host, let port, let table, let from, let to):
            return
                "ClickHouse at \(host):\(port) stopped answering during the load of \(Self.days(from, to)) into \(table); "
                + "nothing of those days was replaced; run the same command again to resume."
        case .stoppedDuringSwap(let host, let port, let table, let from, let to):
            return
                "ClickHouse at \(host):\(port) stopped answering while replacing \(Self.days(from, to)) in \(table); "
                + "each day holds either its old or its new rows, some may already be new; run the same command again to finish the replace."
        case .rejected(let doing, let table, let status, let answer, let credentials):
            return
                "ClickHouse \(credentials ? "refused the credentials" : "rejected") \(doing) (table \(table), HTTP \(status)): \(answer)"
        case .tableMissing(let table, let database):
            return
                "table \(table) is not there although metrika just created it; check the user's rights on database \(database)."
        case .distributedTable(let table, let hint):
            let instead =
                switch hint {
                case .loadAsCluster:
                    "load a cluster's shards with \(url) URL1,URL2,… \(naming[.cluster]) NAME (docs/clickhouse.md), "
                        + "or point \(tableOption) at a MergeTree table."
                case .shardsLoadedLocally(let local): "metrika loads the shards' local tables (\(local)) itself."
                }
            return
                "table \(table) is a Distributed table: loading through it cannot replace a re-loaded range and would add the rows again on every run; \(instead)"
        case .unsupportedEngine(let table, let engine):
            return
                "table \(table) has engine \(engine); metrika loads into MergeTree tables (a re-loaded range replaces its partitions): "
                + "choose another \(tableOption), or drop this one so that metrika creates it."
        case .unsupportedPartitionKey(let table, let key):
            return
                "table \(table) is partitioned by \(key.isEmpty ? "nothing" : key); metrika replaces re-loaded days by partition and needs "
                + "PARTITION BY (counter_id, date) (or (counter_id, toYYYYMM(date)), or toYYYYMM(date) as older metrika made): "
                + "choose another \(tableOption), or create it as docs/clickhouse.md shows."
        case .missingColumns(let table, let fields):
            let additions = fields.map {
                "ADD COLUMN \(ClickHouseSchema.columnName($0)) \(ClickHouseSchema.columnType($0))"
            }.joined(separator: ", ")
            let one = fields.count == 1
            return
                "table \(table) has no column for \(fields.joined(separator: ", ")); add \(one ? "it" : "them") (ALTER TABLE \(table) \(additions)) "
                + "or leave \(one ? "that field" : "those fields") out of \(naming[.fields])."
        case .wrongColumnTypes(let table, let columns):
            let found = columns.map { "\($0.column) is \($0.found), not \($0.wanted)" }.joined(separator: ", ")
            let alterable = columns.filter { !$0.inKey }
            let keyed = columns.filter(\.inKey)
            var fixes: [String] = []
            if !alterable.isEmpty {
                fixes.append(
                    "ALTER TABLE \(table) "
                        + alterable.map { "MODIFY COLUMN \($0.column) \($0.wanted)" }.joined(separator: ", "))
            }
            if !keyed.isEmpty {
                fixes.append(
                    "\(keyed.map(\.column).joined(separator: ", ")) \(keyed.count == 1 ? "is" : "are") in the table's key, which ALTER cannot retype: "
                        + "create the table again with the types of docs/clickhouse.md (or drop it and let metrika create it)"
                )
            }
            return
                "table \(table) has columns of the wrong type (\(found)); nothing was ordered. Fix: \(fixes.joined(separator: "; ")); or choose another \(tableOption)."
        case .unknownCluster(let place, let cluster):
            return
                "\(place) knows no cluster \(cluster) (its remote_servers); give the cluster's name as the servers have it with \(naming[.cluster])."
        case .shardCountMismatch(let place, let cluster, let known, let given):
            return
                "\(place) knows cluster \(cluster) with \(known) shard\(known == 1 ? "" : "s"), but \(given) URLs were given: "
                + "give one URL per shard, in the order of remote_servers."
        case .notDistributed(let distributed, let place, let engine, let local):
            return "\(distributed) on \(place) is a \(engine) table, not the Distributed one a cluster load needs "
                + "(metrika loads \(local) and reads through \(distributed)): rename it or choose another \(tableOption)."
        case .strayRows(let count, let counterID, let from, let to, let table, let foundCounter, let foundDate):
            return
                "\(count) row\(count == 1 ? "" : "s") loaded for counter \(counterID), \(from.iso)…\(to.iso) arrived in \(table) "
                + "as counter \(foundCounter) on \(foundDate), outside the range: ClickHouse did not read the log as sent; nothing was replaced."
        case .rowTooLong:
            return "a row of the log part is longer than 64 MiB; it cannot be a Logs API row."
        case .noShardingColumn(let field):
            return "the log part has no \(field) column, which places each row on a shard."
        case .badShardingKey(let row, let field, let value):
            return
                "row \(row) of the log part has \(field) '\(value)', not a whole number: the row cannot be placed on a shard."
        case .cannotCreateSpool(let path):
            return "cannot create the temporary file \(path) to split a log part over the shards."
        case .cannotWriteSpool(let path, let reason):
            return "cannot write the temporary file \(path): \(reason)"
        case .cannotReadSpool(let path):
            return "cannot read the temporary file \(path)."
        }
    }

    /// What a Distributed table's error says to do instead.
    package enum DistributedHint: Sendable, Equatable {
        /// One server was given: load the cluster's shards, or another table.
        case loadAsCluster
        /// A cluster load found it where a shard's local table (`local`) belongs.
        case shardsLoadedLocally(String)
    }

    /// A column whose type does not take its field's values: `found` as shown, `wanted` metrika's.
    package struct ColumnType: Sendable, Equatable {
        package var column: String
        package var found: String
        package var wanted: String
        /// The column is in the table's partition, sorting or primary key.
        package var inKey: Bool

        package init(column: String, found: String, wanted: String, inKey: Bool) {
            self.column = column
            self.found = found
            self.wanted = wanted
            self.inKey = inKey
        }
    }

    /// `2026-06-01` or `2026-06-01…2026-06-03`.
    static func days(_ from: Day, _ to: Day) -> String {
        from == to ? from.iso : "\(from.iso)…\(to.iso)"
    }
}
