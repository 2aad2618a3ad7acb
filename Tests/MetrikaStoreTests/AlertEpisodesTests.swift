import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

/// What `metrika alert` remembers: open episodes and each counter's goals (migration 3).
@Suite struct AlertEpisodesTests {
    func episode(_ metric: String, kind: String = "drop", last: String = "2026-11-29") -> AlertEpisode {
        AlertEpisode(
            counterID: 1001, metric: metric, kind: kind, since: Day(iso: "2026-11-28")!, lastDay: Day(iso: last)!,
            value: 0, expected: 25,
            notifiedAt: Date(timeIntervalSince1970: 1_795_953_600))
    }

    @Test func episodesAreOpenedMovedOnAndClosedInOneGo() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/h.sqlite"
            let store = try await HistoryStore.open(path: path)
            #expect(try await store.openEpisodes(counterID: 1001, grain: .day).isEmpty)
            try await store.recordEpisodes(
                grain: .day, opened: [episode("ym:s:visits"), episode("ym:s:goal1reaches", kind: "stopped")],
                touched: [], closed: [])
            let open = try await store.openEpisodes(counterID: 1001, grain: .day)
            #expect(open.count == 2)
            var stopped = try #require(open["ym:s:goal1reaches"])
            #expect(stopped.id != nil && stopped.id != open["ym:s:visits"]?.id, "each episode has its own id")
            stopped.id = nil
            #expect(stopped == episode("ym:s:goal1reaches", kind: "stopped"))
            try await store.recordEpisodes(
                grain: .day, opened: [], touched: [episode("ym:s:visits", last: "2026-11-30")],
                closed: [(1001, "ym:s:goal1reaches")])
            // A reopened store (the next cron run) sees the same.
            let again = try await HistoryStore.open(path: path).openEpisodes(counterID: 1001, grain: .day)
            #expect(Array(again.keys) == ["ym:s:visits"])
            #expect(again["ym:s:visits"]?.lastDay == Day(iso: "2026-11-30"))
            #expect(try await HistoryStore.open(path: path).openEpisodes(counterID: 1002, grain: .day).isEmpty)
            // The alerts' tables are migration 3, whatever migrations came after it.
            let version = try rawRows(path, "SELECT version FROM metrika_migrations WHERE name = 'alerts'").first?
                .first?.int
            #expect(version == 3)
        }
    }

    @Test func aKindOutsideTheThreeIsRefusedByTheSchema() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        await #expect(throws: StoreError.self) {
            try await store.recordEpisodes(grain: .day, opened: [episode("m", kind: "weird")], touched: [], closed: [])
        }
        #expect(try await store.openEpisodes(counterID: 1001, grain: .day).isEmpty, "nothing half-written")
    }

    @Test func goalsAreStoredWithWhenTheyWereRead() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        #expect(try await store.storedGoals(counterID: 1001) == nil)
        let read = Date(timeIntervalSince1970: 1_795_953_600)
        try await store.storeGoals(
            counterID: 1001,
            goals: [Goal(id: 2, name: "Заказ", type: "action"), Goal(id: 1, name: "Корзина", type: "url")],
            fetchedAt: read)
        let stored = try #require(try await store.storedGoals(counterID: 1001))
        #expect(stored.goals.map(\.id) == [2, 1], "in the API's order")
        #expect(stored.fetchedAt == read)
        try await store.storeGoals(counterID: 1001, goals: [], fetchedAt: read.addingTimeInterval(60))
        let none = try #require(try await store.storedGoals(counterID: 1001))
        #expect(none.goals.isEmpty, "a counter without goals is remembered as such (not read again every run)")
    }

    /// A claim writes the news at once; a second claim of the same news loses; a release puts back
    /// what was there before (a closed episode with its id, the episode an opened one replaced).
    @Test func claimsAreWonOnceAndReleasedBackToWhatWasThere() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let drop = episode("ym:s:visits")
        let won = try await store.claimNews([.open(drop), .open(drop)])
        #expect(won.count == 2 && won[0] != nil && won[1] == nil, "the same news twice in one claim is told once")
        let first = try #require(won[0])
        let stored = try #require(try await store.openEpisodes(counterID: 1001, grain: .day)["ym:s:visits"])
        #expect(first.news == .open(stored) && first.previous == nil)

        // A rise replaces the drop; released, the drop is back with its id.
        var rise = episode("ym:s:visits", kind: "rise")
        rise.value = 90
        let replaced = try #require(try await store.claimNews([.open(rise)]).first ?? nil)
        #expect(replaced.previous == stored)
        #expect(try await store.openEpisodes(counterID: 1001, grain: .day)["ym:s:visits"]?.kind == "rise")
        try await store.releaseClaims([replaced])
        #expect(try await store.openEpisodes(counterID: 1001, grain: .day)["ym:s:visits"] == stored)

        // Back to normal: claimed once, the episode gone; released, it is open again as it was.
        let closed = try #require(try await store.claimNews([.close(stored)]).first ?? nil)
        #expect(try await store.claimNews([.close(stored)]) == [nil])
        #expect(try await store.openEpisodes(counterID: 1001, grain: .day).isEmpty)
        try await store.releaseClaims([closed])
        #expect(try await store.openEpisodes(counterID: 1001, grain: .day)["ym:s:visits"] == stored)

        // A released open claim leaves nothing behind, so the next run wins it again.
        let other = try #require(try await store.claimNews([.open(episode("ym:s:pageviews"))]).first ?? nil)
        try await store.releaseClaims([other])
        #expect(try await store.openEpisodes(counterID: 1001, grain: .day)["ym:s:pageviews"] == nil)
        #expect(
            try await store.claimNews([.open(episode("ym:s:pageviews"))]).first??.news.episode.id
                != other.news.episode.id, "ids are never reused")
    }

    /// `alert --status` and `--forget ID`: every open episode of both grains in order; one forgotten
    /// by id (an hourly one too), or all.
    @Test func episodesAreListedAndForgottenById() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        try await store.recordEpisodes(
            grain: .day, opened: [episode("ym:s:visits"), episode("ym:s:goal1reaches", kind: "stopped")], touched: [],
            closed: [])
        let outage = AlertEpisode(
            counterID: 1001, metric: "ym:s:visits", kind: "stopped", day: day("2026-11-30"), sinceHour: 22,
            lastDay: day("2026-12-01"),
            lastHour: 2, value: 0, expected: 40, notifiedAt: Date(timeIntervalSince1970: 1_796_000_000))
        try await store.recordEpisodes(grain: .hour, opened: [outage], touched: [], closed: [])
        var moved = episode("ym:s:visits", last: "2026-11-30")
        moved.lastValue = 7
        moved.lastExpected = 26
        try await store.recordEpisodes(grain: .day, opened: [], touched: [moved], closed: [])
        let all = try await store.allOpenAlertEpisodes()
        #expect(all.map(\.metric) == ["ym:s:visits", "ym:s:goal1reaches", "ym:s:visits"])
        #expect(all.map(\.grain) == [.day, .day, .hour])
        #expect(
            all.first?.lastValue == 7 && all.first?.lastExpected == 26 && all.first?.lastDay == Day(iso: "2026-11-30"))
        let hourly = try #require(all.last)
        #expect(
            hourly.since == day("2026-11-30") && hourly.sinceHour == 22 && hourly.lastDay == day("2026-12-01")
                && hourly.lastHour == 2)
        let id = try #require(all[1].id)
        #expect(try await store.forgetAlertEpisode(id: id)?.metric == "ym:s:goal1reaches")
        #expect(try await store.forgetAlertEpisode(id: id) == nil)
        // The hourly outage, forgotten by its id: the daily episode of the same metric stays.
        #expect(try await store.forgetAlertEpisode(id: try #require(hourly.id))?.grain == .hour)
        #expect(try await store.allOpenAlertEpisodes().map(\.grain) == [.day])
        try await store.recordEpisodes(grain: .hour, opened: [outage], touched: [], closed: [])
        #expect(try await store.forgetAllAlertEpisodes() == 2, "all: both grains")
        #expect(try await store.allOpenAlertEpisodes().isEmpty)
    }

    /// A history written before episode ids (schema 6) keeps its open episodes, each with an id.
    @Test func episodesOfAnOlderHistoryGetIds() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/h.sqlite"
            let database = try Database(path: path)
            try database.executeScript(Schema.createMigrationsTable)
            for migration in Schema.migrations where migration.version <= 6 {
                try database.executeScript(migration.sql)
                try database.execute(
                    "INSERT INTO metrika_migrations (version, name, applied_at) VALUES (?, ?, 0)",
                    [.int(migration.version), .text(migration.name)])
            }
            try database.execute(
                """
                INSERT INTO alert_episodes (counter_id, metric, kind, since, last_day, value, expected, notified_at)
                VALUES (1001, 'ym:s:visits', 'drop', '2026-11-28', '2026-11-29', 0, 25, 1795953600)
                """)
            let open = try await HistoryStore.open(path: path).allOpenAlertEpisodes()
            #expect(
                open.count == 1 && open.first?.id == 1 && open.first?.kind == "drop" && open.first?.lastValue == nil)
        }
    }

    /// Migration 12 on a history of version 10 holding episodes of both kinds: one table, each episode
    /// with its grain, the daily ids kept, the hourly ones given the next ids (never one a forgotten
    /// episode had), the hours across midnight kept, and the old tables gone.
    @Test func aVersion10HistoryJoinsItsDailyAndHourlyEpisodes() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/h.sqlite"
            do {
                let database = try Database(path: path)
                try database.executeScript(Schema.createMigrationsTable)
                for migration in Schema.migrations where migration.version <= 10 {
                    try database.executeScript(migration.sql)
                    try database.execute(
                        "INSERT INTO metrika_migrations (version, name, applied_at) VALUES (?, ?, 0)",
                        [.int(migration.version), .text(migration.name)])
                }
                try database.executeScript(
                    """
                    INSERT INTO alert_episodes (counter_id, metric, kind, since, last_day, value, expected, notified_at, last_value, last_expected) VALUES
                        (1001, 'ym:s:visits', 'drop', '2026-11-28', '2026-11-29', 3, 25, 1795953600, 4, 24),
                        (1001, 'ym:s:goal1reaches', 'stopped', '2026-11-27', '2026-11-29', 0, 9, 1795953700, NULL, NULL),
                        (1002, 'ym:s:visits', 'rise', '2026-11-29', '2026-11-29', 90, 30, 1795953800, NULL, NULL);
                    DELETE FROM alert_episodes WHERE counter_id = 1002;
                    INSERT INTO hourly_episodes (counter_id, metric, kind, day, since_hour, last_day, last_hour, value, expected, notified_at) VALUES
                        (1001, 'ym:s:visits', 'stopped', '2026-12-01', 14, '2026-12-02', 3, 0, 21, 1796135400);
                    PRAGMA user_version = 10;
                    """)
            }
            let store = try await HistoryStore.open(path: path)
            let open = try await store.allOpenAlertEpisodes()
            #expect(open.map(\.id) == [1, 2, 4] && open.map(\.grain) == [.day, .day, .hour])
            let daily = open.filter { $0.grain == .day }
            #expect(
                daily.first
                    == AlertEpisode(
                        id: 1, counterID: 1001, metric: "ym:s:visits", kind: "drop", since: day("2026-11-28"),
                        lastDay: day("2026-11-29"),
                        value: 3, expected: 25, notifiedAt: Date(timeIntervalSince1970: 1_795_953_600), lastValue: 4,
                        lastExpected: 24))
            let hourly = try #require(try await store.openEpisodes(counterID: 1001, grain: .hour)["ym:s:visits"])
            #expect(
                hourly
                    == AlertEpisode(
                        id: 4, counterID: 1001, metric: "ym:s:visits", kind: "stopped", day: day("2026-12-01"),
                        sinceHour: 14,
                        lastDay: day("2026-12-02"), lastHour: 3, value: 0, expected: 21,
                        notifiedAt: Date(timeIntervalSince1970: 1_796_135_400)))
            // The same counter and metric in both grains: two episodes, each closed by its own check only.
            #expect(try await store.openEpisodes(counterID: 1001, grain: .day)["ym:s:visits"]?.id == 1)
            try await store.recordEpisodes(grain: .day, opened: [], touched: [], closed: [(1001, "ym:s:visits")])
            #expect(try await store.openEpisodes(counterID: 1001, grain: .hour)["ym:s:visits"] == hourly)
            // The next id follows every id ever given.
            let claimed = try await store.claimNews([
                .open(
                    AlertEpisode(
                        counterID: 1003, metric: "ym:s:visits", kind: "drop", since: day("2026-12-01"),
                        lastDay: day("2026-12-01"), value: 1, expected: 9, notifiedAt: Date()))
            ])
            #expect(claimed.first??.news.episode.id == 5)
            let tables = try rawRows(
                path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%episodes%' ORDER BY name"
            ).compactMap { $0[0].string }
            #expect(tables == ["alert_episodes"])
        }
    }
}
