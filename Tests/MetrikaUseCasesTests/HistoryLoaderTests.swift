import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// The history loader fetches what the database lacks or what may still change, stores it, and
/// builds rows from the stored days.
@Suite("History loader")
struct HistoryLoaderTests {
    let database: TemporaryDatabase
    let store: HistoryStore
    let api = RuleAPI()

    init() async throws {
        database = try TemporaryDatabase()
        store = try await HistoryStore.open(path: database.path)
    }

    func loader(online: Bool = true, unsettledDays: Int = 2) -> HistoryLoader {
        HistoryLoader(store: store, client: online ? api.client() : nil, now: { testNow }, unsettledDays: unsettledDays)
    }

    @Test func aColdLoadFetchesTheRangeOnceAndStoresEveryDay() async throws {
        let loader = loader()
        let counter = try await loader.counter(id: 1001)
        let loaded = try await loader.load(
            counter: counter, range: days("2026-11-01", "2026-11-10"), metrics: [Metric.visits], grouping: .day,
            refresh: false)

        // One daily request over the whole range, visits and pageviews (weighting needs them).
        let data = api.dataRequests
        try #require(data.count == 1)
        #expect(data[0].query["date1"] == "2026-11-01")
        #expect(data[0].query["date2"] == "2026-11-10")
        #expect(data[0].query["metrics"] == "ym:s:visits,ym:s:pageviews")
        #expect(data[0].query["dimensions"] == "ym:s:date")
        #expect(loaded.daysFetched == 10)
        #expect(loaded.missingDays.isEmpty)

        // What is stored is what the API said, day by day.
        let stored = try await store.dailyValues(
            counterID: 1001, range: days("2026-11-01", "2026-11-10"), metrics: [Metric.visits, Metric.pageviews])
        #expect(stored.count == 10)
        #expect(stored[day("2026-11-07")] == [RuleAPI.value(0, day("2026-11-07")), RuleAPI.value(1, day("2026-11-07"))])

        // And the rows are those values, one per day.
        let rows = HistoryLoader.rows(from: loaded, metrics: [Metric.visits]).rows
        #expect(rows.map { $0.dimensions.first?.name } == days("2026-11-01", "2026-11-10").days.map(\.iso))
        #expect(rows[2].values.first?.value == RuleAPI.value(0, day("2026-11-03")))
        // The counter's metadata was fetched once and is now in the database.
        #expect(try await store.counter(id: 1001)?.name == "Shop")
    }

    /// Offline, a counter the history never saw is a configuration matter (78) naming the database
    /// and the sync that fills it; nothing is asked of anyone.
    @Test func offlineACounterNotInTheHistoryIsNamedWithTheSyncThatFillsIt() async throws {
        let failure = await #expect(throws: HistoryError.counterNotInHistory(counterID: 1001, database: store.path)) {
            _ = try await loader(online: false).counter(id: 1001)
        }
        #expect(failure?.exitCode == ExitCode.config)
        #expect(
            failure?.message(cliNaming)
                == "counter 1001 is not in the history (\(store.path)); run metrika sync --counter 1001 (or the report without --offline) first."
        )
        #expect(api.dataRequests.isEmpty)
    }

    @Test func aWarmLoadFetchesOnlyTheUnsettledDays() async throws {
        let loader = loader()
        let counter = try await loader.counter(id: 1001)
        _ = try await loader.load(
            counter: counter, range: days("2026-11-20", "2026-11-29"), metrics: [Metric.visits], grouping: .day,
            refresh: false, rangeTotals: false)
        let before = api.dataRequests.count
        let again = try await loader.load(
            counter: counter, range: days("2026-11-20", "2026-11-29"), metrics: [Metric.visits], grouping: .day,
            refresh: false, rangeTotals: false)

        let data = Array(api.dataRequests.dropFirst(before))
        try #require(data.count == 1, "\(data)")
        // Today and yesterday may still change: only they are asked for again.
        #expect(data[0].query["date1"] == "2026-11-28")
        #expect(data[0].query["date2"] == "2026-11-29")
        #expect(again.daysFetched == 2)
        #expect(again.today == day("2026-11-29"))
        // The current day's row is marked incomplete.
        let rows = HistoryLoader.rows(from: again, metrics: [Metric.visits]).rows
        #expect(rows.last?.isIncomplete == true)
        #expect(rows.dropLast().allSatisfy { !$0.isIncomplete })
    }

    @Test func offlineNothingIsFetchedAndMissingDaysAreNamed() async throws {
        try await store.upsertCounters([Counter(id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC")])
        let offline = loader(online: false)
        let counter = try await offline.counter(id: 1001)
        let loaded = try await offline.load(
            counter: counter, range: days("2026-11-01", "2026-11-03"), metrics: [Metric.visits], grouping: .day,
            refresh: false)
        #expect(api.requests.isEmpty)
        #expect(loaded.missingDays == days("2026-11-01", "2026-11-03").days)
        // A period with a day missing has no values at all, never a partial sum.
        #expect(HistoryLoader.rows(from: loaded, metrics: [Metric.visits]).totals.map(\.value) == [nil])
    }

    @Test func offlineAnUnknownCounterIsAConfigurationError() async throws {
        do {
            _ = try await loader(online: false).counter(id: 1001)
            Issue.record("an unknown counter offline must fail")
        } catch let failure as any MetrikaFailure {
            #expect(failure.exitCode == ExitCode.config)
            #expect(cliNaming.message(of: failure).contains("metrika sync --counter 1001"))
        }
        #expect(api.requests.isEmpty)
    }

    @Test func daysBeforeTheCounterExistedAreNeverFetched() async throws {
        api.counters[1001] =
            #"{"id":1001,"name":"Shop","site":"shop.example","time_zone_name":"UTC","create_time":"2026-11-05T10:00:00Z"}"#
        let loader = loader()
        let counter = try await loader.counter(id: 1001)
        let loaded = try await loader.load(
            counter: counter, range: days("2026-11-01", "2026-11-10"), metrics: [Metric.visits], grouping: .day,
            refresh: false)
        #expect(api.dataRequests.first?.query["date1"] == "2026-11-05")
        #expect(loaded.range == days("2026-11-05", "2026-11-10"))
        #expect(loaded.periods.count == 6)

        // A range wholly before it asks for nothing and loads no day (no rows, never rows of zeros).
        let before = api.dataRequests.count
        let empty = try await loader.load(
            counter: counter, range: days("2026-10-01", "2026-10-31"), metrics: [Metric.visits], grouping: .day,
            refresh: false)
        #expect(api.dataRequests.count == before)
        #expect(empty.periods.isEmpty)
    }

    @Test func weeksAreTheSumOfTheirStoredDays() async throws {
        let loader = loader()
        let counter = try await loader.counter(id: 1001)
        // Monday 2026-11-02 to Sunday 2026-11-15: two whole weeks.
        let loaded = try await loader.load(
            counter: counter, range: days("2026-11-02", "2026-11-15"), metrics: [Metric.visits], grouping: .week,
            refresh: false)
        let rows = HistoryLoader.rows(from: loaded, metrics: [Metric.visits]).rows
        try #require(rows.count == 2)
        let firstWeek = days("2026-11-02", "2026-11-08").days.reduce(0) { $0 + RuleAPI.value(0, $1) }
        #expect(rows[0].values.first?.value == firstWeek)
        #expect(rows[0].period == days("2026-11-02", "2026-11-08"))
    }
}
