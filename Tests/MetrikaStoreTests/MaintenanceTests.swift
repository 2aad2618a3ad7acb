import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

@Suite struct MaintenanceTests {
    @Test func infoSummarizesEachCounter() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            try await store.upsertCounters([otherCounter])
            let empty = try await store.info()
            #expect(empty.lastSync == nil)
            #expect(empty.counters.map(\.dayCount) == [0, 0])
            // Two separate ranges with a gap: the span is wider than the day count.
            for (from, to, at) in [
                ("2024-01-01", "2024-01-10", 1_704_900_000.0), ("2024-01-21", "2024-01-25", 1_706_200_000.0)
            ] {
                let part = range(from, to)
                try await store.storeDaily(
                    counterID: sampleCounter.id, range: part, metrics: [.visits],
                    values: Dictionary(uniqueKeysWithValues: part.days.map { ($0, [1.0]) }),
                    fetchedAt: Date(timeIntervalSince1970: at), settledBefore: part.to, sampled: false, dataLag: nil)
            }
            let info = try await store.info()
            #expect(info.path == store.path)
            #expect(info.schemaVersion == Schema.latestVersion)
            #expect(info.sizeBytes > 0)
            #expect(
                info.counters == [
                    CacheInfo.CounterHistory(
                        id: 101, name: "Shop", firstDay: day("2024-01-01"), lastDay: day("2024-01-25"),
                        dayCount: 15, lastFetchedAt: Date(timeIntervalSince1970: 1_706_200_000)),
                    CacheInfo.CounterHistory(
                        id: 202, name: "Blog", firstDay: nil, lastDay: nil, dayCount: 0, lastFetchedAt: nil)
                ])
            #expect(info.lastSync == Date(timeIntervalSince1970: 1_706_200_000))
        }
    }

    @Test func pruneDeletesOlderDaysAndTotals() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let metrics: [Metric] = [.visits, .pageviews]
            let january = range("2024-01-01", "2024-01-31")
            try await store.storeDaily(
                counterID: sampleCounter.id, range: january, metrics: metrics,
                values: Dictionary(uniqueKeysWithValues: january.days.map { ($0, [2.0, 5.0]) }),
                fetchedAt: Date(timeIntervalSince1970: 1), settledBefore: day("2024-02-01"), sampled: false,
                dataLag: nil)
            let early = range("2024-01-01", "2024-01-05")
            try await store.storeDaily(
                counterID: sampleCounter.id, range: early, metrics: metrics,
                values: Dictionary(uniqueKeysWithValues: early.days.map { ($0, [3.0, 6.0]) }),
                fetchedAt: Date(timeIntervalSince1970: 2), settledBefore: day("2024-02-01"), sampled: false,
                dataLag: nil)
            for week in january.periods(.week) {
                try await store.storePeriodTotal(
                    counterID: sampleCounter.id, period: week, metric: .users, value: 9, settled: true,
                    fetchedAt: Date(timeIntervalSince1970: 2))
            }
            // Weeks of January 2024: 1–7, 8–14, 15–21, 22–28, 29–31. Pruning before the 15th drops 14 days × 2
            // metrics and the two weeks ending before it.
            let deleted = try await store.prune(before: day("2024-01-15"))
            #expect(deleted == 14 * 2 + 2)
            let left = try await store.dailyValues(counterID: sampleCounter.id, range: january, metrics: metrics)
            #expect(left.keys.sorted() == range("2024-01-15", "2024-01-31").days)
            #expect(
                try await store.periodTotal(
                    counterID: sampleCounter.id, period: range("2024-01-08", "2024-01-14"), metric: .users) == nil)
            #expect(
                try await store.periodTotal(
                    counterID: sampleCounter.id, period: range("2024-01-15", "2024-01-21"), metric: .users)?.value == 9)
            // The fetch of the 1st–5th describes nothing any more; the January fetch still backs values.
            #expect(
                try rawRows(store.path, "SELECT range_from, range_to FROM fetch_log") == [
                    [.text("2024-01-01"), .text("2024-01-31")]
                ])
            #expect(try await store.prune(before: day("2024-01-15")) == 0)
            #expect(try await store.integrityCheck() == "ok")
        }
    }
}
