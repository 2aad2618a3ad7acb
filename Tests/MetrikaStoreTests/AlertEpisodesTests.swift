import Foundation
import Testing
@testable import MetrikaModel
@testable import MetrikaStore

/// What `metrika alert` remembers: open episodes and each counter's goals (migration 3).
@Suite struct AlertEpisodesTests {
    func episode(_ metric: String, kind: String = "drop", last: String = "2026-11-29") -> AlertEpisode {
        AlertEpisode(counterID: 1001, metric: metric, kind: kind, since: Day(iso: "2026-11-28")!, lastDay: Day(iso: last)!, value: 0, expected: 25,
                     notifiedAt: Date(timeIntervalSince1970: 1_795_953_600))
    }

    @Test func episodesAreOpenedMovedOnAndClosedInOneGo() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/h.sqlite"
            let store = try HistoryStore(path: path)
            #expect(try store.openAlertEpisodes(counterID: 1001).isEmpty)
            try store.recordAlertEpisodes(opened: [episode("ym:s:visits"), episode("ym:s:goal1reaches", kind: "stopped")], touched: [], closed: [])
            let open = try store.openAlertEpisodes(counterID: 1001)
            #expect(open.count == 2)
            #expect(open["ym:s:goal1reaches"] == episode("ym:s:goal1reaches", kind: "stopped"))
            try store.recordAlertEpisodes(opened: [], touched: [episode("ym:s:visits", last: "2026-11-30")], closed: [(1001, "ym:s:goal1reaches")])
            // A reopened store (the next cron run) sees the same.
            let again = try HistoryStore(path: path).openAlertEpisodes(counterID: 1001)
            #expect(Array(again.keys) == ["ym:s:visits"])
            #expect(again["ym:s:visits"]?.lastDay == Day(iso: "2026-11-30"))
            #expect(try HistoryStore(path: path).openAlertEpisodes(counterID: 1002).isEmpty)
            // The alerts' tables are migration 3, whatever migrations came after it.
            let version = try rawRows(path, "SELECT version FROM metrika_migrations WHERE name = 'alerts'").first?.first?.int
            #expect(version == 3)
        }
    }

    @Test func aKindOutsideTheThreeIsRefusedByTheSchema() throws {
        let store = try HistoryStore(path: ":memory:")
        #expect(throws: StoreError.self) { try store.recordAlertEpisodes(opened: [episode("m", kind: "weird")], touched: [], closed: []) }
        #expect(try store.openAlertEpisodes(counterID: 1001).isEmpty, "nothing half-written")
    }

    @Test func goalsAreStoredWithWhenTheyWereRead() throws {
        let store = try HistoryStore(path: ":memory:")
        #expect(try store.storedGoals(counterID: 1001) == nil)
        let read = Date(timeIntervalSince1970: 1_795_953_600)
        try store.storeGoals(counterID: 1001, goals: [Goal(id: 2, name: "Заказ", type: "action"), Goal(id: 1, name: "Корзина", type: "url")], fetchedAt: read)
        let stored = try #require(try store.storedGoals(counterID: 1001))
        #expect(stored.goals.map(\.id) == [2, 1], "in the API's order")
        #expect(stored.fetchedAt == read)
        try store.storeGoals(counterID: 1001, goals: [], fetchedAt: read.addingTimeInterval(60))
        let none = try #require(try store.storedGoals(counterID: 1001))
        #expect(none.goals.isEmpty, "a counter without goals is remembered as such (not read again every run)")
    }
}
