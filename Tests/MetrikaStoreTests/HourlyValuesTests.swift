import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

/// The hour grain (`hourly_values`): a day's hours stored together, an hour settled once its day is,
/// today's hours replaced by a later fetch, a partial day never settled.
@Suite struct HourlyValuesTests {
    /// 24 hours of visits and one goal; hours from `until` on have not happened (nil).
    func hours(_ base: Double, until: Int = 24) -> [[Double?]?] {
        (0..<24).map { hour in hour < until ? [base + Double(hour), Double(hour % 3)] : nil }
    }

    let goal = Metric.named("goal7reaches")!

    @Test func aFinishedDayIsSettledAndReadBackHourByHour() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let (past, today) = (day("2026-11-24"), day("2026-12-01"))
            try await store.storeHourly(
                counterID: sampleCounter.id, metrics: [.visits, goal],
                values: [past: hours(100), today: hours(10, until: 15)],
                settledBefore: today, fetchedAt: Date(timeIntervalSince1970: 1_796_126_000))
            let read = try await store.hourlyValues(
                counterID: sampleCounter.id, days: [past, today, day("2026-11-17")], metrics: [.visits, goal])
            #expect(read.count == 2, "a day never stored is left out")
            let pastHours = try #require(read[past])
            #expect(pastHours[0]! == [100, 0] && pastHours[23]! == [123, 2])
            let todayHours = try #require(read[today])
            #expect(todayHours[14]! == [24, 2])
            #expect(todayHours[15] == nil, "an hour that had not happened is not stored")
            #expect(
                try await store.settledHourDays(
                    counterID: sampleCounter.id, days: [past, today], metrics: [.visits, goal]) == [past])
            // Asked with another metric beside: no hour is complete, no day settled.
            let other = try await store.hourlyValues(
                counterID: sampleCounter.id, days: [past], metrics: [.visits, .pageviews])
            #expect(other[past]?.allSatisfy { $0 == nil } == true)
            #expect(
                try await store.settledHourDays(
                    counterID: sampleCounter.id, days: [past], metrics: [.visits, .pageviews]
                ).isEmpty)
        }
    }

    @Test func aLaterFetchReplacesTheDaysHoursAndSettlesThem() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let today = day("2026-12-01")
            try await store.storeHourly(
                counterID: sampleCounter.id, metrics: [.visits, goal], values: [today: hours(10, until: 15)],
                settledBefore: today, fetchedAt: Date(timeIntervalSince1970: 1_796_126_000))
            // The next day: the whole of it, settled; goal at 0 at 14:00 replaces the earlier 2.
            var whole = hours(20)
            whole[14] = [30, 0]
            try await store.storeHourly(
                counterID: sampleCounter.id, metrics: [.visits, goal], values: [today: whole],
                settledBefore: today.adding(days: 1), fetchedAt: Date(timeIntervalSince1970: 1_796_216_000))
            let read = try #require(
                try await store.hourlyValues(counterID: sampleCounter.id, days: [today], metrics: [.visits, goal])[
                    today])
            #expect(read[14]! == [30, 0] && read[23]! == [43, 2])
            #expect(
                try await store.settledHourDays(counterID: sampleCounter.id, days: [today], metrics: [goal]) == [today])
            // Pruned with the days before a later day.
            #expect(try await store.prune(before: day("2026-12-02")) == 48)
            #expect(
                try await store.hourlyValues(counterID: sampleCounter.id, days: [today], metrics: [.visits]).isEmpty)
        }
    }

    @Test func badInputWritesNothing() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let (first, second) = (day("2026-11-23"), day("2026-11-24"))
            var short = hours(5)
            short[3] = [1]
            await #expect(throws: StoreError.self) {
                try await store.storeHourly(
                    counterID: sampleCounter.id, metrics: [.visits, goal], values: [first: hours(1), second: short],
                    settledBefore: second, fetchedAt: Date())
            }
            await #expect(throws: StoreError.self) {
                try await store.storeHourly(
                    counterID: 999, metrics: [.visits], values: [first: (0..<24).map { _ in [1] }],
                    settledBefore: second, fetchedAt: Date())
            }
            #expect(
                try await store.hourlyValues(
                    counterID: sampleCounter.id, days: [first, second], metrics: [.visits, goal]
                ).isEmpty)
        }
    }
}

/// Migration 9 on a database of the previous version: its days stay, hours can be stored.
@Suite struct HourlyMigrationTests {
    @Test func aVersion7DatabaseGainsTheHourTablesAndKeepsItsDays() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/old.sqlite"
            let july = range("2026-07-01", "2026-07-03")
            do {
                let old = try await HistoryStore.open(path: path)
                try await old.upsertCounters([sampleCounter])
                try await old.storeDaily(
                    counterID: sampleCounter.id, range: july, metrics: [.visits],
                    values: Dictionary(uniqueKeysWithValues: july.days.map { ($0, [5.0]) }),
                    fetchedAt: Date(timeIntervalSince1970: 1_782_900_000), settledBefore: july.to, sampled: false,
                    dataLag: nil)
            }
            // Back to version 8, as a metrika before the hourly check left it.
            try backToVersion10(path)
            for table in ["hourly_values", "hourly_episodes", "bot_offsets"] {
                _ = try rawRows(path, "DROP TABLE \(table)")
            }
            _ = try rawRows(path, "DELETE FROM metrika_migrations WHERE version >= 9")
            _ = try rawRows(path, "PRAGMA user_version = 8")
            let store = try await HistoryStore.open(path: path)
            #expect(
                try await store.dailyValues(counterID: sampleCounter.id, range: july, metrics: [.visits]).count == 3)
            try await store.storeHourly(
                counterID: sampleCounter.id, metrics: [.visits], values: [july.from: (0..<24).map { [Double($0)] }],
                settledBefore: july.to, fetchedAt: Date(timeIntervalSince1970: 1_782_900_000))
            #expect(
                try await store.settledHourDays(counterID: sampleCounter.id, days: [july.from], metrics: [.visits]) == [
                    july.from
                ])
            #expect(try await store.openEpisodes(counterID: sampleCounter.id, grain: .hour).isEmpty)
        }
    }
}

/// The hourly check's ledger (`alert_episodes`, the hour grain): opened, moved on, closed, in one transaction each.
@Suite struct HourlyEpisodesTests {
    @Test func episodesAreOpenedMovedOnAndClosed() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let episode = AlertEpisode(
                counterID: sampleCounter.id, metric: "ym:s:visits", kind: "stopped", day: day("2026-12-01"),
                sinceHour: 14,
                lastDay: day("2026-12-01"), lastHour: 16, value: 0, expected: 1_600,
                notifiedAt: Date(timeIntervalSince1970: 1_796_135_400))
            try await store.recordEpisodes(grain: .hour, opened: [episode], touched: [], closed: [])
            let stored = try #require(
                try await store.openEpisodes(counterID: sampleCounter.id, grain: .hour)["ym:s:visits"])
            #expect(stored.id != nil && stored.grain == .hour)
            #expect(
                stored.sameStart(as: episode)
                    && (stored.lastDay, stored.lastHour) == (episode.lastDay, episode.lastHour))
            var moved = stored
            (moved.lastDay, moved.lastHour) = (day("2026-12-02"), 3)
            try await store.recordEpisodes(grain: .hour, opened: [], touched: [moved], closed: [])
            #expect(try await store.openEpisodes(counterID: sampleCounter.id, grain: .hour)["ym:s:visits"] == moved)
            // Never moved back (a late run, a clock set back).
            var back = stored
            (back.lastDay, back.lastHour) = (day("2026-12-01"), 20)
            try await store.recordEpisodes(grain: .hour, opened: [], touched: [back], closed: [])
            #expect(try await store.openEpisodes(counterID: sampleCounter.id, grain: .hour)["ym:s:visits"] == moved)
            // Apart from the daily ledger: its episodes are not these.
            #expect(try await store.openEpisodes(counterID: sampleCounter.id, grain: .day).isEmpty)
            try await store.recordEpisodes(
                grain: .hour, opened: [], touched: [], closed: [(sampleCounter.id, "ym:s:visits")])
            #expect(try await store.openEpisodes(counterID: sampleCounter.id, grain: .hour).isEmpty)
        }
    }

    @Test func newsIsClaimedOnceAndGivenBackWhenItCouldNotBeTold() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let other = try await HistoryStore.open(path: store.path)
            let stop = AlertEpisode(
                counterID: sampleCounter.id, metric: "ym:s:visits", kind: "stopped", day: day("2026-12-01"),
                sinceHour: 14,
                lastDay: day("2026-12-01"), lastHour: 16, value: 0, expected: 1_600,
                notifiedAt: Date(timeIntervalSince1970: 1_796_135_400))
            // Two runs (two connections) with the same news: one wins it.
            let won = try await store.claimNews([.open(stop)])
            var told = stop
            told.id = try #require(won.first??.news.episode.id)
            #expect(won == [AlertClaim(news: .open(told), previous: nil)])
            #expect(try await other.claimNews([.open(stop)]) == [nil])
            // The delivery failed: given back, the next run claims it again.
            try await store.releaseClaims(won.compactMap { $0 })
            #expect(try await store.openEpisodes(counterID: sampleCounter.id, grain: .hour).isEmpty)
            let again = try await other.claimNews([.open(stop)])
            told.id = try #require(again.first??.news.episode.id)
            #expect(again.first??.news == .open(told))
            // Back to normal: closed by one run only; given back, it is open again.
            let closed = try await store.claimNews([.close(stop)])
            #expect(try await other.claimNews([.close(stop)]) == [nil])
            try await store.releaseClaims(closed.compactMap { $0 })
            #expect(try await store.openEpisodes(counterID: sampleCounter.id, grain: .hour)["ym:s:visits"] == told)
        }
    }
}
