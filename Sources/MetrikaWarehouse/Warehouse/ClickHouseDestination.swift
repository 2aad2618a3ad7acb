import Foundation
import MetrikaAPI
import MetrikaModel

/// Loads log parts into a ClickHouse MergeTree table so that re-running a range replaces it.
///
/// Why staging + `REPLACE PARTITION` rather than `ALTER TABLE … DELETE` first: on 18.16 a DELETE is an
/// asynchronous mutation that rewrites whole parts in the background, so readers would see the old
/// rows, then none, then the new ones, and a run that fails half-way would leave the range empty.
/// Here the parts go into a per-range staging table; only when every part is in do the range's new
/// rows become visible, atomically per partition. A failure before that leaves the table as it was,
/// and the staging table is what a resumed run continues to fill.
///
/// The swap: a fresh `…__swap` table (same structure) gets the staging rows, deduplicated by
/// (counter_id, id) with `LIMIT 1 BY` (a run killed between moving a part into the staging table and
/// recording it as loaded moves it again on the re-run). Then, by the table's partition key
/// (`ClickHouseTarget.Scheme`):
/// - `(counter_id, date)`, what metrika creates: `REPLACE PARTITION (counter, 'day') FROM swap` for
///   every day of the range that has new rows, `DROP PARTITION` for one that has none. Nothing but
///   the loaded rows is copied: the cost follows the rows loaded, not the rows the table holds.
/// - `toYYYYMM(date)`, tables of older metrika: every other row of the touched months (other days,
///   other counters) is copied into the swap too, then `REPLACE PARTITION <yyyymm>` per month.
/// Then both helpers are dropped. Every step can be repeated, so a crash during the swap is repaired
/// by running again.
///
/// A part is inserted into a table of its own (`…__part<N>`, same structure) and moved into the
/// staging table once it is whole, so that a part fetched again after a failed attempt (a cut
/// download, a 5xx) starts from an empty table: `discardPart` drops what the attempt wrote and the
/// staging table never holds a partial part.
package final class ClickHouseDestination: LogDestination {
    let client: ClickHouseClient
    let counterID: Int
    let source: LogSource
    let fields: [String]
    let columns: [String]
    let table: String
    let target: ClickHouseTarget

    init(client: ClickHouseClient, counterID: Int, source: LogSource, fields: [String], target: ClickHouseTarget) {
        self.client = client
        self.counterID = counterID
        self.source = source
        self.fields = fields
        self.columns = fields.map(ClickHouseSchema.columnName)
        self.table = client.settings.qualifiedTable
        self.target = target
    }

    /// Creates the database and table when missing (typed columns, see `ClickHouseSchema`), then
    /// checks what the table is (`ClickHouseTarget`): all before a log is ordered.
    package static func prepare(
        _ settings: ClickHouseSettings, counterID: Int, source: LogSource, fields: [String],
        transport: any StreamingHTTPTransport,
        clusterHint: ClickHouseError.DistributedHint = .loadAsCluster
    ) async throws -> ClickHouseDestination {
        let client = ClickHouseClient(settings: settings, transport: transport)
        try await client.execute(
            "CREATE DATABASE IF NOT EXISTS \(settings.database)", doing: "creating database \(settings.database)")
        try await client.execute(
            ClickHouseSchema.createTable(settings.qualifiedTable, fields: fields, source: source),
            doing: "creating the table")
        let target = try await ClickHouseTarget.inspect(client, fields: fields, clusterHint: clusterHint)
        var loading = client
        // The staging and helper tables have the target's partitions: a part spanning more than 100
        // days must not be refused by the server's per-insert limit (metrika's own helper inserts).
        if target.limitsPartitionsPerInsert { loading.querySettings = [("max_partitions_per_insert_block", "0")] }
        return ClickHouseDestination(
            client: loading, counterID: counterID, source: source, fields: fields, target: target)
    }

    func staging(_ from: Day, _ to: Day) -> String {
        "\(table)__staging_\(counterID)_\(from.iso.replacingOccurrences(of: "-", with: ""))_\(to.iso.replacingOccurrences(of: "-", with: ""))"
    }

    /// Runs a step of the load of `from…to`: the server stopping meanwhile is said as what it means
    /// for those days (untouched before the swap, each whole old or new during it), not as the
    /// statement that happened to be cut.
    func during<T>(_ from: Day, _ to: Day, swapping: Bool = false, _ step: () async throws -> T) async throws -> T {
        do {
            return try await step()
        } catch ClickHouseError.unreachable(let host, let port, _, _, _) {
            throw swapping
                ? ClickHouseError.stoppedDuringSwap(host: host, port: port, table: table, from: from, to: to)
                : ClickHouseError.stoppedDuringLoad(host: host, port: port, table: table, from: from, to: to)
        }
    }

    package func beginRange(from: Day, to: Day, resuming: Bool) async throws -> Bool {
        try await during(from, to) { try await startRange(from: from, to: to, resuming: resuming) }
    }

    private func startRange(from: Day, to: Day, resuming: Bool) async throws -> Bool {
        let staging = staging(from, to)
        if resuming {
            let exists = try await client.execute("EXISTS TABLE \(staging)", doing: "checking the staging table")
            if exists.trimmingCharacters(in: .whitespacesAndNewlines) == "1" { return true }
        }
        try await client.execute("DROP TABLE IF EXISTS \(staging)", doing: "dropping an old staging table")
        try await client.execute(target.createHelper(staging), doing: "creating the staging table")
        return false
    }

    func partTable(_ part: Int, _ from: Day, _ to: Day) -> String {
        staging(from, to) + "__part\(part)"
    }

    package func load(part: Int, of count: Int, from: Day, to: Day, feed: (StreamWriter) async throws -> Void)
        async throws
    {
        try await during(from, to) {
            try await insertPart(part, of: count, from: from, to: to, feed: feed)
            try await movePart(part, of: count, from: from, to: to)
        }
    }

    /// The first half of `load`: the part into a table of its own.
    func insertPart(_ part: Int, of count: Int, from: Day, to: Day, feed: (StreamWriter) async throws -> Void)
        async throws
    {
        let partTable = partTable(part, from, to)
        let name = LogExporter.partName(part, of: count)
        try await client.execute("DROP TABLE IF EXISTS \(partTable)", doing: "dropping an old table of \(name)")
        try await client.execute(target.createHelper(partTable), doing: "creating the table of \(name)")
        // A failed download is the error to report (and maybe retry), not what ClickHouse made of
        // the insert it cut short.
        let feedError = FeedError()
        // The part's header and quirks are dealt with on the way (LogPartNormalizer): ClickHouse gets
        // plain TabSeparated rows in the order of `columns`, whatever its version does with headers.
        let normalizer = LogPartNormalizer(fields: fields)
        try await withoutActuallyEscaping(feed) { feed in
            do {
                try await client.insert(
                    into: partTable, columns: columns, format: "TabSeparated",
                    doing: "inserting \(name) of \(from.iso)…\(to.iso)"
                ) { write in
                    // A write the insert refused (ClickHouse stopped reading, or went away) is the
                    // insert's failure, which the insert reports; anything else is the download's.
                    try await withoutActuallyEscaping(write) { write in
                        let send: StreamWriter = { bytes in
                            do { try await write(bytes) } catch {
                                feedError.insertStopped = true
                                throw error
                            }
                        }
                        do {
                            try await feed { chunk in try await normalizer.consume(chunk, emit: send) }
                            try await normalizer.finish(emit: send)
                        } catch {
                            if !feedError.insertStopped { feedError.error = error }
                            throw error
                        }
                    }
                }
            } catch {
                throw feedError.error ?? error
            }
        }
    }

    /// The second half of `load`: the whole part into the staging table.
    func movePart(_ part: Int, of count: Int, from: Day, to: Day) async throws {
        let partTable = partTable(part, from, to)
        let name = LogExporter.partName(part, of: count)
        try await client.execute(
            "INSERT INTO \(staging(from, to)) SELECT * FROM \(partTable)",
            doing: "moving \(name) into the staging table")
        try await client.execute("DROP TABLE IF EXISTS \(partTable)", doing: "dropping the table of \(name)")
    }

    /// Drops what the failed attempt inserted; the next `load` starts from an empty part table anyway,
    /// so a failed drop does not stop the retry.
    package func discardPart(part: Int, from: Day, to: Day) async -> Bool {
        _ = try? await client.execute(
            "DROP TABLE IF EXISTS \(partTable(part, from, to))", doing: "dropping the table of part \(part + 1)")
        return true
    }

    package func commitRange(from: Day, to: Day, parts: Int) async throws {
        try await during(from, to) { try await checkAndFillSwap(from: from, to: to) }
        try await during(from, to, swapping: true) { try await swap(from: from, to: to) }
    }

    /// The commit's first half, which changes nothing the table's readers see: the loaded rows are
    /// checked and copied, deduplicated, into the swap table.
    private func checkAndFillSwap(from: Day, to: Day) async throws {
        let staging = staging(from, to)
        let swap = staging + "__swap"
        let id = ClickHouseSchema.columnName(source.idField)
        // Every row must be of this counter and range: a row elsewhere (a date the table read as
        // 1970-01-01, another counter) would be lost by the swap, silently. Refused instead.
        let stray = try await client.rows(
            "SELECT count(), any(counter_id), any(date) FROM \(staging) WHERE NOT (counter_id = \(counterID) AND date >= '\(from.iso)' AND date <= '\(to.iso)')",
            doing: "checking the loaded rows' counter and days")
        if let row = stray.first, row.count == 3, let count = Int(row[0]), count > 0 {
            throw ClickHouseError.strayRows(
                count: count, counterID: counterID, from: from, to: to, table: table,
                foundCounter: TerminalText.quote(row[1]), foundDate: TerminalText.quote(row[2]))
        }
        try await client.execute("DROP TABLE IF EXISTS \(swap)", doing: "dropping an old swap table")
        try await client.execute(target.createHelper(swap), doing: "creating the swap table")
        try await client.execute(
            "INSERT INTO \(swap) SELECT * FROM \(staging) LIMIT 1 BY counter_id, \(id)", doing: "copying the new rows")
    }

    /// The commit's second half: the swap's days (months) replace the table's, then the helpers go.
    private func swap(from: Day, to: Day) async throws {
        let staging = staging(from, to)
        let swap = staging + "__swap"
        // A day (month) without new rows is dropped, not replaced from a swap that lacks it: current
        // ClickHouse refuses such a REPLACE PARTITION ("would silently drop"), 18.16 empties it.
        switch target.scheme {
        case .byDay:
            let present = Set(
                try await client.rows(
                    "SELECT DISTINCT date FROM \(swap) WHERE counter_id = \(counterID)",
                    doing: "reading the new rows' days"
                )
                .compactMap { $0.first.flatMap(Day.init(iso:)) })
            // One ALTER per 100 days keeps each statement far below max_query_size.
            let days = (from.ordinal...to.ordinal).map { Day(ordinal: $0) }
            for start in stride(from: 0, to: days.count, by: 100) {
                let chunk = days[start..<min(days.count, start + 100)]
                let commands = chunk.map { day in
                    present.contains(day)
                        ? "REPLACE PARTITION (\(counterID), '\(day.iso)') FROM \(swap)"
                        : "DROP PARTITION (\(counterID), '\(day.iso)')"
                }.joined(separator: ", ")
                try await client.execute(
                    "ALTER TABLE \(table) \(commands)", doing: "replacing \(chunk.first!.iso)…\(chunk.last!.iso)")
            }
        case .byMonth, .byCounterMonth:
            var months: [Int] = []
            for ordinal in from.ordinal...to.ordinal {
                let (year, month, _) = Day(ordinal: ordinal).components
                if !months.contains(year * 100 + month) { months.append(year * 100 + month) }
            }
            let monthList = months.map(String.init).joined(separator: ", ")
            // Month partitions hold every counter; counter-month partitions only this one.
            let perCounter = target.scheme == .byCounterMonth
            try await client.execute(
                "INSERT INTO \(swap) SELECT * FROM \(table) WHERE \(perCounter ? "counter_id = \(counterID) AND " : "")toYYYYMM(date) IN (\(monthList)) AND NOT (counter_id = \(counterID) AND date >= '\(from.iso)' AND date <= '\(to.iso)')",
                doing: "keeping the rest of the months")
            let present = Set(
                try await client.rows("SELECT DISTINCT toYYYYMM(date) FROM \(swap)", doing: "reading the months kept")
                    .compactMap { $0.first.flatMap { Int($0) } })
            for month in months {
                let partition = perCounter ? "(\(counterID), \(month))" : "\(month)"
                try await client.execute(
                    present.contains(month)
                        ? "ALTER TABLE \(table) REPLACE PARTITION \(partition) FROM \(swap)"
                        : "ALTER TABLE \(table) DROP PARTITION \(partition)",
                    doing: "replacing month \(month)")
            }
        }
        try await client.execute("DROP TABLE IF EXISTS \(swap)", doing: "dropping the swap table")
        try await client.execute("DROP TABLE IF EXISTS \(staging)", doing: "dropping the staging table")
    }

    /// Drops the staging table of `from…to` and its helpers (`__part<N>`, `__swap`) that a failed run
    /// left for its resume.
    package func discardRange(from: Day, to: Day) async throws {
        let staging = staging(from, to)
        let prefix = String(staging.dropFirst(client.settings.database.count + 1))
        let names = try await client.rows(
            "SELECT name FROM system.tables WHERE database = \(ClickHouseClient.quote(client.settings.database)) AND (name = \(ClickHouseClient.quote(prefix)) OR startsWith(name, \(ClickHouseClient.quote(prefix + "__"))))",
            doing: "finding the staging tables of \(from.iso)…\(to.iso)")
        // Only names metrika could have made: a name read back from the server goes into a statement
        // unquoted, so anything else (`prefix__x, other`) is left alone.
        for name in names.compactMap(\.first) where ClickHouseSettings.isIdentifier(name) {
            try await client.execute(
                "DROP TABLE IF EXISTS \(client.settings.database).\(name)", doing: "dropping \(name)")
        }
    }

    package func rowsPerDay(from: Day, to: Day) async throws -> [Day: Int]? {
        let rows = try await client.rows(
            "SELECT date, count() FROM \(table) WHERE counter_id = \(counterID) AND date >= '\(from.iso)' AND date <= '\(to.iso)' GROUP BY date",
            doing: "counting the rows of \(from.iso)…\(to.iso)")
        var result: [Day: Int] = [:]
        for row in rows where row.count == 2 {
            if let day = Day(iso: row[0]), let count = Int(row[1]) { result[day] = count }
        }
        return result
    }

    /// A table keeps what earlier runs loaded: a run without dates continues from it.
    package var remembersLoadedDays: Bool { true }

    package func finish() async throws {}

    package func abandon() {}
}

/// The error a part's download ended with, kept past the insert it was feeding.
private final class FeedError {
    var error: (any Error)?
    /// The insert stopped taking the part's bytes: its own error is the one to report.
    var insertStopped = false
}
