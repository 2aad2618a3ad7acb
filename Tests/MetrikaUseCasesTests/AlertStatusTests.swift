import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// `metrika alert --status` / `--forget`: the open episodes with the names the history knows, and
/// forgetting one by id (or all) so that the next run tells it again.
@Suite struct AlertStatusTests {
    func store() async throws -> HistoryStore {
        let store = try await HistoryStore.open(path: ":memory:")
        try await store.upsertCounters([Counter(id: 1001, name: "Магазин", site: "shop.example", timeZoneName: "UTC")])
        try await store.storeGoals(
            counterID: 1001, goals: [Goal(id: 77, name: "Заказ", type: "action")], fetchedAt: testNow)
        func episode(_ counter: Int, _ metric: String, _ kind: String, value: Double, expected: Double) -> AlertEpisode
        {
            AlertEpisode(
                counterID: counter, metric: metric, kind: kind, since: Day(iso: "2026-11-27")!,
                lastDay: Day(iso: "2026-11-28")!,
                value: value, expected: expected, notifiedAt: testNow)
        }
        try await store.recordEpisodes(
            grain: .day,
            opened: [
                episode(1001, "ym:s:goal77reaches", "stopped", value: 0, expected: 25),
                episode(1001, "ym:s:ecommerceRUBConvertedRevenue", "drop", value: 80_000, expected: 240_000),
                episode(2002, "ym:s:visits", "rise", value: 900, expected: 300)
            ], touched: [], closed: [])
        var moved = episode(2002, "ym:s:visits", "rise", value: 900, expected: 300)
        moved.lastDay = Day(iso: "2026-11-29")!
        moved.lastValue = 1_250
        moved.lastExpected = 310
        try await store.recordEpisodes(grain: .day, opened: [], touched: [moved], closed: [])
        return store
    }

    /// An hourly outage still open beside the daily episodes: listed with its grain and hours, and
    /// forgotten by its id as they are.
    @Test func anHourlyOutageIsListedWithItsHoursAndForgottenByItsId() async throws {
        let store = try await store()
        let outage = AlertEpisode(
            counterID: 1001, metric: "ym:s:visits", kind: "stopped", day: Day(iso: "2026-11-30")!, sinceHour: 22,
            lastDay: Day(iso: "2026-12-01")!, lastHour: 3, value: 0, expected: 40, notifiedAt: testNow)
        try await store.recordEpisodes(grain: .hour, opened: [outage], touched: [], closed: [])
        let status = AlertStatus(store: store)
        let entries = try await status.entries()
        #expect(entries.map(\.episode.counterID) == [1001, 1001, 1001, 2002])
        let hourly = try #require(entries.first { $0.episode.grain == .hour })
        let row = hourly.row
        #expect(row.grain == "hour" && row.sinceHour == 22 && row.lastHour == 3)
        #expect(
            row.sinceText == "2026-11-30 22:00" && row.lastText == "2026-12-01 03:00"
                && row.kindText == "stopped (hourly)")
        #expect(
            entries.filter { $0.episode.grain == .day }.allSatisfy {
                $0.row.sinceHour == nil && $0.row.lastHour == nil && $0.row.kindText == $0.episode.kind
            })
        #expect(try await status.forget(.id(hourly.id)).map(\.episode.grain) == [.hour])
        #expect(try await status.entries().count == 3)
        try await store.recordEpisodes(grain: .hour, opened: [outage], touched: [], closed: [])
        #expect(try await status.forget(.all).count == 4)
    }

    @Test func theOpenEpisodesComeWithTheirNamesAndLatestValues() async throws {
        let entries = try await AlertStatus(store: try store()).entries()
        #expect(entries.map(\.episode.counterID) == [1001, 1001, 2002])
        #expect(entries.map(\.metricLabel) == ["goal \"Заказ\"", "revenue", "visits"])
        #expect(
            entries.map(\.counterName) == ["Магазин", "Магазин", ""],
            "a counter the history lacks has no name, not a made-up one")
        #expect(Set(entries.map(\.id)).count == 3 && !entries.contains { $0.id == 0 })
        let revenue = entries[1]
        #expect(
            revenue.valueText(revenue.latestValue) == "80 000.00 ₽"
                && revenue.expectedText(revenue.latestExpected) == "~240 000 ₽")
        let visits = entries[2]
        #expect(
            visits.latestValue == 1_250 && visits.latestExpected == 310 && visits.episode.value == 900,
            "the last run's values, the told ones kept")
        #expect(visits.valueText(visits.latestValue) == "1 250" && visits.expectedText(visits.latestExpected) == "~310")
    }

    @Test func oneIsForgottenByItsIdAndTheRestWithAll() async throws {
        let status = AlertStatus(store: try await store())
        let entries = try await status.entries()
        let forgotten = try await status.forget(.id(entries[1].id))
        #expect(forgotten.map(\.metricLabel) == ["revenue"])
        #expect(try await status.forget(.id(entries[1].id)).isEmpty, "an id no open episode has")
        #expect(try await status.entries().map(\.metricLabel) == ["goal \"Заказ\"", "visits"])
        #expect(try await status.forget(.all).count == 2)
        #expect(try await status.entries().isEmpty)
    }
}
