import Foundation
import MetrikaCLI
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

@Suite struct OpeningTests {
    @Test func migratesAnEmptyFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/nested/deeper/metrika.sqlite"
            _ = try await HistoryStore.open(path: path)
            let tables = try rawRows(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                .compactMap(\.first?.string)
            #expect(
                tables == [
                    "alert_episodes", "bot_leases", "bot_offsets", "bot_updates", "closed_hourly_alerts",
                    "counter_annotations",
                    "counter_annotations_read", "counter_currency", "counter_goals",
                    "counter_goals_read", "counters", "daily_mirror", "daily_values", "fetch_log", "hourly_values",
                    "log_job_parts", "log_jobs", "log_loaded_days", "log_loads", "metrika_migrations", "outbox",
                    "period_totals", "quota_in_flight", "quota_requests", "run_failures", "run_jobs", "segment_days",
                    "segment_values", "sqlite_sequence"
                ])
            let versions = try rawRows(path, "SELECT version, name FROM metrika_migrations")
            #expect(
                versions == [
                    [.integer(1), .text("history")], [.integer(2), .text("log_jobs")], [.integer(3), .text("alerts")],
                    [.integer(4), .text("counter_currency")], [.integer(5), .text("log_loads")],
                    [.integer(6), .text("daily_mirror")], [.integer(7), .text("alert_episode_ids")],
                    [.integer(8), .text("log_loaded_days")], [.integer(9), .text("hourly_values")],
                    [.integer(10), .text("bot_offsets")], [.integer(11), .text("segment_values")],
                    [.integer(12), .text("alert_family")], [.integer(13), .text("outbox")],
                    [.integer(14), .text("unattended_runs")], [.integer(16), .text("quota_ledger")],
                    [.integer(17), .text("chart_annotations")],
                    [.integer(19), .text("hourly_stories")]
                ])
            #expect(try rawRows(path, "PRAGMA user_version") == [[.integer(Int64(Schema.latestVersion))]])
            #expect(try rawRows(path, "PRAGMA journal_mode") == [[.text("wal")]])
            // The directories metrika creates are private to the user.
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/nested/deeper")
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        }
    }

    @Test func reopeningIsIdempotent() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            do {
                let store = try await HistoryStore.open(path: path)
                try await store.upsertCounters([sampleCounter])
            }
            for _ in 0..<3 {
                let store = try await HistoryStore.open(path: path)
                #expect(try await store.counters() == [sampleCounter])
            }
            #expect(
                try rawRows(path, "SELECT count(*) FROM metrika_migrations") == [
                    [.integer(Int64(Schema.migrations.count))]
                ])
        }
    }

    @Test func opensInMemory() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        try await store.upsertCounters([sampleCounter, otherCounter])
        #expect(try await store.counters() == [sampleCounter, otherCounter])
        #expect(try await store.integrityCheck() == "ok")
    }

    /// Files that are not a usable SQLite database: exit 78, the path named, the bytes untouched.
    @Test(arguments: ["text", "random", "damagedSchema", "foreign"])
    func refusesUnusableFiles(kind: String) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            let expectedKind: StoreError.Kind
            switch kind {
            case "text":
                try Data("date,visits\n2024-01-01,5\n".utf8).write(to: URL(fileURLWithPath: path))
                expectedKind = .notADatabase
            case "random":
                var generator = SeededRandom(seed: 42)
                let noise = (0..<8192).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                try Data(noise).write(to: URL(fileURLWithPath: path))
                expectedKind = .notADatabase
            case "damagedSchema":
                try await writeHealthyDatabase(at: path)
                var data = try bytes(of: path)
                // Page 1 holds the schema b-tree right after the 100-byte header.
                for index in 100..<500 { data[index] = 0xA5 }
                try data.write(to: URL(fileURLWithPath: path))
                expectedKind = .corrupt
            default:
                try rawExecute(
                    path, "CREATE TABLE bookmarks (url TEXT); INSERT INTO bookmarks VALUES ('https://example.com')")
                expectedKind = .notMetrikaDatabase
            }
            let before = try bytes(of: path)
            let error = try await #require(throws: StoreError.self) { try await HistoryStore.open(path: path) }
            #expect(error.kind == expectedKind)
            #expect(error.exitCode == 78)
            #expect(error.message.contains(path))
            #expect(error.message(.cli).contains("METRIKA_DB"))
            #expect(try bytes(of: path) == before)
        }
    }

    /// Damaged data pages: opening reads only the header and schema (cheap at any size), so it succeeds;
    /// `verifyIntegrity()` and every read that meets the damage throw `.corrupt` (exit 78), and nothing
    /// is written.
    @Test func damagedDataIsFoundByTheCheckAndByReads() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            try await writeHealthyDatabase(at: path)
            let root = try #require(
                try rawRows(path, "SELECT rootpage FROM sqlite_master WHERE name = 'daily_values'").first?.first?.int)
            var data = try bytes(of: path)
            let pageSize = Int(data[16]) << 8 | Int(data[17])
            // The values' only page: the schema and the migrations table, which opening reads, survive.
            for index in (root - 1) * pageSize..<root * pageSize { data[index] = 0xA5 }
            try data.write(to: URL(fileURLWithPath: path))
            let store = try await HistoryStore.open(path: path)
            let checked = try await #require(throws: StoreError.self) { try await store.verifyIntegrity() }
            #expect(checked.kind == .corrupt)
            #expect(checked.exitCode == 78)
            #expect(checked.message.contains(path))
            let read = try await #require(throws: StoreError.self) {
                try await store.dailyValues(
                    counterID: sampleCounter.id, range: range("2024-03-04", "2024-03-10"),
                    metrics: [.visits, .pageviews])
            }
            #expect(read.kind == .corrupt)
            #expect(read.exitCode == 78)
            let written = try await #require(throws: StoreError.self) {
                try await store.storeDaily(
                    counterID: sampleCounter.id, range: range("2024-03-04", "2024-03-04"),
                    metrics: [.visits, .pageviews],
                    values: [day("2024-03-04"): [1, 2]], fetchedAt: Date(), settledBefore: day("2024-03-05"),
                    sampled: false, dataLag: nil)
            }
            #expect(written.exitCode == 78)
            #expect(try bytes(of: path) == data)
        }
    }

    @Test func verifyIntegrityPassesASoundFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            try await writeHealthyDatabase(at: path)
            try await HistoryStore.open(path: path).verifyIntegrity()
            #expect(
                try await HistoryStore.open(path: path).firstStoredDay(counterID: sampleCounter.id) == day("2024-03-04")
            )
            #expect(try await HistoryStore.open(path: path).firstStoredDay(counterID: otherCounter.id) == nil)
        }
    }

    @Test func refusesANewerSchemaAndLeavesItUntouched() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            try await writeHealthyDatabase(at: path)
            try rawExecute(path, "INSERT INTO metrika_migrations (version, name, applied_at) VALUES (999, 'future', 0)")
            let before = try bytes(of: path)
            let error = try await #require(throws: StoreError.self) { try await HistoryStore.open(path: path) }
            #expect(error.kind == .newerSchema(found: 999, supported: Schema.latestVersion))
            #expect(error.exitCode == 78)
            #expect(error.message.contains(path))
            #expect(error.message.contains("newer metrika"))
            #expect(try bytes(of: path) == before)
            #expect(try rawRows(path, "SELECT max(version) FROM metrika_migrations") == [[.integer(999)]])
        }
    }

    @Test func cannotCreateUnderAFile() async throws {
        try await withTemporaryDirectory { directory in
            let blocker = directory + "/not-a-directory"
            try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
            let path = blocker + "/metrika/metrika.sqlite"
            let error = try await #require(throws: StoreError.self) { try await HistoryStore.open(path: path) }
            #expect(error.kind == .cannotCreate)
            #expect(
                error.exitCode == 78,
                "a history that cannot be created is configuration (README's table), not an output file (73)")
            #expect(error.message.contains(path))
        }
    }

    @Test(arguments: [
        (["METRIKA_DB": "/data/m.sqlite", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"], "/data/m.sqlite"),
        (["XDG_DATA_HOME": "/xdg/", "HOME": "/home/u"], "/xdg/metrika/metrika.sqlite"),
        (
            ["METRIKA_DB": "", "XDG_DATA_HOME": "relative/ignored", "HOME": "/home/u"],
            "/home/u/.local/share/metrika/metrika.sqlite"
        ),
        (["HOME": "/home/u"], "/home/u/.local/share/metrika/metrika.sqlite")
    ])
    func defaultPath(environment: [String: String], expected: String) {
        #expect(HistoryStore.defaultPath(environment: environment) == expected)
    }

    /// A closed database with one counter and a week of values, checkpointed into the main file.
    private func writeHealthyDatabase(at path: String) async throws {
        let store = try await HistoryStore.open(path: path)
        try await store.upsertCounters([sampleCounter])
        let week = range("2024-03-04", "2024-03-10")
        var values: [Day: [Double?]] = [:]
        for (offset, day) in week.days.enumerated() { values[day] = [Double(100 + offset), Double(300 + offset)] }
        try await store.storeDaily(
            counterID: sampleCounter.id, range: week, metrics: [.visits, .pageviews], values: values,
            fetchedAt: Date(timeIntervalSince1970: 1_710_000_000), settledBefore: day("2024-03-11"),
            sampled: false, dataLag: 60)
    }
}

/// Migration 4 on a database of the previous version: its days stay, the counter's currency can be stored.
@Suite struct CounterCurrencyMigrationTests {
    @Test func aVersion3DatabaseGainsTheCurrencyTableAndKeepsItsDays() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/old.sqlite"
            do {
                let store = try await HistoryStore.open(path: path)
                try await store.upsertCounters([Counter(id: 1001, name: "Shop", site: "shop.example")])
            }
            // Back to version 3, as a metrika before money left it.
            // (and without the tables of the migrations after 4, which a version 3 file has not either)
            try backToVersion10(path)
            for table in [
                "counter_currency", "log_loads", "daily_mirror", "log_loaded_days", "hourly_values", "hourly_episodes",
                "bot_offsets"
            ] { _ = try rawRows(path, "DROP TABLE \(table)") }
            _ = try rawRows(path, "DELETE FROM metrika_migrations WHERE version >= 4")
            _ = try rawRows(path, "PRAGMA user_version = 3")
            let store = try await HistoryStore.open(path: path)
            #expect(try await store.counter(id: 1001)?.name == "Shop")
            #expect(try await store.counterCurrency(id: 1001) == nil)
            try await store.storeCounterCurrency(
                id: 1001, currency: .usd, seenAt: Date(timeIntervalSince1970: 1_795_953_600))
            #expect(try await store.counterCurrency(id: 1001) == .usd)
            #expect(try await store.counterCurrencySeen(id: 1001)?.seenAt == Date(timeIntervalSince1970: 1_795_953_600))
            // A counter the history does not know has no currency to store.
            await #expect(throws: StoreError.self) {
                try await store.storeCounterCurrency(id: 7, currency: .rub, seenAt: Date())
            }
        }
    }
}

/// A command that only reads opens the history without writing a byte (issue 40 item 16): a backup
/// or a history on a read-only filesystem can be inspected. Root ignores file modes, so the proof that
/// nothing is written is the file itself: a history left in rollback-journal mode stays in it (an open
/// for writing switches it to WAL, changing its header), byte for byte, with no `-wal` beside it.
@Suite struct ReadOnlyOpeningTests {
    @Test func aReadingOpenWritesNothing() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            try await HistoryStore.open(path: path).upsertCounters([sampleCounter])
            try rawExecute(path, "PRAGMA journal_mode = DELETE")
            let before = try bytes(of: path)
            let store = try await HistoryStore.open(path: path, readOnly: true)
            #expect(store.isReadOnly)
            #expect(try await store.counters() == [sampleCounter])
            _ = try await store.info()
            try await store.verifyIntegrity()
            let error = await #expect(throws: StoreError.self) { try await store.upsertCounters([sampleCounter]) }
            #expect(error?.kind == .readOnly)
            #expect(try bytes(of: path) == before)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            // The open for writing is the one that switches it (what every command did before).
            #expect(!(try await HistoryStore.open(path: path).isReadOnly))
            #expect(try bytes(of: path) != before)
        }
    }

    /// A file that cannot be written (mode 0444 in a 0555 directory) is read as it is.
    @Test func aReadOnlyFileInAReadOnlyDirectoryIsRead() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory + "/backup"
            let path = folder + "/metrika.sqlite"
            try await HistoryStore.open(path: path).upsertCounters([sampleCounter])
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
            let store = try await HistoryStore.open(path: path, readOnly: true)
            #expect(store.isReadOnly)
            #expect(try await store.counters() == [sampleCounter])
        }
    }

    /// A missing file, or one whose schema is older, is opened for writing: it must be made or migrated.
    @Test func aMissingFileIsCreatedAsBefore() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await HistoryStore.open(path: directory + "/new.sqlite", readOnly: true)
            #expect(!store.isReadOnly)
            try await store.upsertCounters([sampleCounter])
        }
    }
}
