import Foundation
import MetrikaModel
import MetrikaStore

/// `cache info` and `cache prune`: what the history database holds, and forgetting its old days. The
/// store comes from the entry point (`open`), opened only when the file exists: nothing stored yet is
/// an answer (nil), never a new empty database.
package struct HistoryCache: Sendable {
    /// The history database's path (`:memory:` is never "missing").
    package let path: String
    /// Opens the store at `path` (the services' way: its page cap, its errors).
    package let open: @Sendable () async throws -> HistoryStore

    package init(path: String, open: @escaping @Sendable () async throws -> HistoryStore) {
        self.path = path
        self.open = open
    }

    /// Whether a database exists to read.
    package var exists: Bool { path == ":memory:" || FileManager.default.fileExists(atPath: path) }

    /// What the database holds; nil when there is no database yet.
    package func info() async throws -> CacheInfo? {
        guard exists else { return nil }
        let store = try await open()
        // Its summary reads only indexes, so it would call a file with damaged values healthy: check it all.
        try await store.verifyIntegrity()
        return try await store.info()
    }

    /// Deletes the daily values of days before `day`; the number deleted, or nil when there is no
    /// database to prune.
    package func prune(before day: Day) async throws -> Int? {
        guard exists else { return nil }
        let store = try await open()
        // A bulk delete touches pages all over the file: refuse a damaged one before writing.
        try await store.verifyIntegrity()
        return try await store.prune(before: day)
    }
}
