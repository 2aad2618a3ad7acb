import Foundation
import MetrikaAPI
import MetrikaModel

/// Loads log parts into a ClickHouse MergeTree table so that re-running a range replaces it.
///
/// Why staging + `REPLACE PARTITION` rather than `ALTER TABLE … DELETE` first: on 18.16 a DELETE is an
/// asynchronous mutation that rewrites whole parts in the background, so readers would see the old
/// rows, then none, then the new ones, and a run that fails half-way would leave the range empty.
/// Here the parts go into a per-range staging table; only when every part is in does one swap per
/// month make the range's new rows visible, atomically per partition. A failure before the swap
/// leaves the table as it was, and the staging table is what a resumed run continues to fill.
///
/// The swap: a fresh `…__swap` table (same structure) gets the staging rows, deduplicated by
/// (counter_id, id) with `LIMIT 1 BY` (a part reloaded after a cut insert may have left some rows
/// twice), plus every other row of the touched months from the table itself; then
/// `ALTER TABLE t REPLACE PARTITION <yyyymm> FROM swap` per month; then both helpers are dropped.
/// Every step can be repeated, so a crash during the swap is repaired by running again.
///
/// A part is inserted into a table of its own (`…__part<N>`, same structure) and moved into the
/// staging table once it is whole, so that a part fetched again after a failed attempt (a cut
/// download, a 5xx) starts from an empty table: `discardPart` drops what the attempt wrote and the
/// staging table never holds a partial part. The `LIMIT 1 BY` above stays as the safety net for a
/// run killed between the move and the record that the part is loaded.
public final class ClickHouseDestination: LogDestination, @unchecked Sendable {
    let client: ClickHouseClient
    let counterID: Int
    let source: LogSource
    let fields: [String]
    let columns: [String]
    let table: String

    init(client: ClickHouseClient, counterID: Int, source: LogSource, fields: [String]) {
        self.client = client
        self.counterID = counterID
        self.source = source
        self.fields = fields
        self.columns = fields.map(ClickHouseSchema.columnName)
        self.table = client.settings.qualifiedTable
    }

    /// Creates the database and table when missing (typed columns, see `ClickHouseSchema`).
    public static func prepare(
        _ settings: ClickHouseSettings, counterID: Int, source: LogSource, fields: [String], transport: any StreamingHTTPTransport
    ) async throws -> ClickHouseDestination {
        let client = ClickHouseClient(settings: settings, transport: transport)
        try await client.execute("CREATE DATABASE IF NOT EXISTS \(settings.database)", doing: "creating database \(settings.database)")
        try await client.execute(ClickHouseSchema.createTable(settings.qualifiedTable, fields: fields, source: source), doing: "creating the table")
        return ClickHouseDestination(client: client, counterID: counterID, source: source, fields: fields)
    }

    func staging(_ from: Day, _ to: Day) -> String {
        "\(table)__staging_\(counterID)_\(from.iso.replacingOccurrences(of: "-", with: ""))_\(to.iso.replacingOccurrences(of: "-", with: ""))"
    }

    public func beginRange(from: Day, to: Day, resuming: Bool) async throws -> Bool {
        let staging = staging(from, to)
        if resuming {
            let exists = try await client.execute("EXISTS TABLE \(staging)", doing: "checking the staging table")
            if exists.trimmingCharacters(in: .whitespacesAndNewlines) == "1" { return true }
        }
        try await client.execute("DROP TABLE IF EXISTS \(staging)", doing: "dropping an old staging table")
        try await client.execute("CREATE TABLE \(staging) AS \(table)", doing: "creating the staging table")
        return false
    }

    func partTable(_ part: Int, _ from: Day, _ to: Day) -> String {
        staging(from, to) + "__part\(part)"
    }

    public func load(part: Int, from: Day, to: Day, feed: (StreamWriter) async throws -> Void) async throws {
        let partTable = partTable(part, from, to)
        try await client.execute("DROP TABLE IF EXISTS \(partTable)", doing: "dropping an old table of part \(part)")
        try await client.execute("CREATE TABLE \(partTable) AS \(table)", doing: "creating the table of part \(part)")
        // A failed download is the error to report (and maybe retry), not what ClickHouse made of
        // the insert it cut short.
        let feedError = FeedError()
        // The part's header and quirks are dealt with on the way (LogPartNormalizer): ClickHouse gets
        // plain TabSeparated rows in the order of `columns`, whatever its version does with headers.
        let normalizer = LogPartNormalizer(fields: fields)
        try await withoutActuallyEscaping(feed) { feed in
            do {
                try await client.insert(into: partTable, columns: columns, format: "TabSeparated", doing: "inserting part \(part) of \(from.iso)…\(to.iso)") { write in
                    do {
                        try await feed { chunk in try normalizer.consume(chunk, emit: write) }
                        try normalizer.finish(emit: write)
                    } catch {
                        feedError.error = error
                        throw error
                    }
                }
            } catch {
                throw feedError.error ?? error
            }
        }
        try await client.execute("INSERT INTO \(staging(from, to)) SELECT * FROM \(partTable)", doing: "moving part \(part) into the staging table")
        try await client.execute("DROP TABLE IF EXISTS \(partTable)", doing: "dropping the table of part \(part)")
    }

    /// Drops what the failed attempt inserted; the next `load` starts from an empty part table anyway,
    /// so a failed drop does not stop the retry.
    public func discardPart(part: Int, from: Day, to: Day) async -> Bool {
        _ = try? await client.execute("DROP TABLE IF EXISTS \(partTable(part, from, to))", doing: "dropping the table of part \(part)")
        return true
    }

    public func commitRange(from: Day, to: Day, parts: Int) async throws {
        let staging = staging(from, to)
        let swap = staging + "__swap"
        let id = ClickHouseSchema.columnName(source.idField)
        var months: [Int] = []
        var day = from
        while day <= to {
            let (year, month, _) = day.components
            if !months.contains(year * 100 + month) { months.append(year * 100 + month) }
            day = Day(ordinal: day.ordinal + 1)
        }
        let monthList = months.map(String.init).joined(separator: ", ")
        try await client.execute("DROP TABLE IF EXISTS \(swap)", doing: "dropping an old swap table")
        try await client.execute("CREATE TABLE \(swap) AS \(table)", doing: "creating the swap table")
        try await client.execute("INSERT INTO \(swap) SELECT * FROM \(staging) LIMIT 1 BY counter_id, \(id)", doing: "copying the new rows")
        try await client.execute(
            "INSERT INTO \(swap) SELECT * FROM \(table) WHERE toYYYYMM(date) IN (\(monthList)) AND NOT (counter_id = \(counterID) AND date >= '\(from.iso)' AND date <= '\(to.iso)')",
            doing: "keeping the rest of the months")
        for month in months {
            try await client.execute("ALTER TABLE \(table) REPLACE PARTITION \(month) FROM \(swap)", doing: "replacing month \(month)")
        }
        try await client.execute("DROP TABLE IF EXISTS \(swap)", doing: "dropping the swap table")
        try await client.execute("DROP TABLE IF EXISTS \(staging)", doing: "dropping the staging table")
    }

    public func finish() async throws {}

    public func abandon() {}
}

/// The error a part's download ended with, kept past the insert it was feeding.
private final class FeedError {
    var error: (any Error)?
}
