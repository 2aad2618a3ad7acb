import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A non-OK result code from libsqlite3, with what SQLite said and the statement it was running.
///
/// Only the Store layer sees these: `HistoryStore` turns them into `StoreError`s that a user can act on.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (e.g. `SQLITE_BUSY_SNAPSHOT`); `primaryCode` strips the extension.
    let code: Int32
    /// `sqlite3_errmsg` at the time of the failure, or `sqlite3_errstr` when there was no connection.
    let message: String
    /// The SQL being prepared or run, if any (never contains values: they are always bound).
    let sql: String?
    /// The operating system's errno behind an I/O error (`sqlite3_system_errno`), else 0.
    var systemErrno: Int32 = 0

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …).
    var primaryCode: Int32 { code & 0xFF }

    /// Whether SQLite says the file is not a database or is damaged.
    var isDamagedFile: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }

    /// Whether the disk had no room: SQLITE_FULL (a write that found no space, or the page limit),
    /// or an I/O error whose cause was ENOSPC or EDQUOT — on a full file system SQLite often cannot
    /// even grow its `-shm` file and says only "disk I/O error".
    var isDiskFull: Bool {
        primaryCode == SQLITE_FULL || (primaryCode == SQLITE_IOERR && (systemErrno == ENOSPC || systemErrno == EDQUOT))
    }

    var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in: \(sql))" }
        return text
    }

    /// Builds the error for `code` from the connection's last message.
    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        self.code = code
        if let connection { systemErrno = sqlite3_system_errno(connection) }
        if let connection, let text = sqlite3_errmsg(connection) {
            self.message = String(cString: text)
        } else if let text = sqlite3_errstr(code) {
            self.message = String(cString: text)
        } else {
            self.message = "unknown error"
        }
        self.sql = sql
    }

    init(code: Int32, message: String, sql: String?) {
        self.code = code
        self.message = message
        self.sql = sql
    }
}
