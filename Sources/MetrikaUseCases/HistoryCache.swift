import Foundation
import MetrikaModel
import MetrikaStore

/// `cache info` and `cache prune`: what the history database holds, and forgetting its old days. The
/// store comes from the entry point (`open`), opened only when the file exists: nothing stored yet is
/// an answer (nil), never a new empty database.
package struct HistoryCache: Sendable {
    /// The history database's path (`:memory:` is never "missing").
    package let path: String
    /// Opens the store at `path` (the session's way: its page cap, its errors).
    package let open: @Sendable () throws -> HistoryStore

    package init(path: String, open: @escaping @Sendable () throws -> HistoryStore) {
        self.path = path
        self.open = open
    }

    /// Whether a database exists to read.
    package var exists: Bool { path == ":memory:" || FileManager.default.fileExists(atPath: path) }

    /// What the database holds; nil when there is no database yet.
    package func info() throws -> CacheInfo? {
        guard exists else { return nil }
        let store = try open()
        // Its summary reads only indexes, so it would call a file with damaged values healthy: check it all.
        try store.verifyIntegrity()
        return try store.info()
    }

    /// Deletes the daily values of days before `day`; the number deleted, or nil when there is no
    /// database to prune.
    package func prune(before day: Day) throws -> Int? {
        guard exists else { return nil }
        let store = try open()
        // A bulk delete touches pages all over the file: refuse a damaged one before writing.
        try store.verifyIntegrity()
        return try store.prune(before: day)
    }
}
