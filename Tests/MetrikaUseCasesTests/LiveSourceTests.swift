import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaStore
@testable import MetrikaUseCases

/// `HourlyLiveSource`: `HourlyHistory`'s hours as the live view needs them — the band of the earlier
/// weeks, the goals beside visits in the same request, the requests added up per day.
@Suite("LiveSource")
struct LiveSourceTests {
    /// Tuesday 2026-12-01 17:30 in Moscow (14:30Z).
    static let now = Date(timeIntervalSince1970: 1_796_135_400)
    static let counter = Counter(id: 101, name: "Shop", site: "shop.example", timeZoneName: "Europe/Moscow")

    @Test func oneRequestPerRefreshWithGoalsAndTheBandOfEarlierWeeks() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await HistoryStore.open(path: directory + "/metrika.sqlite")
        try await store.upsertCounters([Self.counter])
        let api = HourlyRuleAPI(today: day("2026-12-01"), runningHour: 17)
        let client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: api,
            requestTimeout: 5, sleep: { _ in }, now: { Self.now })
        let source = HourlyLiveSource(
            history: HourlyHistory(store: store, client: client, now: { Self.now }),
            goals: [101: [Goal(id: 7, name: "Заказ", type: "action")]])

        let first = try await source.hours(of: Self.counter, now: Self.now)
        #expect(api.queries.count == 1)
        #expect(api.queries[0]["metrics"] == "ym:s:visits,ym:s:goal7reaches")
        #expect(first.visits[16] == HourlyRuleAPI.visits(day("2026-12-01"), 16))
        #expect(first.visits[18] == nil)
        // 10:00 on the four Tuesdays before: 2410, 1710, 1010, 310.
        #expect(first.baseline[10] == LiveSnapshot.Band(low: 310, median: 1360, high: 2410))
        #expect(first.goals.map(\.name) == ["Заказ"])
        #expect(first.goals[0].reaches[10] == 2 && first.goals[0].usual[10] == 2)
        #expect(first.lastData == Self.now.addingTimeInterval(-240))
        #expect(first.requestsToday == 1)

        let second = try await source.hours(of: Self.counter, now: Self.now)
        #expect(api.queries.count == 2)
        #expect(second.requestsToday == 2)
        let snapshot = LiveJudgement.snapshot(second, now: Self.now)
        #expect(snapshot.clock == "17:30")
        #expect(snapshot.goals.first?.name == "Заказ")
    }
}
