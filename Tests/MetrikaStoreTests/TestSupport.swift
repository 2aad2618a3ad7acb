import Foundation

@testable import MetrikaModel
@testable import MetrikaStore

/// A fresh directory per test, removed when the value is dropped by `withTemporaryDirectory`. The body
/// may await (the store's methods are async).
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("metrika-store-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    return try await body(directory)
}

/// The bytes of a file, to prove that metrika did not touch it.
func bytes(of path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

/// Runs one SQL query on a separate raw connection and returns its rows (for looking behind the store).
func rawRows(_ path: String, _ sql: String, _ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
    let database = try Database(path: path, create: false)
    try database.setBusyTimeout(milliseconds: 30_000)
    return try database.rows(sql, values)
}

/// Runs SQL statements on a separate raw connection.
func rawExecute(_ path: String, _ sql: String) throws {
    let database = try Database(path: path, create: true)
    try database.setBusyTimeout(milliseconds: 30_000)
    try database.executeScript(sql)
}

func day(_ text: String) -> Day { Day(iso: text)! }

func range(_ from: String, _ to: String) -> DateRange { DateRange(from: day(from), to: day(to))! }

let sampleCounter = Counter(id: 101, name: "Shop", site: "shop.example", timeZoneName: "Europe/Moscow")
let otherCounter = Counter(
    id: 202, name: "Blog", site: "blog.example", status: "Active", permission: "view",
    ownerLogin: "alice", timeZoneName: "Asia/Yekaterinburg", timeZoneOffsetMinutes: 300,
    createTime: "2020-01-02T03:04:05+03:00", isFavorite: true)

/// A store with `sampleCounter` in a new file of `directory`.
func makeStore(in directory: String) async throws -> HistoryStore {
    let store = try await HistoryStore.open(path: directory + "/metrika.sqlite")
    try await store.upsertCounters([sampleCounter])
    return store
}

/// Collects errors from several threads.
final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []

    func add(_ text: String) {
        lock.lock()
        errors.append(text)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return errors
    }
}

/// Runs each closure as its own task, all at once, and waits for all of them.
func runConcurrently(_ bodies: [@Sendable () async -> Void]) async {
    await withTaskGroup(of: Void.self) { group in
        for body in bodies {
            group.addTask { await body() }
        }
    }
}

let sqlite3Path = "/usr/bin/sqlite3"
let hasSQLite3Tool = FileManager.default.isExecutableFile(atPath: sqlite3Path)

/// Takes a file of the latest schema back to version 10, as a metrika before the alert family (12)
/// left it: the daily `alert_episodes` of migration 7 and the hourly `hourly_episodes` of migration 9,
/// empty. The tests of older migrations start from there and drop what those versions lack.
func backToVersion10(_ path: String) throws {
    try rawExecute(
        path,
        """
        DROP TABLE alert_episodes;
        CREATE TABLE alert_episodes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            counter_id INTEGER NOT NULL,
            metric TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('drop', 'rise', 'stopped')),
            since TEXT NOT NULL,
            last_day TEXT NOT NULL,
            value REAL NOT NULL,
            expected REAL NOT NULL,
            notified_at REAL NOT NULL,
            last_value REAL,
            last_expected REAL,
            UNIQUE (counter_id, metric),
            CHECK (since <= last_day)
        );
        CREATE TABLE hourly_episodes (
            counter_id INTEGER NOT NULL,
            metric TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('drop', 'rise', 'stopped')),
            day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
            since_hour INTEGER NOT NULL CHECK (since_hour BETWEEN 0 AND 23),
            last_day TEXT NOT NULL,
            last_hour INTEGER NOT NULL CHECK (last_hour BETWEEN 0 AND 23),
            value REAL NOT NULL,
            expected REAL NOT NULL,
            notified_at REAL NOT NULL,
            PRIMARY KEY (counter_id, metric)
        ) WITHOUT ROWID;
        DROP TABLE segment_values;
        DROP TABLE segment_days;
        DROP TABLE bot_leases;
        DROP TABLE bot_updates;
        DROP TABLE run_failures;
        DROP TABLE run_jobs;
        DROP TABLE IF EXISTS outbox;
        DROP TABLE quota_requests;
        DROP TABLE quota_in_flight;
        DROP TABLE counter_annotations;
        DROP TABLE counter_annotations_read;
        DROP TABLE IF EXISTS closed_hourly_alerts;
        DELETE FROM metrika_migrations WHERE version > 10;
        PRAGMA user_version = 10;
        """)
}
