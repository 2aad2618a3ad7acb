import Foundation
import MetrikaModel
import MetrikaWarehouse

/// A `metrika logs` load as the user asked for it, checked before anything is opened or ordered:
/// which counter and rows, which fields, which days, and where the rows go. The CLI builds it from
/// options (the ClickHouse settings from the URL, `--table` and the environment); `LogsLoad` runs it.
package struct LogsRequest: Sendable {
    /// Where the rows go.
    package enum Target: Sendable {
        /// `--output FILE`; `-` is standard output.
        case file(path: String)
        /// One ClickHouse server's table.
        case clickhouse(ClickHouseSettings)
        /// A sharded ClickHouse: each shard's local table, and the Distributed table over them.
        case cluster(ClickHouseCluster)
    }

    /// Which days.
    package enum Days: Sendable {
        /// `--from` … `--to`, resolved against the counter's today.
        case range(from: DateExpression, to: DateExpression)
        /// No dates: continue the earlier load of the same counter and source into the same table,
        /// loading its last `lateDays` days again (`LogsContinuation`).
        case continuing(lateDays: Int)
    }

    package var counterID: Int
    package var source: LogSource
    /// Full names (`ym:s:visitID`), the source's required ones first; in cluster mode the client id,
    /// which places a row on its shard, is always among them.
    package private(set) var fields: [String]
    package var target: Target
    package var days: Days
    /// Seconds before the first poll of a log being prepared (each next wait is 1.5× longer).
    package var firstPollInterval: Double

    /// Throws a `ParameterError` for a run without dates into a file: only a table remembers what was loaded.
    package init(
        counterID: Int, source: LogSource, fields: [String]? = nil, target: Target, days: Days,
        firstPollInterval: Double = 10
    ) throws {
        if case .continuing = days, case .file = target {
            throw ParameterError(.from, .malformed(value: "")) {
                "Missing \($0[.from]) DATE (a run without dates continues a ClickHouse table; a file needs \($0[.from]))"
            }
        }
        self.counterID = counterID
        self.source = source
        var chosen = fields ?? source.defaultFields
        for required in source.requiredFields.reversed() where !chosen.contains(required) {
            chosen.insert(required, at: 0)
        }
        if case .cluster = target {
            let sharding = ClickHouseClusterDestination.shardingField(source)
            if !chosen.contains(sharding) { chosen.append(sharding) }
        }
        self.fields = chosen
        self.target = target
        self.days = days
        self.firstPollInterval = firstPollInterval
    }

    /// `--fields`: comma-separated names with or without the source's prefix (`visitID`,
    /// `ym:s:visitID`), each once; a field of the other source or a name that is not one is refused.
    package static func fields(parsing text: String, source: LogSource) throws -> [String] {
        var fields: [String] = []
        for raw in text.split(separator: ",") {
            var name = raw.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            let other = source == .visits ? LogSource.hits.prefix : LogSource.visits.prefix
            if name.hasPrefix(other) {
                let name = name
                throw ParameterError(.fields, .malformed(value: name)) {
                    "\($0[.fields]) '\(name)' belongs to the other source (\(source.rawValue) fields start with \(source.prefix))"
                }
            }
            if !name.hasPrefix(source.prefix) { name = source.prefix + name }
            guard name.dropFirst(source.prefix.count).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
                name.count > source.prefix.count
            else {
                let name = name
                throw ParameterError(.fields, .malformed(value: name)) {
                    "\($0[.fields]) '\(name)' is not a field name such as \(source.prefix)date"
                }
            }
            if !fields.contains(name) { fields.append(name) }
        }
        return fields
    }

    /// The destination as the history database records a run's progress and the days it loaded:
    /// `stdout`, `file:<absolute path>`, or `clickhouse:<host:port/table>` (a cluster: its identity).
    package var destinationKey: String {
        switch target {
        case .file(let path):
            return path == "-" ? "stdout" : "file:" + URL(fileURLWithPath: path).standardizedFileURL.path
        case .clickhouse(let settings): return "clickhouse:" + settings.identity
        case .cluster(let cluster): return "clickhouse:" + cluster.identity
        }
    }

    /// The target as messages name it: the table's identity, standard output or the quoted file.
    var targetDescription: String {
        switch target {
        case .file(let path): return path == "-" ? "standard output" : "'\(TerminalText.quote(path))'"
        case .clickhouse(let settings): return settings.identity
        case .cluster(let cluster): return cluster.identity
        }
    }
}
