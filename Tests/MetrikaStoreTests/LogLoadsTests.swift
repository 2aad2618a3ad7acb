import Foundation
import Testing
@testable import MetrikaModel
@testable import MetrikaStore

/// The days `metrika logs` loaded into a table, which a run without dates continues from: widened by
/// every load, kept per counter, source and destination.
@Suite struct LogLoadsTests {
    @Test func loadsWidenPerCounterSourceAndDestinationAndSurviveReopening() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/h.sqlite"
            let store = try HistoryStore(path: path)
            let table = "clickhouse:127.0.0.1:8123/metrika.visits"
            let at = Date(timeIntervalSince1970: 1_781_000_000)
            #expect(try store.load(counterID: 1001, source: .visits, destination: table) == nil)
            try store.recordLoaded(counterID: 1001, source: .visits, destination: table, from: Day(iso: "2026-06-08")!, to: Day(iso: "2026-06-10")!, at: at)
            // A back-fill of older days widens the start; a re-load inside changes neither end.
            try store.recordLoaded(counterID: 1001, source: .visits, destination: table, from: Day(iso: "2026-05-01")!, to: Day(iso: "2026-05-02")!, at: at)
            try store.recordLoaded(counterID: 1001, source: .visits, destination: table, from: Day(iso: "2026-06-09")!, to: Day(iso: "2026-06-09")!, at: at + 60)
            try store.recordLoaded(counterID: 1001, source: .hits, destination: table, from: Day(iso: "2026-06-01")!, to: Day(iso: "2026-06-01")!, at: at)
            try store.recordLoaded(counterID: 2002, source: .visits, destination: table, from: Day(iso: "2026-06-20")!, to: Day(iso: "2026-06-21")!, at: at)
            let reopened = try HistoryStore(path: path)
            #expect(try reopened.load(counterID: 1001, source: .visits, destination: table)
                == LogLoad(counterID: 1001, source: .visits, destination: table, firstDay: Day(iso: "2026-05-01")!, lastDay: Day(iso: "2026-06-10")!, loadedAt: at + 60))
            #expect(try reopened.loads(counterID: 1001).map(\.source) == [.hits, .visits])
            #expect(try reopened.load(counterID: 1001, source: .visits, destination: "clickhouse:127.0.0.1:8123/other.visits") == nil)
        }
    }
}
