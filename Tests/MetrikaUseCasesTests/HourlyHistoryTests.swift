import Foundation
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// An API answering `ym:s:date,ym:s:hour` by a rule: visits at `hour` of `day` are `day-of-month × 100
/// + hour`, the goal `hour % 4`; hours of `today` after `runningHour` do not exist; hours from
/// `stopHour` on are left out (no visits). Records each request's query.
final class HourlyRuleAPI: HTTPTransport {
    let today: Day
    let runningHour: Int
    let stopHour: Int?
    let dataLag: Double
    private let sent = Mutex<[[String: String]]>([])

    init(today: Day, runningHour: Int, stopHour: Int? = nil, dataLag: Double = 240) {
        self.today = today
        self.runningHour = runningHour
        self.stopHour = stopHour
        self.dataLag = dataLag
    }

    var queries: [[String: String]] { sent.withLock { $0 } }

    static func visits(_ day: Day, _ hour: Int) -> Double { Double(day.components.day * 100 + hour) }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        var query: [String: String] = [:]
        for item in items { query[item.name] = item.value ?? "" }
        sent.withLock { $0.append(query) }
        let metrics = (query["metrics"] ?? "").split(separator: ",").map(String.init)
        guard let from = Day(iso: query["date1"] ?? ""), let to = Day(iso: query["date2"] ?? ""),
            query["dimensions"] == "ym:s:date,ym:s:hour"
        else {
            return HTTPResponse(
                status: 400,
                body: Data(
                    #"{"errors":[{"error_type":"invalid_parameter","message":"bad"}],"code":400,"message":"bad"}"#.utf8)
            )
        }
        var rows: [String] = []
        var day = from
        while day <= to {
            for hour in 0..<24 {
                if day == today, hour > runningHour { continue }
                if day == today, let stopHour, hour >= stopHour { continue }
                let values = metrics.map { $0 == "ym:s:visits" ? "\(Self.visits(day, hour))" : "\(Double(hour % 4))" }
                let name = hour < 10 ? "0\(hour):00" : "\(hour):00"
                rows.append(
                    #"{"dimensions":[{"name":"\#(day.iso)"},{"name":"\#(name)"}],"metrics":[\#(values.joined(separator: ","))]}"#
                )
            }
            day = day.adding(days: 1)
        }
        let body =
            #"{"query":{"metrics":[\#(metrics.map { "\"\($0)\"" }.joined(separator: ","))],"dimensions":["ym:s:date","ym:s:hour"]},"data":[\#(rows.joined(separator: ","))],"total_rows":\#(rows.count),"sampled":false,"data_lag":\#(dataLag),"totals":[\#(metrics.map { _ in "0" }.joined(separator: ","))]}"#
        return HTTPResponse(status: 200, body: Data(body.utf8))
    }
}

@Suite struct HourlyHistoryTests {
    /// Tuesday 2026-12-01 17:30 in Moscow (14:30Z).
    static let now = Date(timeIntervalSince1970: 1_796_135_400)
    static let counter = Counter(id: 101, name: "Shop", site: "shop.example", timeZoneName: "Europe/Moscow")
    static let goal = Metric.named("goal7reaches")!

    func history(_ api: HourlyRuleAPI?, store: HistoryStore, now: Date = now) -> HourlyHistory {
        let client = api.map {
            MetrikaClient(
                baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: $0,
                requestTimeout: 5, sleep: { _ in }, now: { now })
        }
        return HourlyHistory(store: store, client: client, now: { now })
    }

    func withStore<T>(_ body: (HistoryStore) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hourly-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await HistoryStore.open(path: directory + "/metrika.sqlite")
        try await store.upsertCounters([Self.counter])
        return try await body(store)
    }

    @Test func todaysHoursAndTheSameHoursOfFourEarlierTuesdaysInOneRequest() async throws {
        try await withStore { store in
            let api = HourlyRuleAPI(today: day("2026-12-01"), runningHour: 17)
            let snapshot = try await history(api, store: store).load(
                counter: Self.counter, metrics: [.visits, Self.goal])
            #expect(api.queries.count == 1)
            // From four Mondays back: yesterday's hours and their weeks come along (issue 45, item 8).
            #expect(api.queries.first?["date1"] == "2026-11-02" && api.queries.first?["date2"] == "2026-12-01")
            #expect(snapshot.today == day("2026-12-01"))
            #expect(snapshot.runningHour == 17 && snapshot.finishedHours == 17)
            #expect(snapshot.todayHours.count == 18)
            #expect(snapshot.value(hour: 16, metric: 0) == HourlyRuleAPI.visits(day("2026-12-01"), 16))
            #expect(snapshot.value(hour: 18, metric: 0) == nil)
            #expect(
                snapshot.baselineDays == [day("2026-11-24"), day("2026-11-17"), day("2026-11-10"), day("2026-11-03")])
            #expect(snapshot.baselineValues(hour: 10, metric: 0) == [2410, 1710, 1010, 310])
            #expect(snapshot.baseline(hour: 10, metric: 0) == 1360)
            #expect(snapshot.baseline(hour: 10, metric: 1) == 2)
            #expect(snapshot.dataLag == 240 && snapshot.lastData == Self.now.addingTimeInterval(-240))
            #expect(snapshot.requests == 1)
        }
    }

    @Test func aLaterRunAsksForTodayOnlyAndOfflineReadsTheStore() async throws {
        try await withStore { store in
            let api = HourlyRuleAPI(today: day("2026-12-01"), runningHour: 17, stopHour: 14)
            _ = try await history(api, store: store).load(counter: Self.counter, metrics: [.visits, Self.goal])
            let later = Self.now.addingTimeInterval(1_800)
            let snapshot = try await history(api, store: store, now: later).load(
                counter: Self.counter, metrics: [.visits, Self.goal])
            #expect(api.queries.count == 2)
            #expect(api.queries.last?["date1"] == "2026-12-01" && api.queries.last?["date2"] == "2026-12-01")
            // Hours the API left out had no visits: 0, not unknown.
            #expect(snapshot.value(hour: 15, metric: 0) == 0 && snapshot.value(hour: 15, metric: 1) == 0)
            #expect(snapshot.baselineValues(hour: 15, metric: 0).count == 4, "earlier weeks from the store")
            let offline = try await history(nil, store: store, now: later).load(
                counter: Self.counter, metrics: [.visits, Self.goal])
            #expect(offline.requests == 0 && offline.dataLag == nil)
            #expect(offline.value(hour: 13, metric: 0) == HourlyRuleAPI.visits(day("2026-12-01"), 13))
            #expect(offline.baseline(hour: 10, metric: 0) == 1360)
            // Hours later, offline: the last stored hour was running when it was stored (partial), so
            // it and the hours after it are not finished (review: judged as complete, a false drop).
            let muchLater = try await history(nil, store: store, now: later.addingTimeInterval(3 * 3_600)).load(
                counter: Self.counter, metrics: [.visits, Self.goal])
            #expect(muchLater.runningHour >= 20)
            #expect(muchLater.finishedHours <= 18)
        }
    }

    /// Issue 45, item 8: after midnight the snapshot holds yesterday's hours (all 24, final) and their
    /// baseline (the same weekday as yesterday), still in one request: the first run after midnight
    /// fetches yesterday with today, the next ones today only (yesterday settled, its weeks stored).
    @Test func afterMidnightYesterdaysHoursComeInTheSameOneRequest() async throws {
        try await withStore { store in
            // Tue 23:30 Moscow (the day's last run), then Wed 00:05 and 01:05.
            let late = Self.now.addingTimeInterval(6 * 3_600)
            let tuesday = HourlyRuleAPI(today: day("2026-12-01"), runningHour: 23)
            _ = try await history(tuesday, store: store, now: late).load(counter: Self.counter, metrics: [.visits])
            #expect(tuesday.queries.count == 1)
            // Wednesdays of earlier weeks, stored as the runs on those days would have left them.
            let wednesdays = [day("2026-11-25"), day("2026-11-18"), day("2026-11-11"), day("2026-11-04")]
            try await store.storeHourly(
                counterID: Self.counter.id, metrics: [.visits],
                values: Dictionary(
                    uniqueKeysWithValues: wednesdays.map { day in
                        (day, (0..<24).map { [HourlyRuleAPI.visits(day, $0)] })
                    }),
                settledBefore: day("2026-12-01"), fetchedAt: late)
            let wednesday = HourlyRuleAPI(today: day("2026-12-02"), runningHour: 1)
            let midnight = late.addingTimeInterval(35 * 60)
            let first = try await history(wednesday, store: store, now: midnight).load(
                counter: Self.counter, metrics: [.visits])
            #expect(wednesday.queries.count == 1 && first.requests == 1)
            #expect(wednesday.queries.last?["date1"] == "2026-12-01")
            #expect(wednesday.queries.last?["date2"] == "2026-12-02")
            #expect(first.today == day("2026-12-02") && first.finishedHours == 0)
            #expect(first.yesterdayHours[23]?[0] == HourlyRuleAPI.visits(day("2026-12-01"), 23))
            #expect(first.yesterdayBaselineHours.count == 4)
            #expect(first.yesterdayBaselineHours[3][23]?[0] == HourlyRuleAPI.visits(day("2026-11-03"), 23))
            let window = first.acrossMidnight(metric: 0)
            #expect(window.finished == 24 && window.series.count == 24 && window.weeks.allSatisfy { $0.count == 48 })
            let next = try await history(wednesday, store: store, now: midnight.addingTimeInterval(3_600)).load(
                counter: Self.counter, metrics: [.visits])
            #expect(wednesday.queries.count == 2 && next.requests == 1)
            #expect(wednesday.queries.last?["date1"] == "2026-12-02")
            #expect(wednesday.queries.last?["date2"] == "2026-12-02")
            #expect(next.yesterdayHours[23]?[0] == HourlyRuleAPI.visits(day("2026-12-01"), 23))
            #expect(next.acrossMidnight(metric: 0).finished == 25)
        }
    }

    @Test func anHourTheDataHasNotCaughtUpWithIsNotFinished() async throws {
        try await withStore { store in
            // 17:30 with 40 minutes of lag: the data reaches 16:50, so 16:00 is not finished either.
            let api = HourlyRuleAPI(today: day("2026-12-01"), runningHour: 17, dataLag: 2_400)
            let snapshot = try await history(api, store: store).load(counter: Self.counter, metrics: [.visits])
            #expect(snapshot.finishedHours == 16)
        }
    }

    @Test func hourNamesAreReadStrictly() {
        #expect(
            HourlyHistory.hour(named: "00:00") == 0 && HourlyHistory.hour(named: "23:00") == 23
                && HourlyHistory.hour(named: "7") == 7)
        #expect(
            HourlyHistory.hour(named: "24:00") == nil && HourlyHistory.hour(named: "12:30") == nil
                && HourlyHistory.hour(named: nil) == nil)
    }
}
