import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

@Suite struct DailyValuesTests {
    let metrics: [Metric] = [.visits, .pageviews, .bounceRate]
    let fetchedAt = Date(timeIntervalSince1970: 1_710_000_000)

    /// Rows for every day of `range`: visits 10+i, pageviews 30+i, bounce rate 20.5+i (i = day offset) plus `shift`.
    func rows(_ range: DateRange, shift: Double = 0) -> [Day: [Double?]] {
        var values: [Day: [Double?]] = [:]
        for (offset, day) in range.days.enumerated() {
            let i = Double(offset) + shift
            values[day] = [10 + i, 30 + i, 20.5 + i]
        }
        return values
    }

    @Test func roundTrip() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let week = range("2024-03-04", "2024-03-10")
            var values = rows(week)
            values[day("2024-03-06")] = [0, 0, nil] // a day without visits has no bounce rate
            try await store.storeDaily(
                counterID: sampleCounter.id, range: week, metrics: metrics, values: values,
                fetchedAt: fetchedAt, settledBefore: day("2024-03-09"), sampled: true, dataLag: 42)
            let stored = try await store.dailyValues(counterID: sampleCounter.id, range: week, metrics: metrics)
            #expect(stored == values)
            #expect(stored[day("2024-03-06")] == [0, 0, nil])
            // Other metric orders and subsets come back aligned with the request.
            let reordered = try await store.dailyValues(
                counterID: sampleCounter.id, range: range("2024-03-04", "2024-03-05"),
                metrics: [.bounceRate, .visits])
            #expect(reordered == [day("2024-03-04"): [20.5, 10], day("2024-03-05"): [21.5, 11]])
            // Days before settledBefore are settled; the 9th and 10th were still changing.
            let settled = try await store.settledDays(counterID: sampleCounter.id, range: week, metrics: metrics)
            #expect(settled == Set(range("2024-03-04", "2024-03-08").days))
            // A metric never fetched makes every day incomplete.
            #expect(
                try await store.dailyValues(counterID: sampleCounter.id, range: week, metrics: [.visits, .users])
                    .isEmpty)
            #expect(
                try await store.settledDays(counterID: sampleCounter.id, range: week, metrics: [.visits, .users])
                    .isEmpty)
            // The fetch log records the range, sampling and data lag.
            let log = try rawRows(
                store.path,
                "SELECT range_from, range_to, metrics, fetched_at, settled_before, sampled, data_lag FROM fetch_log")
            #expect(
                log == [
                    [
                        .text("2024-03-04"), .text("2024-03-10"), .text("ym:s:visits,ym:s:pageviews,ym:s:bounceRate"),
                        .real(1_710_000_000), .text("2024-03-09"), .integer(1), .real(42)
                    ]
                ])
            let units = try rawRows(store.path, "SELECT DISTINCT metric, unit FROM daily_values ORDER BY metric")
            #expect(
                units == [
                    [.text("ym:s:bounceRate"), .text("percent")], [.text("ym:s:pageviews"), .text("count")],
                    [.text("ym:s:visits"), .text("count")]
                ])
        }
    }

    @Test func refetchReplacesStillChangingDays() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let week = range("2024-03-04", "2024-03-10")
            try await store.storeDaily(
                counterID: sampleCounter.id, range: week, metrics: metrics, values: rows(week),
                fetchedAt: fetchedAt, settledBefore: day("2024-03-09"), sampled: false, dataLag: nil)
            // The next night refetches the two unsettled days; now they are final.
            let tail = range("2024-03-09", "2024-03-10")
            try await store.storeDaily(
                counterID: sampleCounter.id, range: tail, metrics: metrics, values: rows(tail, shift: 100),
                fetchedAt: fetchedAt.addingTimeInterval(86_400), settledBefore: day("2024-03-11"),
                sampled: false, dataLag: nil)
            let stored = try await store.dailyValues(counterID: sampleCounter.id, range: week, metrics: metrics)
            #expect(stored.count == 7)
            #expect(stored[day("2024-03-08")] == [14, 34, 24.5])
            #expect(stored[day("2024-03-09")] == [110, 130, 120.5])
            #expect(stored[day("2024-03-10")] == [111, 131, 121.5])
            #expect(
                try await store.settledDays(counterID: sampleCounter.id, range: week, metrics: metrics)
                    == Set(week.days))
            #expect(try rawRows(store.path, "SELECT count(*) FROM daily_values") == [[.integer(21)]])
        }
    }

    @Test func aDayMissingFromARefetchIsNoLongerStored() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let week = range("2024-03-04", "2024-03-10")
            try await store.storeDaily(
                counterID: sampleCounter.id, range: week, metrics: metrics, values: rows(week),
                fetchedAt: fetchedAt, settledBefore: day("2024-03-11"), sampled: false, dataLag: nil)
            var values = rows(week)
            values[day("2024-03-07")] = nil
            try await store.storeDaily(
                counterID: sampleCounter.id, range: week, metrics: metrics, values: values,
                fetchedAt: fetchedAt, settledBefore: day("2024-03-11"), sampled: false, dataLag: nil)
            let stored = try await store.dailyValues(counterID: sampleCounter.id, range: week, metrics: metrics)
            #expect(stored.keys.sorted() == week.days.filter { $0 != day("2024-03-07") })
        }
    }

    @Test func sampledDaysFollowTheirFetch() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let week = range("2024-03-04", "2024-03-10")
            try await store.storeDaily(
                counterID: sampleCounter.id, range: week, metrics: metrics, values: rows(week),
                fetchedAt: fetchedAt, settledBefore: day("2024-03-09"), sampled: true, dataLag: nil)
            #expect(
                try await store.sampledDays(counterID: sampleCounter.id, range: week, metrics: metrics)
                    == Set(week.days))
            // An unsampled refetch of the last two days clears them.
            let tail = range("2024-03-09", "2024-03-10")
            try await store.storeDaily(
                counterID: sampleCounter.id, range: tail, metrics: metrics, values: rows(tail),
                fetchedAt: fetchedAt, settledBefore: day("2024-03-11"), sampled: false, dataLag: nil)
            #expect(
                try await store.sampledDays(counterID: sampleCounter.id, range: week, metrics: metrics)
                    == Set(range("2024-03-04", "2024-03-08").days))
            #expect(try await store.sampledDays(counterID: sampleCounter.id, range: tail, metrics: metrics).isEmpty)
        }
    }

    @Test func aFailingWriteLeavesNothingBehind() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let week = range("2024-03-04", "2024-03-10")
            try await store.storeDaily(
                counterID: sampleCounter.id, range: week, metrics: metrics, values: rows(week),
                fetchedAt: fetchedAt, settledBefore: day("2024-03-09"), sampled: false, dataLag: nil)
            let before = try await store.dailyValues(counterID: sampleCounter.id, range: week, metrics: metrics)
            // The last day's row is too short: the failure comes after six days were already rewritten.
            var values = rows(week, shift: 500)
            values[day("2024-03-10")] = [1, 2]
            let error = try await #require(throws: StoreError.self) {
                try await store.storeDaily(
                    counterID: sampleCounter.id, range: week, metrics: metrics, values: values,
                    fetchedAt: fetchedAt, settledBefore: day("2024-03-11"), sampled: false, dataLag: nil)
            }
            #expect(error.kind == .invalidInput)
            #expect(try await store.dailyValues(counterID: sampleCounter.id, range: week, metrics: metrics) == before)
            #expect(try rawRows(store.path, "SELECT count(*) FROM fetch_log") == [[.integer(1)]])
            #expect(try await store.settledDays(counterID: sampleCounter.id, range: week, metrics: metrics).count == 5)
        }
    }

    @Test func aThrowInsideATransactionRollsBack() async throws {
        struct Boom: Error {}
        let database = try Database(path: ":memory:")
        try database.executeScript("CREATE TABLE t (x INTEGER)")
        #expect(throws: Boom.self) {
            try database.inTransaction {
                try database.execute("INSERT INTO t VALUES (?)", [.int(1)])
                try database.inTransaction {
                    try database.execute("INSERT INTO t VALUES (?)", [.int(2)])
                }
                throw Boom()
            }
        }
        #expect(try database.scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(!database.isInTransaction)
        // A failing nested part rolls back alone.
        try database.inTransaction {
            try database.execute("INSERT INTO t VALUES (?)", [.int(3)])
            _ = try? database.inTransaction {
                try database.execute("INSERT INTO t VALUES (?)", [.int(4)])
                throw Boom()
            }
        }
        #expect(try database.rows("SELECT x FROM t") == [[.integer(3)]])
    }

    @Test func valuesAreBoundNeverInterpolated() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let hostile = Counter(id: 7, name: "x'); DROP TABLE counters; --", site: "a\"b", createTime: nil)
        try await store.upsertCounters([hostile])
        #expect(try await store.counter(id: 7) == hostile)
        #expect(try await store.counter(id: 8) == nil)
        let renamed = Counter(id: 7, name: "Renamed", site: "new.example", isFavorite: true)
        try await store.upsertCounters([renamed])
        #expect(try await store.counters() == [renamed])
    }

    @Test func unknownCounterIsRefused() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let error = try await #require(throws: StoreError.self) {
            try await store.storeDaily(
                counterID: 999, range: range("2024-01-01", "2024-01-01"), metrics: [.visits],
                values: [day("2024-01-01"): [1]], fetchedAt: fetchedAt, settledBefore: day("2024-01-02"),
                sampled: false, dataLag: nil)
        }
        #expect(error.kind == .unknownCounter(999))
        #expect(error.exitCode == 1)
    }

    @Test func aStoredUnitThatNoLongerMatchesCountsAsMissing() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let one = range("2024-01-01", "2024-01-01")
            try await store.storeDaily(
                counterID: sampleCounter.id, range: one, metrics: [.visits, .bounceRate],
                values: [day("2024-01-01"): [10, 25]], fetchedAt: fetchedAt,
                settledBefore: day("2024-01-02"), sampled: false, dataLag: nil)
            try rawExecute(store.path, "UPDATE daily_values SET unit = 'fraction' WHERE metric = 'ym:s:bounceRate'")
            #expect(
                try await store.dailyValues(counterID: sampleCounter.id, range: one, metrics: [.visits]) == [
                    day("2024-01-01"): [10]
                ])
            #expect(
                try await store.dailyValues(counterID: sampleCounter.id, range: one, metrics: [.visits, .bounceRate])
                    .isEmpty)
        }
    }

    @Test func periodTotals() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        try await store.upsertCounters([sampleCounter])
        let week = range("2024-03-04", "2024-03-10")
        #expect(try await store.periodTotal(counterID: sampleCounter.id, period: week, metric: .users) == nil)
        try await store.storePeriodTotal(
            counterID: sampleCounter.id, period: week, metric: .users, value: 1234, settled: false, fetchedAt: fetchedAt
        )
        let first = try #require(try await store.periodTotal(counterID: sampleCounter.id, period: week, metric: .users))
        #expect(first.value == 1234 && first.settled == false)
        try await store.storePeriodTotal(
            counterID: sampleCounter.id, period: week, metric: .users, value: 1300, settled: true, fetchedAt: fetchedAt)
        let second = try #require(
            try await store.periodTotal(counterID: sampleCounter.id, period: week, metric: .users))
        #expect(second.value == 1300 && second.settled == true)
        // A different period is a different total, never derived from this one.
        #expect(
            try await store.periodTotal(
                counterID: sampleCounter.id, period: range("2024-03-04", "2024-03-09"), metric: .users) == nil)
        try await store.storePeriodTotal(
            counterID: sampleCounter.id, period: range("2024-03-11", "2024-03-17"), metric: .users,
            value: nil, settled: true, fetchedAt: fetchedAt)
        let unknown = try #require(
            try await store.periodTotal(
                counterID: sampleCounter.id, period: range("2024-03-11", "2024-03-17"), metric: .users))
        #expect(unknown.value == nil)
    }
}
