import Foundation
import MetrikaModel
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases

// The run's history database: where it is (the selection's path: `--db`, METRIKA_DB, the XDG default),
// opening it, and the loader over it that history-backed commands (report, chart, mail, alert), the
// MCP tools and the bot share.

extension Services {
    /// The history database this run uses.
    package var databasePath: String { selection.databasePath }

    /// A history loader over the run's database: with the API client, or none (`offline`). The history
    /// is a cache: a full disk loses what was fetched, not the report (a warning, once). Offline, a
    /// database that does not exist is not created (there is nothing to read in it).
    /// `readOnly`: the command only reads (`report --offline`): an existing history is opened without
    /// writing (`HistoryStore.open(path:readOnly:)`), so one on a read-only filesystem can be read.
    package func historyLoader(offline: Bool, unsettledDays: Int, readOnly: Bool) async throws -> HistoryLoader {
        let path = databasePath
        if offline, path != ":memory:", !FileManager.default.fileExists(atPath: path) {
            throw ServicesError.noHistoryOffline(path: path)
        }
        let activity = world.activity
        let unkept = UnkeptHistory(naming: activity.naming) { activity.note($0) }
        let store: HistoryStore
        do {
            store = try await openHistory(readOnly: readOnly && offline)
        } catch let error as StoreError where error.kind == .full && !offline {
            // So full that SQLite cannot even open it (its -shm file cannot grow): a history in
            // memory serves this run, and nothing is kept.
            unkept.report(error)
            store = try await HistoryStore.open(path: ":memory:")
        }
        return HistoryLoader(
            store: store, client: offline ? nil : try await client(), now: world.now, unsettledDays: unsettledDays,
            unkept: unkept)
    }

    /// Closes every history this run opened (the run is over): each connection checkpoints its WAL
    /// into the file before the process exits.
    package func closeHistories() async {
        let stores = histories.withLock { histories in
            let stores = histories.values.map(\.store)
            histories.removeAll()
            return stores
        }
        for store in stores { await store.close() }
    }

    /// The run's history database, capped at METRIKA_DB_MAX_PAGES pages when that is set (a full disk
    /// made to order, for tests: SQLite's `max_page_count`).
    /// `readOnly`: opened only to read (`HistoryStore.open(path:readOnly:)`).
    ///
    /// Opened once per run: the services keep the store, and every later call (an MCP server's tool
    /// calls, all of them) shares its one connection; a reading call is served by a store opened for
    /// writing, a writing call after a reading one opens the file for writing once.
    package func openHistory(readOnly: Bool = false) async throws -> HistoryStore {
        let path = databasePath
        if let kept = histories.withLock({ $0[path] }), readOnly || !kept.store.isReadOnly { return kept.store }
        let store = try await makeHistory(path: path, readOnly: readOnly)
        return histories.withLock { histories in
            // Another task may have opened it meanwhile: the first one kept is the one shared.
            if let kept = histories[path], readOnly || !kept.store.isReadOnly { return kept.store }
            histories[path] = HistoryStoreHandle(store: store)
            return store
        }
    }

    private func makeHistory(path: String, readOnly: Bool) async throws -> HistoryStore {
        let store = try await HistoryStore.open(path: path, readOnly: readOnly)
        if !store.isReadOnly, let text = world.environment[EnvironmentSettings.databaseMaxPagesVariable], !text.isEmpty
        {
            guard let pages = Int(text), pages > 0 else {
                throw ConfigError.badVariable(
                    variable: EnvironmentSettings.databaseMaxPagesVariable, value: text,
                    expected: "a positive number of pages")
            }
            try await store.limitPages(to: pages)
        }
        return store
    }
}

/// A history store the services keep for the rest of the run.
struct HistoryStoreHandle: Sendable {
    let store: HistoryStore
}
