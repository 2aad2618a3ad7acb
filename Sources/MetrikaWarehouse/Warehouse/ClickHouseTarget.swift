import Foundation
import MetrikaAPI
import MetrikaModel

/// The table a load goes into, as ClickHouse describes it (`system.tables`, `system.columns`), read
/// before a log is ordered: a table metrika cannot replace ranges in (a `Distributed` table, a `Log`,
/// a view, a partition key the replace does not know) or one that lacks a column for a requested
/// field is refused (exit 78) before anything is ordered or written.
package struct ClickHouseTarget: Sendable, Equatable {
    /// How a re-loaded range replaces the old rows (docs/clickhouse.md, "Re-running a range").
    package enum Scheme: Sendable, Equatable {
        /// `PARTITION BY (counter_id, date)`: a day of a counter is a partition, replaced whole from
        /// the staging table; nothing else is copied. What metrika creates.
        case byDay
        /// `PARTITION BY toYYYYMM(date)` (tables made by metrika before the day scheme): the rest of
        /// each touched month is copied beside the new rows, then the month is replaced.
        case byMonth
        /// `PARTITION BY (counter_id, toYYYYMM(date))` (a table the user made for fewer partitions):
        /// the counter's other days of each touched month are copied, other counters are not read.
        case byCounterMonth
    }

    package var table: String
    package var engine: String
    package var partitionKey: String
    package var sortingKey: String
    package var primaryKey: String
    package var samplingKey: String
    /// Column name → type.
    package var columns: [String: String]
    package var scheme: Scheme
    /// Whether the server limits the partitions one INSERT block may touch
    /// (`max_partitions_per_insert_block`, 100 by default since 19.x; 18.16 has no such setting):
    /// a load of more than 100 days into day partitions needs the limit lifted for its inserts.
    package var limitsPartitionsPerInsert = false

    /// The engine clause of helper tables (staging, swap, parts) when `CREATE TABLE h AS t` would copy
    /// something a helper must not have: a replicated target's ZooKeeper path. Nil: `AS t` is enough.
    package var helperEngine: String? {
        guard engine.hasPrefix("Replicated") else { return nil }
        var clause = "MergeTree() PARTITION BY \(partitionKey) ORDER BY (\(sortingKey))"
        if !primaryKey.isEmpty, primaryKey != sortingKey { clause += " PRIMARY KEY (\(primaryKey))" }
        if !samplingKey.isEmpty { clause += " SAMPLE BY \(samplingKey)" }
        return clause
    }

    /// `CREATE TABLE helper AS target [ENGINE = …]`.
    package func createHelper(_ helper: String) -> String {
        "CREATE TABLE \(helper) AS \(table)" + (helperEngine.map { " ENGINE = " + $0 } ?? "")
    }

    /// Reads the table's engine, keys and columns and checks that a load of `fields` can go in.
    package static func inspect(
        _ client: ClickHouseClient, fields: [String], clusterHint: ClickHouseError.DistributedHint
    ) async throws -> ClickHouseTarget {
        let settings = client.settings
        let table = settings.qualifiedTable
        let database = ClickHouseClient.quote(settings.database)
        let name = ClickHouseClient.quote(settings.table)
        let described = try await client.rows(
            "SELECT engine, partition_key, sorting_key, primary_key, sampling_key FROM system.tables WHERE database = \(database) AND name = \(name)",
            doing: "reading what the table is")
        guard let row = described.first, row.count == 5 else {
            throw ClickHouseError.tableMissing(table: table, database: settings.database)
        }
        let columnRows = try await client.rows(
            "SELECT name, type FROM system.columns WHERE database = \(database) AND table = \(name)",
            doing: "reading the table's columns")
        var columns: [String: String] = [:]
        for column in columnRows where column.count == 2 { columns[column[0]] = column[1] }
        var target = try ClickHouseTarget(
            table: table, engine: row[0], partitionKey: row[1], sortingKey: row[2], primaryKey: row[3],
            samplingKey: row[4], columns: columns,
            clusterHint: clusterHint)
        try target.check(fields: fields)
        let limit = try await client.rows(
            "SELECT count() FROM system.settings WHERE name = 'max_partitions_per_insert_block'",
            doing: "reading the server's insert settings")
        target.limitsPartitionsPerInsert = limit.first?.first == "1"
        return target
    }

    /// Decides the scheme, refusing what the replace cannot handle.
    package init(
        table: String, engine: String, partitionKey: String, sortingKey: String, primaryKey: String,
        samplingKey: String, columns: [String: String],
        clusterHint: ClickHouseError.DistributedHint
    ) throws {
        self.table = table
        self.engine = engine
        self.partitionKey = partitionKey
        self.sortingKey = sortingKey
        self.primaryKey = primaryKey
        self.samplingKey = samplingKey
        self.columns = columns
        if engine == "Distributed" {
            throw ClickHouseError.distributedTable(table: table, hint: clusterHint)
        }
        guard engine == "MergeTree" || engine == "ReplicatedMergeTree" else {
            throw ClickHouseError.unsupportedEngine(table: table, engine: TerminalText.quote(engine))
        }
        switch Self.normalized(partitionKey) {
        case "counter_id,date": scheme = .byDay
        case "toYYYYMM(date)": scheme = .byMonth
        case "counter_id,toYYYYMM(date)": scheme = .byCounterMonth
        default:
            throw ClickHouseError.unsupportedPartitionKey(table: table, key: TerminalText.quote(partitionKey))
        }
    }

    /// Every requested field has its column, of a type that takes the field's values (ClickHouse
    /// would refuse the insert, or the checks on counter_id and date, only after the log was ordered
    /// and downloaded).
    package func check(fields: [String]) throws {
        let missing = fields.filter { columns[ClickHouseSchema.columnName($0)] == nil }
        if !missing.isEmpty { throw ClickHouseError.missingColumns(table: table, fields: missing) }
        let mismatched = fields.compactMap { field -> ClickHouseError.ColumnType? in
            let name = ClickHouseSchema.columnName(field)
            let wanted = ClickHouseSchema.columnType(field)
            guard let found = columns[name], !Self.takes(found, wanted) else { return nil }
            return ClickHouseError.ColumnType(
                column: name, found: TerminalText.quote(found), wanted: wanted, inKey: isKeyColumn(name))
        }
        if !mismatched.isEmpty { throw ClickHouseError.wrongColumnTypes(table: table, columns: mismatched) }
    }

    /// Whether a column of type `found` (as ClickHouse spells it) takes every value of a field metrika
    /// types `wanted`: the same type, or a wider integer the text of every such value fits (UInt32
    /// into UInt64 or Int64). Nothing else is taken on trust: a String column holds a date or an
    /// array as mere text, a DateTime with a time zone reads the times in it.
    static func takes(_ found: String, _ wanted: String) -> Bool {
        if found == wanted { return true }
        if found.hasPrefix("Array("), wanted.hasPrefix("Array("), found.hasSuffix(")"), wanted.hasSuffix(")") {
            return takes(String(found.dropFirst(6).dropLast()), String(wanted.dropFirst(6).dropLast()))
        }
        guard let have = integerWidth(found), let need = integerWidth(wanted) else { return false }
        // (bits, signed): unsigned into wider unsigned or into a strictly wider signed; signed into wider signed.
        if need.signed { return have.signed && have.bits >= need.bits }
        return have.signed ? have.bits > need.bits : have.bits >= need.bits
    }

    static func integerWidth(_ type: String) -> (bits: Int, signed: Bool)? {
        for bits in [8, 16, 32, 64] {
            if type == "UInt\(bits)" { return (bits, false) }
            if type == "Int\(bits)" { return (bits, true) }
        }
        return nil
    }

    /// Whether `column` is named in the partition, sorting or primary key (which ALTER cannot retype).
    func isKeyColumn(_ column: String) -> Bool {
        [partitionKey, sortingKey, primaryKey, samplingKey].contains { key in
            key.split { !($0.isLetter || $0.isNumber || $0 == "_") }.contains { $0 == column }
        }
    }

    /// `(counter_id, date)` → `counter_id,date`: spaces and one pair of outer parentheses dropped.
    static func normalized(_ key: String) -> String {
        var text = key.filter { !$0.isWhitespace }
        if text.hasPrefix("("), text.hasSuffix(")") {
            // Outer parentheses only when they enclose the whole key: `(a, f(b))`, not `f(a), g(b)`.
            var depth = 0
            var enclosing = true
            for (offset, character) in text.enumerated() {
                if character == "(" { depth += 1 }
                if character == ")" { depth -= 1 }
                if depth == 0, offset < text.count - 1 {
                    enclosing = false
                    break
                }
            }
            if enclosing { text = String(text.dropFirst().dropLast()) }
        }
        return text
    }
}
