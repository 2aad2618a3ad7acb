import CSQLite

/// A prepared statement. Owns its `sqlite3_stmt` and finalizes it in `deinit`.
///
/// Values are only ever bound (`bind(_:)`), never spliced into SQL text, so no input can change what
/// a statement does.
final class Statement {
    /// The SQL the statement was prepared from, for error messages.
    let sql: String
    private let handle: OpaquePointer
    // The connection, for error messages. It stays valid while this statement lives because
    // `Database` closes with `sqlite3_close_v2`, which waits for the last statement to be finalized.
    private let connection: OpaquePointer

    init(connection: OpaquePointer, sql: String) throws {
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v2(connection, sql, -1, &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            sqlite3_finalize(prepared)
            throw SQLiteError(code: code, connection: connection, sql: sql)
        }
        self.sql = sql
        self.handle = prepared
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement and binds `values` to its parameters 1…n.
    func bind(_ values: [SQLiteValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == values.count else {
            throw SQLiteError(code: SQLITE_RANGE, message: "expected \(expected) values, got \(values.count)", sql: sql)
        }
        // SQLITE_TRANSIENT: SQLite copies the bytes, because Swift's temporary C string dies after the call.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text): code = sqlite3_bind_text(handle, index, text, -1, transient)
            }
            try check(code)
        }
    }

    /// Advances to the next row: true when a row is available, false when the statement is done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            // Reset so the statement releases its locks even though we are leaving with an error.
            sqlite3_reset(handle)
            throw SQLiteError(code: code, connection: connection, sql: sql)
        }
    }

    /// Binds `values` and runs the statement to completion, ignoring any rows.
    func run(_ values: [SQLiteValue] = []) throws {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Binds `values` and collects every row.
    func rows(_ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try bind(values)
        var result: [[SQLiteValue]] = []
        while try step() {
            result.append(currentRow())
        }
        sqlite3_reset(handle)
        return result
    }

    /// The columns of the row `step()` just produced.
    func currentRow() -> [SQLiteValue] {
        (0..<sqlite3_column_count(handle)).map(column)
    }

    private func column(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_NULL: return .null
        default:
            guard let bytes = sqlite3_column_text(handle, index) else { return .null }
            return .text(String(cString: bytes))
        }
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection, sql: sql) }
    }
}
