import CSQLite
import Foundation

/// One connection to an SQLite database. Owns the `sqlite3*` handle and closes it in `deinit`.
///
/// Threading: the connection is opened with `SQLITE_OPEN_FULLMUTEX`, so SQLite itself serializes calls
/// on it, but a transaction is a sequence of calls, so the owner (`HistoryStore`) runs each unit of work
/// whole on its own serial queue (and under a lock). Statements wait for other processes' locks in
/// SQLite's busy handler (`setBusyTimeout`), on that queue's thread. Parallel work uses separate
/// connections: under WAL, readers never wait for writers, and writers queue behind each other on
/// `busy_timeout`.
final class Database {
    /// The file path (or `:memory:`).
    let path: String
    /// The raw connection, for `Statement`.
    let handle: OpaquePointer
    // Statements are prepared once per SQL text and reused: the SQL is constant, only bindings change.
    private var cache: [String: Statement] = [:]
    private var savepointDepth = 0
    private var closed = false

    /// Opens (or creates, when `create`) the database at `path`.
    convenience init(path: String, create: Bool = true) throws {
        try self.init(path: path, flags: SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
    }

    /// Opens the existing database at `path` only to read it: no statement on this connection can
    /// write. `immutable`: the file is read as it is, without WAL's shared-memory file (which cannot
    /// be made where nothing may be written: a read-only file, directory or filesystem).
    convenience init(readingOnly path: String, immutable: Bool) throws {
        // A URI filename: `%`, `?` and `#` of the path are escaped.
        let escaped = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
        try self.init(
            path: path, uri: "file:" + escaped + (immutable ? "?immutable=1" : "?mode=ro"),
            flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
    }

    private init(path: String, uri: String? = nil, flags: Int32) throws {
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(uri ?? path, &connection, flags | SQLITE_OPEN_FULLMUTEX, nil)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError(code: code, connection: connection, sql: nil)
            // A failed open still allocates a handle that must be released.
            sqlite3_close_v2(connection)
            throw error
        }
        // Extended codes tell SQLITE_BUSY_SNAPSHOT from a plain SQLITE_BUSY, which matters for retries.
        sqlite3_extended_result_codes(connection, 1)
        self.path = path
        self.handle = connection
    }

    deinit { close() }

    /// Closes the connection now (its owner's last unit of work: a process about to exit must not
    /// leave its WAL behind to a `deinit` that may come too late); `deinit` then has nothing to do.
    func close() {
        guard !closed else { return }
        closed = true
        cache.removeAll()
        // close_v2 defers the close until any statement still alive elsewhere is finalized.
        sqlite3_close_v2(handle)
    }

    // MARK: - Statements

    /// A prepared statement for `sql`, reused across calls.
    func prepare(_ sql: String) throws -> Statement {
        if let statement = cache[sql] { return statement }
        let statement = try Statement(connection: handle, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs one statement with bound values.
    func execute(_ sql: String, _ values: [SQLiteValue] = []) throws {
        try prepare(sql).run(values)
    }

    /// Runs one statement with bound values and returns every row.
    func rows(_ sql: String, _ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try prepare(sql).rows(values)
    }

    /// The first column of the first row, or nil when there is no row.
    func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws -> SQLiteValue? {
        try rows(sql, values).first?.first
    }

    /// Runs several statements that take no values (schema scripts).
    func executeScript(_ sql: String) throws {
        var errorText: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorText)
        if code != SQLITE_OK {
            let message = errorText.map { String(cString: $0) }
            sqlite3_free(errorText)
            if let message {
                throw SQLiteError(code: code, message: message, sql: sql)
            }
            throw SQLiteError(code: code, connection: handle, sql: sql)
        }
    }

    /// How long a statement waits for another connection's lock before giving up with SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) throws {
        let code = sqlite3_busy_timeout(handle, milliseconds)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: nil) }
    }

    /// Whether this connection cannot write.
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Whether a transaction is open on this connection.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    // MARK: - Transactions

    /// Runs `body` in a write transaction: committed when it returns, rolled back when it throws.
    ///
    /// `BEGIN IMMEDIATE` takes the write lock up front. A deferred transaction that starts reading and then
    /// writes must upgrade its lock, and under WAL that upgrade fails at once with SQLITE_BUSY(_SNAPSHOT)
    /// when another connection committed meanwhile — the busy timeout cannot help there. Taking the lock
    /// first makes concurrent writers simply queue on `busy_timeout`. Nested calls become savepoints.
    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction {
            return try inSavepoint(body)
        }
        try beginImmediate()
        let result: T
        do {
            result = try body()
        } catch {
            rollbackQuietly()
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            rollbackQuietly()
            throw error
        }
        return result
    }

    private func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        // The name is generated from a counter, never from input.
        let name = "metrika_sp\(savepointDepth)"
        try executeScript("SAVEPOINT \(name)")
        do {
            let result = try body()
            try executeScript("RELEASE \(name)")
            return result
        } catch {
            if isInTransaction {
                try? executeScript("ROLLBACK TO \(name); RELEASE \(name)")
            }
            throw error
        }
    }

    private func beginImmediate() throws {
        // busy_timeout waits (in SQLite's busy handler, on the owner's thread); a few more attempts cover
        // a writer that held the lock even longer (a huge first sync) rather than failing a cron job.
        try HistoryStore.retryingBusy { try execute("BEGIN IMMEDIATE") }
    }

    private func rollbackQuietly() {
        // SQLite rolls back by itself after some errors (SQLITE_FULL, SQLITE_IOERR); ROLLBACK would then fail.
        if isInTransaction {
            try? execute("ROLLBACK")
        }
    }
}
