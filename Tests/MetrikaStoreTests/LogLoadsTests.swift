import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

/// The days `metrika logs` loaded into a table, which a run without dates continues from: widened by
/// every load, kept per counter, source and destination.
@Suite struct LogLoadsTests {
    @Test func loadsWidenPerCounterSourceAndDestinationAndSurviveReopening() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/h.sqlite"
            let store = try await HistoryStore.open(path: path)
            let table = "clickhouse:127.0.0.1:8123/metrika.visits"
            let at = Date(timeIntervalSince1970: 1_781_000_000)
            #expect(try await store.load(counterID: 1001, source: .visits, destination: table) == nil)
            try await store.recordLoaded(
                counterID: 1001, source: .visits, destination: table, from: Day(iso: "2026-06-08")!,
                to: Day(iso: "2026-06-10")!, at: at)
            // A back-fill of older days widens the start; a re-load inside changes neither end.
            try await store.recordLoaded(
                counterID: 1001, source: .visits, destination: table, from: Day(iso: "2026-05-01")!,
                to: Day(iso: "2026-05-02")!, at: at)
            try await store.recordLoaded(
                counterID: 1001, source: .visits, destination: table, from: Day(iso: "2026-06-09")!,
                to: Day(iso: "2026-06-09")!, at: at + 60)
            try await store.recordLoaded(
                counterID: 1001, source: .hits, destination: table, from: Day(iso: "2026-06-01")!,
                to: Day(iso: "2026-06-01")!, at: at)
            try await store.recordLoaded(
                counterID: 2002, source: .visits, destination: table, from: Day(iso: "2026-06-20")!,
                to: Day(iso: "2026-06-21")!, at: at)
            let reopened = try await HistoryStore.open(path: path)
            #expect(
                try await reopened.load(counterID: 1001, source: .visits, destination: table)
                    == LogLoad(
                        counterID: 1001, source: .visits, destination: table, firstDay: Day(iso: "2026-05-01")!,
                        lastDay: Day(iso: "2026-06-10")!, loadedAt: at + 60,
                        days: ["2026-05-01", "2026-05-02", "2026-06-08", "2026-06-09", "2026-06-10"].map {
                            Day(iso: $0)!
                        }))
            #expect(try await reopened.loads(counterID: 1001).map(\.source) == [.hits, .visits])
            #expect(
                try await reopened.load(
                    counterID: 1001, source: .visits, destination: "clickhouse:127.0.0.1:8123/other.visits") == nil)
        }
    }

    /// Issue 32.5: every loaded day is kept with its rows, so the list names the gaps and the rows; a
    /// re-load replaces a day's count, a load whose rows were not counted makes the total unknown.
    @Test func everyLoadedDayIsKeptWithItsRows() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await HistoryStore.open(path: directory + "/h.sqlite")
            let table = "clickhouse:127.0.0.1:8123/metrika.visits"
            let at = Date(timeIntervalSince1970: 1_781_000_000)
            func day(_ text: String) -> Day { Day(iso: text)! }
            try await store.recordLoaded(
                counterID: 1001, source: .visits, destination: table, from: day("2026-06-01"), to: day("2026-06-03"),
                rows: [day("2026-06-01"): 5, day("2026-06-02"): 7], at: at)
            try await store.recordLoaded(
                counterID: 1001, source: .visits, destination: table, from: day("2026-06-06"), to: day("2026-06-06"),
                rows: [day("2026-06-06"): 4], at: at)
            try await store.recordLoaded(
                counterID: 1001, source: .visits, destination: table, from: day("2026-06-02"), to: day("2026-06-02"),
                rows: [day("2026-06-02"): 9], at: at + 60)
            let load = try #require(try await store.load(counterID: 1001, source: .visits, destination: table))
            #expect(load.days == ["2026-06-01", "2026-06-02", "2026-06-03", "2026-06-06"].map(day))
            #expect(load.rows == 5 + 9 + 0 + 4)
            #expect(load.loadedAt == at + 60)
            try await store.recordLoaded(
                counterID: 1001, source: .visits, destination: table, from: day("2026-06-07"), to: day("2026-06-07"),
                rows: nil, at: at + 120)
            #expect(try await store.load(counterID: 1001, source: .visits, destination: table)?.rows == nil)
        }
    }

    /// Migration 8 on a database of version 7: the days of each earlier load (first…last) are taken as
    /// loaded, their rows unknown.
    @Test func aVersion7DatabaseKeepsItsLoadsAsLoadedDays() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/old.sqlite"
            let table = "clickhouse:127.0.0.1:8123/metrika.visits"
            let at = Date(timeIntervalSince1970: 1_781_000_000)
            do {
                try await HistoryStore.open(path: path).recordLoaded(
                    counterID: 1001, source: .visits, destination: table,
                    from: Day(iso: "2026-05-30")!, to: Day(iso: "2026-06-02")!, rows: [:], at: at)
            }
            try backToVersion10(path)
            for table in ["log_loaded_days", "hourly_values", "hourly_episodes", "bot_offsets"] {
                _ = try rawRows(path, "DROP TABLE \(table)")
            }
            _ = try rawRows(path, "DELETE FROM metrika_migrations WHERE version >= 8")
            _ = try rawRows(path, "PRAGMA user_version = 7")
            let load = try #require(
                try await HistoryStore.open(path: path).load(counterID: 1001, source: .visits, destination: table))
            #expect(load.days == ["2026-05-30", "2026-05-31", "2026-06-01", "2026-06-02"].map { Day(iso: $0)! })
            #expect(load.rows == nil)
        }
    }
}
