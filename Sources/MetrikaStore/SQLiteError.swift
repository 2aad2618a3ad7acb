import CSQLite

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

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …).
    var primaryCode: Int32 { code & 0xFF }

    /// Whether SQLite says the file is not a database or is damaged.
    var isDamagedFile: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }

    var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in: \(sql))" }
        return text
    }

    /// Builds the error for `code` from the connection's last message.
    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        self.code = code
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
