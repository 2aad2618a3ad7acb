import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases
@testable import MetrikaWarehouse

/// `sync --clickhouse` sends only what changed since the last mirror, everything to a table that is new.
@Suite("History mirror")
struct HistoryMirrorTests {
    /// ClickHouse's HTTP interface, faked: `EXISTS` answers whether the table was made, inserts are kept.
    final class FakeWarehouse: StreamingHTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var tableExists = false
        private var _inserted: [String] = []
        /// The rows of every insert so far (TabSeparated lines without the version column).
        var inserted: [String] { lock.withLock { _inserted } }
        func drop() { lock.withLock { tableExists = false } }

        func exchange(
            _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?,
            receive: ([UInt8]) async throws -> Void
        ) async throws -> StreamedResponseHead {
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first {
                $0.name == "query"
            }?.value
            let sql = query ?? String(decoding: request.body ?? Data(), as: UTF8.self)
            if sql.hasPrefix("EXISTS") {
                try await receive(Array((lock.withLock { tableExists } ? "1\n" : "0\n").utf8))
            }
            if sql.hasPrefix("CREATE TABLE") { lock.withLock { tableExists = true } }
            if let upload {
                var body: [UInt8] = []
                try await upload { body += $0 }
                let lines = String(decoding: body, as: UTF8.self).split(separator: "\n").map {
                    $0.split(separator: "\t").dropLast().joined(separator: "\t")
                }
                lock.withLock { _inserted += lines }
            }
            return StreamedResponseHead(status: 200)
        }
    }

    @Test func onlyChangedValuesAreSentAgainAndANewTableGetsEverything() async throws {
        let database = try TemporaryDatabase()
        let store = try await HistoryStore.open(path: database.path)
        try await store.upsertCounters([Counter(id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC")])
        let range = DateRange(from: Day(iso: "2026-06-01")!, to: Day(iso: "2026-06-02")!)!
        func keep(visits first: Double, _ second: Double) async throws {
            try await store.storeDaily(
                counterID: 1001, range: range, metrics: [.visits, .pageviews],
                values: [range.from: [first, 10], range.to: [second, nil]],
                fetchedAt: Date(), settledBefore: range.from, sampled: false, dataLag: nil)
        }
        let warehouse = FakeWarehouse()
        let settings = try ClickHouseSettings.make(
            url: "http://127.0.0.1:8123", table: "metrika.daily", source: .visits, environment: [:], timeout: 5)
        let mirror = HistoryMirror(
            store: store, mirror: ClickHouseDailyMirror(settings: settings, transport: warehouse))
        try await keep(visits: 5, 7)
        #expect(
            try await mirror.run([(1001, range)], metrics: [.visits, .pageviews], version: 1)
                == .init(sent: 3, unchanged: 0))
        #expect(
            try await mirror.run([(1001, range)], metrics: [.visits, .pageviews], version: 2)
                == .init(sent: 0, unchanged: 3))
        try await keep(visits: 5, 8) // yesterday's visits moved
        #expect(
            try await mirror.run([(1001, range)], metrics: [.visits, .pageviews], version: 3)
                == .init(sent: 1, unchanged: 2))
        #expect(warehouse.inserted.last == "1001\t2026-06-02\tvisits\t8.0")
        warehouse.drop() // the table was dropped: everything again
        #expect(
            try await mirror.run([(1001, range)], metrics: [.visits, .pageviews], version: 4)
                == .init(sent: 3, unchanged: 0))
        #expect(warehouse.inserted.count == 7)
    }
}
