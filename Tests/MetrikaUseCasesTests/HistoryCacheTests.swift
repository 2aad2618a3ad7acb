import Foundation
import MetrikaModel
import MetrikaStore
import Testing

@testable import MetrikaUseCases

/// `HistoryCache`: `cache info` and `cache prune` over the store the entry point opens — and only
/// when there is a database: a missing one is an answer (nil), never a new empty file.
@Suite("History cache")
struct HistoryCacheTests {
    static func folder() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("metrika-cache-\(UUID().uuidString)")
            .path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("No database: info and prune answer nil and open nothing, create nothing")
    func missing() async throws {
        let path = Self.folder() + "/history.sqlite"
        let cache = HistoryCache(
            path: path,
            open: {
                Issue.record("opened")
                return try await HistoryStore.open(path: path)
            })
        #expect(try await cache.info() == nil)
        #expect(try await cache.prune(before: day("2026-01-01")) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("A database: info says its counters and days; prune deletes the days before the one given")
    func infoAndPrune() async throws {
        let path = Self.folder() + "/history.sqlite"
        let store = try await HistoryStore.open(path: path)
        try await store.upsertCounters([
            Counter(id: 1001, name: "Shop", site: "shop.example", status: "Active", permission: "own")
        ])
        let range = days("2026-11-01", "2026-11-10")
        let values = Dictionary(uniqueKeysWithValues: range.days.map { ($0, [Double?](repeating: 1, count: 1)) })
        try await store.storeDaily(
            counterID: 1001, range: range, metrics: [Metric.visits], values: values, fetchedAt: testNow,
            settledBefore: day("2026-11-09"), sampled: false, dataLag: nil)
        let cache = HistoryCache(path: path, open: { try await HistoryStore.open(path: path) })
        let info = try await #require(try cache.info())
        #expect(info.counters.map(\.id) == [1001])
        #expect(info.counters.first?.dayCount == 10)
        #expect(try await cache.prune(before: day("2026-11-06")) == 5)
        #expect(try await cache.info()?.counters.first?.firstDay == day("2026-11-06"))
    }
}
