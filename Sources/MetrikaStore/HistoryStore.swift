import CSQLite
import Foundation
import MetrikaModel
import Synchronization

/// The history database: counters, daily metric values with their units, a fetch log and period totals
/// of non-additive metrics, in one SQLite file (see docs/history.md).
///
/// Each instance owns one connection and a serial queue of its own (GRDB's `DatabaseQueue` shape): every
/// method is `async` and runs whole on that queue as one indivisible unit of work while its caller is
/// suspended, so an instance may be shared between tasks and a wait on another process's lock (SQLite's
/// busy handler) never holds a thread of the cooperative pool. For parallel work open several instances
/// on the same path: under WAL readers never wait, and writers queue on a 30 s busy timeout instead of
/// failing.
///
/// Every method throws `StoreError` only.
package final class HistoryStore: Sendable {

    /// The database path.
    package let path: String
    /// The connection, reached only through `withLock`, on `queue`.
    private let connection: Mutex<Database>
    /// The owner's thread: every unit of work runs whole here, one after another, from the opening on.
    private let queue: DispatchQueue

    /// How long one statement waits for another process's lock. Generous: a cron sync and an interactive
    /// report must both succeed, and the longest write (one fetched range) takes milliseconds.
    static let busyTimeoutMilliseconds: Int32 = 30_000

    /// Opens the database at `path`, creating it and its directory (0700) when missing, then migrates it
    /// to the current schema. Every step of it (the file checks, SQLite's open, the busy handler's waits
    /// on another process's lock, the migrations, the switch to WAL) runs on the new store's own serial
    /// queue while the caller is suspended: nothing of it on the cooperative pool.
    ///
    /// A file that is not SQLite, has a damaged schema, belongs to another program or was written by a
    /// newer metrika is reported as a `StoreError` (exit 78) and left byte-for-byte untouched: nothing is
    /// written until the file has been checked. The check reads the header and the schema only, so opening
    /// costs the same for any size; damaged data pages are reported (also exit 78) by the first method
    /// that reads them, or up front by `verifyIntegrity()`.
    ///
    /// `readOnly`: a command that only reads (`cache info`, `report --offline`, `alert --status`) opens
    /// an existing, current history without writing a byte, so a backup or a history on a read-only
    /// filesystem can be inspected; every write then fails as `.readOnly`. A missing file or one whose
    /// schema is older is opened for writing as usual (it must be created or migrated first).
    package static func open(path: String, readOnly: Bool = false) async throws -> HistoryStore {
        let queue = DispatchQueue(label: "metrika.history")
        // The connection is made on the store's queue and sent, unshared, to the store (`sending`).
        let database = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Database, any Error>) in
            queue.async {
                continuation.resume(with: Result { try HistoryStore.openDatabase(path: path, readOnly: readOnly) })
            }
        }
        return HistoryStore(path: path, database: database, queue: queue)
    }

    /// `open(path:readOnly:)` for synchronous callers (tests, a tool without a task): it blocks the
    /// calling thread for the whole opening, so async code never calls it.
    @available(*, noasync, message: "opening may wait on another process's lock: use HistoryStore.open(path:readOnly:)")
    package convenience init(path: String, readOnly: Bool = false) throws {
        let queue = DispatchQueue(label: "metrika.history")
        let database = try queue.sync { try HistoryStore.openDatabase(path: path, readOnly: readOnly) }
        self.init(path: path, database: database, queue: queue)
    }

    private init(path: String, database: sending Database, queue: DispatchQueue) {
        self.path = path
        self.queue = queue
        isReadOnly = database.isReadOnly
        connection = Mutex(database)
    }

    /// The opening's work, run on the store's queue: the checks, SQLite's open, the busy timeout, the
    /// file's check, the connection's settings and the migrations.
    private static func openDatabase(path: String, readOnly: Bool) throws -> Database {
        let isFile = path != ":memory:" && !path.isEmpty
        if readOnly, isFile, let database = try HistoryStore.openForReading(path) { return database }
        if isFile {
            try HistoryStore.createParentDirectory(of: path)
            try HistoryStore.checkWritable(path)
        }
        let database: Database
        do {
            database = try Database(path: path)
        } catch let error as SQLiteError {
            throw HistoryStore.storeError(error, path: path)
        }
        do {
            try database.setBusyTimeout(milliseconds: HistoryStore.busyTimeoutMilliseconds)
            let version = try HistoryStore.checkFile(database, path: path)
            try HistoryStore.configure(database)
            if version < Schema.latestVersion {
                try HistoryStore.migrate(database, path: path)
            }
        } catch let error as SQLiteError {
            throw HistoryStore.storeError(error, path: path)
        }
        return database
    }

    /// The database path metrika uses: `METRIKA_DB`, else `$XDG_DATA_HOME/metrika/metrika.sqlite`, else
    /// `~/.local/share/metrika/metrika.sqlite`. (`--db` is the CLI's business and wins over all of them.)
    package static func defaultPath(environment: [String: String]) -> String {
        if let explicit = environment["METRIKA_DB"], !explicit.isEmpty {
            return explicit
        }
        // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return dataHome.trimmingTrailingSlashes + "/metrika/metrika.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home.trimmingTrailingSlashes + "/.local/share/metrika/metrika.sqlite"
    }

    // MARK: - Opening

    private static func createParentDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue {
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(.cannotCreate, path: path, detail: "cannot create the directory \(directory)")
        }
    }

    /// An existing history must be writable, and so must its directory unless SQLite's write-ahead log
    /// files (`<file>-wal`, `<file>-shm`) already exist there writable: in WAL mode every connection,
    /// even one that only reads, creates them. Said up front, naming what to fix (exit 78), instead of
    /// SQLite's "attempt to write a readonly database" from the first statement (exit 1).
    private static func checkWritable(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        if access(path, W_OK) != 0 {
            throw StoreError(
                .readOnly, path: path, detail: "the file is read-only: \(String(cString: strerror(errno)))")
        }
        let directory =
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        guard access(directory, W_OK) != 0 else { return }
        let reason = String(cString: strerror(errno))
        if ["-wal", "-shm"].allSatisfy({ access(path + $0, W_OK) == 0 }) { return }
        let name = (path as NSString).lastPathComponent
        throw StoreError(
            .readOnly, path: path,
            detail:
                "its directory \(directory) is not writable (\(reason)), and SQLite must create \(name)-wal and \(name)-shm there"
        )
    }

    /// The connection of a reading command, or nil when the file must be opened for writing (it does
    /// not exist, or its schema is older). Where nothing may be written (the file or its directory is
    /// read-only) the file is read immutable; elsewhere read-only, beside writers, and immutable when
    /// SQLite cannot use WAL's shared memory read-only.
    private static func openForReading(_ path: String) throws -> Database? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let folder =
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let writable = access(path, W_OK) == 0 && access(folder, W_OK) == 0
        for immutable in writable ? [false, true] : [true] {
            do {
                let database = try Database(readingOnly: path, immutable: immutable)
                try database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
                let version = try checkFile(database, path: path)
                guard version == Schema.latestVersion else { return nil }
                try database.executeScript("PRAGMA foreign_keys = ON")
                return database
            } catch let error as SQLiteError
                where !immutable && [SQLITE_READONLY, SQLITE_CANTOPEN].contains(error.primaryCode)
            {
                continue
            } catch let error as SQLiteError {
                throw storeError(error, path: path)
            }
        }
        return nil
    }

    /// Whether this store only reads (`init(path:readOnly:)`).
    package let isReadOnly: Bool

    /// Reads (never writes) the file to decide whether it is usable; returns its schema version
    /// (0 for a new, empty database).
    private static func checkFile(_ database: Database, path: String) throws -> Int {
        // The first read is where SQLite discovers a file that is not a database (SQLITE_NOTADB).
        let tables = try database.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap(
            \.first?.string)
        if tables.isEmpty {
            return 0
        }
        guard tables.contains(Schema.migrationsTable) else {
            throw StoreError(.notMetrikaDatabase, path: path, detail: "no \(Schema.migrationsTable) table")
        }
        let recorded = try database.scalar("SELECT max(version) FROM metrika_migrations")?.int ?? 0
        let userVersion = try database.scalar("PRAGMA user_version")?.int ?? 0
        let version = max(recorded, userVersion)
        if version > Schema.latestVersion {
            throw StoreError(.newerSchema(found: version, supported: Schema.latestVersion), path: path)
        }
        // No quick_check here: it reads every page (2 s for a 140 MB history), which a report served
        // from a few index pages must not pay. Reading the header and the whole schema above catches a
        // foreign or truncated file; damage anywhere else surfaces as SQLITE_CORRUPT from the statement
        // that meets it, which `perform` turns into the same exit-78 error. Bulk writers call
        // `verifyIntegrity()` before they start.
        return version
    }

    /// Reads every page of the file (`PRAGMA quick_check`) and throws `StoreError` `.corrupt` when any is
    /// damaged. For bulk writers (`sync`, `cache prune`) before their first write, so they never add to
    /// a damaged file; it costs about 15 ms per MB.
    package func verifyIntegrity() async throws {
        let problems = try await perform { database in
            try database.rows("PRAGMA quick_check").compactMap(\.first?.string)
        }
        if problems != ["ok"] {
            throw StoreError(.corrupt, path: path, detail: problems.prefix(3).joined(separator: "; "))
        }
    }

    private static func configure(_ database: Database) throws {
        // WAL: readers and one writer at a time proceed together, and a killed writer leaves only an
        // uncommitted tail of the log, which the next open discards. The mode is stored in the file,
        // so only the first open switches it.
        let mode = try database.scalar("PRAGMA journal_mode")?.string ?? ""
        if mode.lowercased() != "wal" && mode.lowercased() != "memory" {
            try retryingBusy { _ = try database.rows("PRAGMA journal_mode = WAL") }
        }
        // NORMAL is crash-safe in WAL mode (a power loss may lose the last commits, never corrupt).
        try database.executeScript("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
    }

    private static func migrate(_ database: Database, path: String) throws {
        try database.inTransaction {
            try database.executeScript(Schema.createMigrationsTable)
            // Read again under the write lock: another process may have migrated since `checkFile`.
            let current = try database.scalar("SELECT max(version) FROM metrika_migrations")?.int ?? 0
            if current > Schema.latestVersion {
                throw StoreError(.newerSchema(found: current, supported: Schema.latestVersion), path: path)
            }
            for migration in Schema.migrations where migration.version > current {
                try database.executeScript(migration.sql)
                try database.execute(
                    "INSERT INTO metrika_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    [.int(migration.version), .text(migration.name), .real(Date().timeIntervalSince1970)])
            }
            // PRAGMA takes no bound values; the number is a compile-time constant, not input.
            try database.executeScript("PRAGMA user_version = \(Schema.latestVersion)")
        }
    }

    /// Retries `body` when it still finds the file locked after SQLite's busy timeout (which waits on
    /// this thread, in SQLite's busy handler): a writer that held the lock even longer (a huge first
    /// sync) rather than failing a cron job.
    static func retryingBusy<T>(_ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.primaryCode == SQLITE_BUSY && attempt < 3 {
                attempt += 1
            }
        }
    }

    // MARK: - Units of work

    /// Runs `body` on the owner's thread, translating SQLite's errors into `StoreError`s.
    /// Closes the connection on the store's queue, after the work already queued: the end of a run
    /// (the run's services) checkpoints the WAL into the file before the process exits. Nothing may
    /// use the store afterwards.
    package func close() async {
        try? await perform { $0.close() }
    }

    private func perform<T: Sendable>(_ body: (Database) throws -> T) async throws -> T {
        try await withLock(body)
    }

    /// Runs `body` whole on the store's own serial queue, translating SQLite's errors into
    /// `StoreError`s: the one way every part of the store (history, log jobs, mirror ledger, alerts)
    /// touches the database. The calling task is suspended meanwhile, so a statement waiting on
    /// another process's lock (SQLite's busy timeout) holds the store's thread, never the cooperative
    /// pool's; units of work of several tasks queue in order on the one connection.
    func withLock<T: Sendable>(_ body: (Database) throws -> T) async throws -> T {
        try await withoutActuallyEscaping(body) { escapable in
            let work = QueuedWork(escapable)
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                queue.async {
                    let result = Result<T, any Error> {
                        do {
                            return try self.connection.withLock { database in try work.run(database) }
                        } catch let error as SQLiteError {
                            throw HistoryStore.storeError(error, path: self.path)
                        }
                    }
                    // Released before the caller resumes: the closure must not outlive its call.
                    work.release()
                    continuation.resume(with: result)
                }
            }
        }
    }

    /// Caps the file at `pages` pages of this connection (SQLite's `max_page_count`): a write that
    /// needs more fails with SQLITE_FULL exactly as on a full disk. For tests of that path
    /// (`METRIKA_DB_MAX_PAGES`); the file itself is not changed.
    package func limitPages(to pages: Int) async throws {
        _ = try await perform { database in try database.scalar("PRAGMA max_page_count = \(max(1, pages))") }
    }

    /// Runs `body` in one write transaction, holding the lock.
    private func write<T: Sendable>(_ body: (Database) throws -> T) async throws -> T {
        try await perform { database in try database.inTransaction { try body(database) } }
    }

    static func storeError(_ error: SQLiteError, path: String) -> StoreError {
        let detail = error.message
        if error.isDiskFull { return StoreError(.full, path: path, detail: detail) }
        switch error.primaryCode {
        case SQLITE_NOTADB: return StoreError(.notADatabase, path: path, detail: detail)
        case SQLITE_CORRUPT: return StoreError(.corrupt, path: path, detail: detail)
        case SQLITE_CANTOPEN: return StoreError(.cannotCreate, path: path, detail: detail)
        case SQLITE_READONLY: return StoreError(.readOnly, path: path, detail: detail)
        case SQLITE_BUSY:
            return StoreError(
                .sqlite(code: error.code), path: path,
                detail: "still locked by another metrika after waiting; try again")
        default: return StoreError(.sqlite(code: error.code), path: path, detail: detail)
        }
    }

    // MARK: - Counters

    /// Inserts or updates counters (matched by id), in one transaction.
    package func upsertCounters(_ counters: [Counter]) async throws {
        let now = Date().timeIntervalSince1970
        try await write { database in
            for counter in counters {
                try database.execute(
                    """
                    INSERT INTO counters (id, name, site, status, permission, owner_login, time_zone_name,
                        time_zone_offset_minutes, create_time, is_favorite, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET name = excluded.name, site = excluded.site,
                        status = excluded.status, permission = excluded.permission,
                        owner_login = excluded.owner_login, time_zone_name = excluded.time_zone_name,
                        time_zone_offset_minutes = excluded.time_zone_offset_minutes,
                        create_time = excluded.create_time, is_favorite = excluded.is_favorite,
                        updated_at = excluded.updated_at
                    """,
                    [
                        .int(counter.id), .text(counter.name), .text(counter.site), .text(counter.status),
                        .text(counter.permission), .text(counter.ownerLogin), .text(counter.timeZoneName),
                        .int(counter.timeZoneOffsetMinutes), counter.createTime.map(SQLiteValue.text) ?? .null,
                        .bool(counter.isFavorite), .real(now)
                    ])
            }
        }
    }

    /// The currency a counter keeps its revenue in, as the API last said it; nil when never seen.
    package func counterCurrency(id: Int) async throws -> Currency? {
        try await counterCurrencySeen(id: id)?.currency
    }

    /// The same, with when the API said it.
    package func counterCurrencySeen(id: Int) async throws -> (currency: Currency, seenAt: Date)? {
        try await perform { database in
            guard
                let row = try database.rows(
                    "SELECT currency, seen_at FROM counter_currency WHERE counter_id = ?", [.int(id)]
                ).first,
                let currency = row[0].string.flatMap(Currency.init(code:)), let seen = row[1].double
            else { return nil }
            return (currency, Date(timeIntervalSince1970: seen))
        }
    }

    /// Records the currency the API answered a counter's money metrics in (the counter must be stored).
    package func storeCounterCurrency(id: Int, currency: Currency, seenAt: Date) async throws {
        try await write { database in
            try requireCounter(id, in: database)
            try database.execute(
                """
                INSERT INTO counter_currency (counter_id, currency, seen_at) VALUES (?, ?, ?)
                ON CONFLICT (counter_id) DO UPDATE SET currency = excluded.currency, seen_at = excluded.seen_at
                """, [.int(id), .text(currency.code), .real(seenAt.timeIntervalSince1970)])
        }
    }

    private static let counterColumns = """
        SELECT id, name, site, status, permission, owner_login, time_zone_name, time_zone_offset_minutes,
            create_time, is_favorite FROM counters
        """

    /// Every stored counter, by id.
    package func counters() async throws -> [Counter] {
        try await perform { database in
            try database.rows(HistoryStore.counterColumns + " ORDER BY id").map(HistoryStore.counter(from:))
        }
    }

    /// The stored counter with this id, if any.
    package func counter(id: Int) async throws -> Counter? {
        try await perform { database in
            try database.rows(HistoryStore.counterColumns + " WHERE id = ?", [.int(id)]).first.map(
                HistoryStore.counter(from:))
        }
    }

    private static func counter(from row: [SQLiteValue]) -> Counter {
        Counter(
            id: row[0].int ?? 0, name: row[1].string ?? "", site: row[2].string ?? "", status: row[3].string ?? "",
            permission: row[4].string ?? "", ownerLogin: row[5].string ?? "", timeZoneName: row[6].string ?? "",
            timeZoneOffsetMinutes: row[7].int ?? 0, createTime: row[8].string, isFavorite: row[9].int == 1)
    }

    private func requireCounter(_ id: Int, in database: Database) throws {
        guard try database.scalar("SELECT 1 FROM counters WHERE id = ?", [.int(id)]) != nil else {
            throw StoreError(.unknownCounter(id), path: path)
        }
    }

    // MARK: - Daily values

    /// Stores one fetched range in ONE transaction, replacing every stored (day, metric) of the range, and
    /// logs the fetch.
    ///
    /// - Parameters:
    ///   - values: one row per day, aligned with `metrics`; the caller fills days the API omitted. A day of
    ///     `range` without a row ends up not stored (so it is fetched again); days outside `range` are ignored.
    ///   - settledBefore: days before this one were final when fetched; later days are still changing and
    ///     `settledDays` leaves them out so they are fetched again.
    ///   - dataLag: the API's `data_lag` in seconds.
    /// - Throws: `StoreError` (`.unknownCounter` if the counter was never stored, `.invalidInput` for a row of
    ///   the wrong width); nothing of the range is written then.
    package func storeDaily(
        counterID: Int, range: DateRange, metrics: [Metric], values: [Day: [Double?]], fetchedAt: Date,
        settledBefore: Day, sampled: Bool, dataLag: Double?
    ) async throws {
        guard Set(metrics.map(\.apiName)).count == metrics.count else {
            throw StoreError(.invalidInput, path: path, detail: "a metric is listed twice: \(metrics.map(\.apiName))")
        }
        try await write { database in
            try requireCounter(counterID, in: database)
            try database.execute(
                """
                INSERT INTO fetch_log (counter_id, range_from, range_to, metrics, fetched_at, settled_before, sampled, data_lag)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .int(counterID), .text(range.from.iso), .text(range.to.iso),
                    .text(metrics.map(\.apiName).joined(separator: ",")),
                    .real(fetchedAt.timeIntervalSince1970), .text(settledBefore.iso), .bool(sampled), .real(dataLag)
                ])
            let fetchID = Int(sqlite3_last_insert_rowid(database.handle))
            for metric in metrics {
                try database.execute(
                    "DELETE FROM daily_values WHERE counter_id = ? AND metric = ? AND day BETWEEN ? AND ?",
                    [.int(counterID), .text(metric.apiName), .text(range.from.iso), .text(range.to.iso)])
            }
            for day in range.days {
                guard let row = values[day] else { continue }
                // Checked while writing: the transaction makes a late failure leave nothing behind.
                guard row.count == metrics.count else {
                    throw StoreError(
                        .invalidInput, path: path,
                        detail: "\(row.count) values for \(metrics.count) metrics on \(day.iso)")
                }
                let settled = day < settledBefore
                for (metric, value) in zip(metrics, row) {
                    try database.execute(
                        """
                        INSERT INTO daily_values (counter_id, metric, day, unit, value, settled, fetch_id)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .int(counterID), .text(metric.apiName), .text(day.iso), .text(metric.storedUnit),
                            .real(value.flatMap { $0.isFinite ? $0 : nil }), .bool(settled), .int(fetchID)
                        ])
                }
            }
        }
    }

    /// The earliest day with any stored value of the counter; nil when none is stored. One index lookup,
    /// so `sync` can ask it per counter without scanning the whole history.
    package func firstStoredDay(counterID: Int) async throws -> Day? {
        try await perform { database in
            try database.scalar("SELECT min(day) FROM daily_values WHERE counter_id = ?", [.int(counterID)])
        }?.string.flatMap(Day.init(iso:))
    }

    /// Stored daily values of these metrics, one row per day aligned with `metrics`: only days for which
    /// every metric is stored (with the unit the metric has now).
    package func dailyValues(counterID: Int, range: DateRange, metrics: [Metric]) async throws -> [Day: [Double?]] {
        try await storedCells(counterID: counterID, range: range, metrics: metrics).mapValues { cells in
            cells.map(\.value)
        }
    }

    /// Days of `range` stored for every metric and final when fetched: they need no refetch.
    ///
    /// Counted by SQLite (one row per settled day) rather than read cell by cell: a warm `sync` asks
    /// this for 365 days × 6 metrics of every counter and needs only the answer (docs/performance.md).
    /// The same rule as `storedCells`: every metric stored with the unit it has now, all settled.
    package func settledDays(counterID: Int, range: DateRange, metrics: [Metric]) async throws -> Set<Day> {
        guard !metrics.isEmpty else { return [] }
        let pairs = Array(repeating: "(?, ?)", count: metrics.count).joined(separator: ", ")
        let sql = """
            SELECT day FROM daily_values
            WHERE counter_id = ? AND day BETWEEN ? AND ? AND (metric, unit) IN (VALUES \(pairs))
            GROUP BY day HAVING count(*) = ? AND min(settled) = 1
            """
        var values: [SQLiteValue] = [.int(counterID), .text(range.from.iso), .text(range.to.iso)]
        for metric in metrics { values += [.text(metric.apiName), .text(metric.storedUnit)] }
        values.append(.int(metrics.count))
        let rows = try await perform { database in try database.rows(sql, values) }
        return Set(rows.compactMap { $0.first?.string.flatMap(Day.init(iso:)) })
    }

    /// Days of `range` whose stored values (of any of `metrics`) came from a sampled answer: estimates the
    /// report should flag, as it would for a live sampled answer.
    package func sampledDays(counterID: Int, range: DateRange, metrics: [Metric]) async throws -> Set<Day> {
        guard !metrics.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: metrics.count).joined(separator: ", ")
        let sql = """
            SELECT DISTINCT v.day FROM daily_values v JOIN fetch_log f ON f.id = v.fetch_id
            WHERE v.counter_id = ? AND v.day BETWEEN ? AND ? AND f.sampled = 1 AND v.metric IN (\(placeholders))
            """
        let rows = try await perform { database in
            try database.rows(
                sql, [.int(counterID), .text(range.from.iso), .text(range.to.iso)] + metrics.map { .text($0.apiName) })
        }
        return Set(rows.compactMap { $0.first?.string.flatMap(Day.init(iso:)) })
    }

    /// The stored cells of complete days. One SELECT, so the answer is one consistent snapshot even while
    /// another process writes.
    private func storedCells(counterID: Int, range: DateRange, metrics: [Metric]) async throws -> [Day: [(
        value: Double?, settled: Bool
    )]] {
        guard !metrics.isEmpty else { return [:] }
        var column: [String: (index: Int, unit: String)] = [:]
        for (index, metric) in metrics.enumerated() {
            column[metric.apiName] = (index, metric.storedUnit)
        }
        // One placeholder per metric: the SQL text depends only on the count, values are bound.
        let placeholders = Array(repeating: "?", count: metrics.count).joined(separator: ", ")
        let sql = """
            SELECT day, metric, unit, value, settled FROM daily_values
            WHERE counter_id = ? AND day BETWEEN ? AND ? AND metric IN (\(placeholders))
            """
        let rows = try await perform { database in
            try database.rows(
                sql, [.int(counterID), .text(range.from.iso), .text(range.to.iso)] + metrics.map { .text($0.apiName) })
        }
        var cells: [Day: [(value: Double?, settled: Bool)?]] = [:]
        for row in rows {
            guard let day = row[0].string.flatMap(Day.init(iso:)), let metric = row[1].string,
                let (index, unit) = column[metric], row[2].string == unit
            else { continue }
            cells[day, default: Array(repeating: nil, count: metrics.count)][index] = (row[3].double, row[4].int == 1)
        }
        return cells.compactMapValues { row in
            row.allSatisfy { $0 != nil } ? row.map { $0! } : nil
        }
    }

    // MARK: - Period totals

    /// Stores the API's total of a metric over a period (users of a week), replacing an earlier one.
    package func storePeriodTotal(
        counterID: Int, period: DateRange, metric: Metric, value: Double?, settled: Bool, fetchedAt: Date
    ) async throws {
        try await write { database in
            try requireCounter(counterID, in: database)
            try database.execute(
                """
                INSERT OR REPLACE INTO period_totals (counter_id, metric, period_from, period_to, unit, value, settled, fetched_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .int(counterID), .text(metric.apiName), .text(period.from.iso), .text(period.to.iso),
                    .text(metric.storedUnit),
                    .real(value.flatMap { $0.isFinite ? $0 : nil }), .bool(settled),
                    .real(fetchedAt.timeIntervalSince1970)
                ])
        }
    }

    /// The stored total of a metric over exactly this period, and whether it was final when fetched; nil
    /// when none is stored (or it was stored with another unit).
    package func periodTotal(counterID: Int, period: DateRange, metric: Metric) async throws -> (
        value: Double?, settled: Bool
    )? {
        let row = try await perform { database in
            try database.rows(
                """
                SELECT value, settled FROM period_totals
                WHERE counter_id = ? AND metric = ? AND period_from = ? AND period_to = ? AND unit = ?
                """,
                [
                    .int(counterID), .text(metric.apiName), .text(period.from.iso), .text(period.to.iso),
                    .text(metric.storedUnit)
                ]
            ).first
        }
        guard let row else { return nil }
        return (row[0].double, row[1].int == 1)
    }

    // MARK: - Maintenance

    /// What is stored, for `metrika cache info`.
    package func info() async throws -> CacheInfo {
        let (rows, version) = try await perform { database in
            let rows = try database.rows(
                """
                SELECT c.id, c.name,
                    (SELECT min(day) FROM daily_values WHERE counter_id = c.id),
                    (SELECT max(day) FROM daily_values WHERE counter_id = c.id),
                    (SELECT count(DISTINCT day) FROM daily_values WHERE counter_id = c.id),
                    (SELECT max(fetched_at) FROM fetch_log WHERE counter_id = c.id)
                FROM counters c ORDER BY c.id
                """)
            let version = try database.scalar("SELECT max(version) FROM metrika_migrations")?.int ?? 0
            return (rows, version)
        }
        let counters = rows.map { row in
            CacheInfo.CounterHistory(
                id: row[0].int ?? 0, name: row[1].string ?? "",
                firstDay: row[2].string.flatMap(Day.init(iso:)), lastDay: row[3].string.flatMap(Day.init(iso:)),
                dayCount: row[4].int ?? 0, lastFetchedAt: row[5].double.map(Date.init(timeIntervalSince1970:)))
        }
        let lastSync = counters.compactMap(\.lastFetchedAt).max()
        return CacheInfo(
            path: path, sizeBytes: fileSize(path) + fileSize(path + "-wal"), schemaVersion: version,
            counters: counters, lastSync: lastSync)
    }

    private func fileSize(_ file: String) -> Int64 {
        guard path != ":memory:", !path.isEmpty,
            let size = try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber
        else { return 0 }
        return size.int64Value
    }

    /// Deletes, in one transaction, daily and hourly values of days before `before` and period totals of periods
    /// ending before it (plus fetch-log entries left describing nothing). Returns how many values (daily
    /// values and period totals) were deleted. The file does not shrink until `VACUUM`.
    package func prune(before: Day) async throws -> Int {
        try await write { database in
            try database.execute("DELETE FROM daily_values WHERE day < ?", [.text(before.iso)])
            let dailyCount = database.changes
            try database.execute("DELETE FROM period_totals WHERE period_to < ?", [.text(before.iso)])
            let totalCount = database.changes
            try database.execute("DELETE FROM hourly_values WHERE day < ?", [.text(before.iso)])
            let hourlyCount = database.changes
            // Their segment values go with the days (ON DELETE CASCADE).
            try database.execute("DELETE FROM segment_days WHERE day < ?", [.text(before.iso)])
            try database.execute(
                """
                DELETE FROM fetch_log WHERE range_to < ?
                    AND NOT EXISTS (SELECT 1 FROM daily_values WHERE fetch_id = fetch_log.id)
                """, [.text(before.iso)])
            return dailyCount + totalCount + hourlyCount
        }
    }

    /// SQLite's `PRAGMA integrity_check`: "ok" when the file is sound, otherwise its findings, one a line.
    package func integrityCheck() async throws -> String {
        try await perform { database in
            try database.rows("PRAGMA integrity_check").compactMap(\.first?.string).joined(separator: "\n")
        }
    }
}

extension String {
    fileprivate var trimmingTrailingSlashes: String {
        var text = self
        while text.count > 1 && text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

/// A unit of work handed to the store's queue. It runs once there while its caller is suspended, and
/// is dropped before the caller resumes (`withoutActuallyEscaping` checks that it did not escape).
private final class QueuedWork<T>: @unchecked Sendable {
    private var body: ((Database) throws -> T)?

    init(_ body: @escaping (Database) throws -> T) {
        self.body = body
    }

    func run(_ database: Database) throws -> T {
        guard let body else { preconditionFailure("a queued unit of work ran twice") }
        return try body(database)
    }

    func release() {
        body = nil
    }
}
