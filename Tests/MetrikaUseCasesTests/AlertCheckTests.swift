import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// `AlertCheck` over a rule-answering API and a real history database: it fetches only what the
/// history lacks, reads the goals list once a day, and remembers nothing until told to.
@Suite struct AlertCheckTests {
    /// An activity at a chosen instant that says nothing.
    struct ClockActivity: Activity {
        let now: @Sendable () -> Date
        func note(_ line: String) {}
        func progress(_ text: String, force: Bool) {}
        func endProgress() {}
    }

    /// RuleAPI plus a goals list (or a refusal of it), counting the goals requests.
    final class GoalsAPI: HTTPTransport, @unchecked Sendable {
        let rules = RuleAPI()
        var refuseGoals = false
        var goalCount = 1
        private let lock = NSLock()
        private var goalsAsked = 0

        var goalsRequests: Int {
            lock.lock()
            defer { lock.unlock() }
            return goalsAsked
        }

        private func countGoalsRequest() {
            lock.lock()
            goalsAsked += 1
            lock.unlock()
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard request.url.path.hasSuffix("/goals") else { return try await rules.send(request) }
            countGoalsRequest()
            if refuseGoals {
                return HTTPResponse(
                    status: 403,
                    body: Data(
                        #"{"errors":[{"error_type":"access_denied","message":"Access denied"}],"code":403,"message":"Access denied"}"#
                            .utf8))
            }
            let goals = (0..<goalCount).map { #"{"id":\#(77 + $0),"name":"Цель \#($0)","type":"action"}"# }.joined(
                separator: ",")
            return HTTPResponse(status: 200, body: Data(#"{"goals":[\#(goals)]}"#.utf8))
        }
    }

    /// `shop`: whether purchases and revenue are checked too (RuleAPI's values are never zero, so
    /// every counter would be a shop; the tests of other things leave it off).
    func check(
        _ api: GoalsAPI, store: HistoryStore, activity: RecordedActivity, now: Date = testNow, shop: Bool = false
    ) -> AlertCheck {
        let client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: api,
            requestTimeout: 5, sleep: { _ in }, now: { now })
        var settings = AlertSettings()
        settings.checkShop = shop
        return AlertCheck(
            loader: HistoryLoader(store: store, client: client, now: { now }, unsettledDays: 2), settings: settings,
            activity: activity)
    }

    /// Should the API refuse e-commerce metrics for a counter without e-commerce, its visits and goals
    /// are judged all the same (asked again without purchases), with no error and no warning.
    @Test func anAPIThatRefusesPurchasesForACounterStillGetsItsVisitsJudged() async throws {
        final class NoShopAPI: HTTPTransport, @unchecked Sendable {
            let inner = GoalsAPI()
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                if request.url.absoluteString.contains("ecommercePurchases") {
                    return HTTPResponse(
                        status: 400,
                        body: Data(
                            #"{"errors":[{"error_type":"invalid_parameter","message":"Wrong parameter: metrics"}],"code":400,"message":"Wrong parameter: metrics"}"#
                                .utf8))
                }
                return try await inner.send(request)
            }
        }
        let api = NoShopAPI()
        let store = try await HistoryStore.open(path: ":memory:")
        let counter = Counter(
            id: 1001, name: "Blog", site: "blog.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        try await store.upsertCounters([counter])
        let client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: api,
            requestTimeout: 5, sleep: { _ in }, now: { testNow })
        let activity = RecordedActivity()
        let check = AlertCheck(
            loader: HistoryLoader(store: store, client: client, now: { testNow }, unsettledDays: 2),
            settings: AlertSettings(), activity: activity)
        let outcome = await check.run(counters: [counter])
        #expect(outcome.failures.isEmpty && outcome.countersChecked == 1, "\(outcome.failures.map(\.failure.message))")
        let asked = api.inner.rules.dataRequests.map { $0.query["metrics"] ?? "" }
        #expect(asked.count == 1 && asked[0].contains("ym:s:visits") && !asked[0].contains("ecommerce"), "\(asked)")
        #expect(activity.notes.isEmpty, "\(activity.notes)")
    }

    @Test func aShopsRevenueComesInItsCurrencyWithThePurchasesAndAMissingCurrencyLeavesTheRestChecked() async throws {
        let api = GoalsAPI()
        api.rules.currencies[1001] = "EUR"
        let store = try await HistoryStore.open(path: ":memory:")
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        try await store.upsertCounters([counter])
        let activity = RecordedActivity()
        let outcome = await check(api, store: store, activity: activity, shop: true).run(counters: [counter])
        #expect(outcome.failures.isEmpty && outcome.countersChecked == 1, "\(outcome.failures.map(\.failure.message))")
        let metrics = api.rules.dataRequests.map { $0.query["metrics"] ?? "" }
        #expect(metrics.first?.contains("ym:s:ecommercePurchases") == true, "purchases come with visits and goals")
        // Revenue too, in "the counter's currency": the answer names it (EUR), so one request is all.
        #expect(metrics.count == 1 && metrics[0].contains("ym:s:ecommerce<currency>ConvertedRevenue"), "\(metrics)")
        #expect(try await store.counterCurrencySeen(id: 1001)?.currency.code == "EUR")
        let kept = try await store.settledDays(
            counterID: 1001, range: DateRange(from: Day(iso: "2026-11-01")!, to: Day(iso: "2026-11-20")!)!,
            metrics: [Metric.revenue.inCurrency(Currency(code: "EUR")!)])
        #expect(!kept.isEmpty, "kept under the currency the answer named")

        // --currency: the asked one, without asking the API which is the counter's.
        let usdAPI = GoalsAPI()
        let usdStore = try await HistoryStore.open(path: ":memory:")
        try await usdStore.upsertCounters([counter])
        var usd = check(usdAPI, store: usdStore, activity: RecordedActivity(), shop: true)
        usd.currency = Currency(code: "USD")
        _ = await usd.run(counters: [counter])
        #expect(
            usdAPI.rules.dataRequests.map { $0.query["metrics"] ?? "" }.last?.hasPrefix(
                "ym:s:ecommerceUSDConvertedRevenue") == true)

        // An API that never says the currency: revenue is left out with a warning, the rest judged.
        let silent = GoalsAPI()
        let silentStore = try await HistoryStore.open(path: ":memory:")
        try await silentStore.upsertCounters([counter])
        let warned = RecordedActivity()
        let rest = await check(silent, store: silentStore, activity: warned, shop: true).run(counters: [counter])
        #expect(rest.failures.isEmpty && rest.countersChecked == 1)
        #expect(
            warned.notes.contains { $0.hasPrefix("Warning: counter 1001: its revenue was not checked (") },
            "\(warned.notes)")
    }

    @Test func aSecondRunFetchesOnlyYesterdayAndReadsTheGoalsOnce() async throws {
        let api = GoalsAPI()
        let store = try await HistoryStore.open(path: ":memory:")
        let activity = RecordedActivity()
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        try await store.upsertCounters([counter])
        let first = await check(api, store: store, activity: activity).run(counters: [counter])
        #expect(first.failures.isEmpty && first.countersChecked == 1)
        let firstData = api.rules.dataRequests
        #expect(firstData.count == 1, "one request for the whole window")
        #expect(firstData.first?.query["metrics"]?.contains("ym:s:goal77reaches") == true, "every goal is checked")
        #expect(firstData.first?.query["date2"] == "2026-11-28", "the last finished day in the counter's time zone")

        let later = await check(api, store: store, activity: activity, now: testNow.addingTimeInterval(3600)).run(
            counters: [counter])
        #expect(later.failures.isEmpty)
        let secondData = api.rules.dataRequests.dropFirst(firstData.count)
        #expect(
            secondData.count == 1 && secondData.first?.query["date1"] == "2026-11-28"
                && secondData.first?.query["date2"] == "2026-11-28",
            "only yesterday, whose numbers may still change: \(secondData.map(\.query))")
        #expect(api.goalsRequests == 1, "the goals list is read once a day")
    }

    @Test func fortyGoalsTakeThreeRequestsOfAtMostTwentyMetrics() async throws {
        let api = GoalsAPI()
        api.goalCount = 40
        let store = try await HistoryStore.open(path: ":memory:")
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        try await store.upsertCounters([counter])
        let outcome = await check(api, store: store, activity: RecordedActivity()).run(counters: [counter])
        #expect(outcome.failures.isEmpty, "\(outcome.failures.map(\.failure.message))")
        let asked = api.rules.dataRequests.map { ($0.query["metrics"] ?? "").split(separator: ",") }
        #expect(asked.count == 3)
        #expect(asked.allSatisfy { $0.count <= 20 }, "the API takes at most 20 metrics")
        #expect(Set(asked.flatMap { $0 }.filter { $0.hasPrefix("ym:s:goal") }).count == 40, "every goal")
    }

    @Test func anEpisodeOfAGoalThatIsGoneIsForgotten() async throws {
        let api = GoalsAPI()
        let store = try await HistoryStore.open(path: ":memory:")
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        try await store.upsertCounters([counter])
        let gone = AlertEpisode(
            counterID: 1001, metric: "ym:s:goal5reaches", kind: "stopped", since: Day(iso: "2026-11-20")!,
            lastDay: Day(iso: "2026-11-27")!,
            value: 0, expected: 30, notifiedAt: testNow)
        try await store.recordEpisodes(grain: .day, opened: [gone], touched: [], closed: [])
        let check = check(api, store: store, activity: RecordedActivity())
        try await check.record(await check.run(counters: [counter]))
        #expect(try await store.openEpisodes(counterID: 1001, grain: .day)["ym:s:goal5reaches"] == nil)
    }

    @Test func aSkippedCounterIsNotCheckedAndANamedOneSaysSo() async throws {
        let api = GoalsAPI()
        let store = try await HistoryStore.open(path: ":memory:")
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        let client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: api,
            requestTimeout: 5, sleep: { _ in }, now: { testNow })
        var settings = AlertSettings()
        settings.skippedCounters = [1001]
        let activity = RecordedActivity()
        let check = AlertCheck(
            loader: HistoryLoader(store: store, client: client, now: { testNow }, unsettledDays: 2), settings: settings,
            activity: activity)
        let quiet = await check.run(counters: [counter], explain: false)
        #expect(quiet.countersChecked == 0 && api.rules.requests.isEmpty && activity.notes.isEmpty)
        _ = await check.run(counters: [counter], explain: true)
        #expect(activity.notes == ["Note: counter 1001 is not checked: the config file's \"alerts\" skip it."])
    }

    /// An API that answers nothing but 5xx (gone, for the retry policy): the counter fails with its
    /// one failure, and no goals warning comes before it (newcomer, issue 40 item 5: two lines per counter).
    @Test func anAPIThatIsGoneFailsTheCounterWithoutAGoalsWarning() async throws {
        final class GoneAPI: HTTPTransport, @unchecked Sendable {
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                HTTPResponse(
                    status: 503,
                    body: Data(
                        #"{"errors":[{"error_type":"backend_error","message":"Service unavailable"}],"code":503,"message":"Service unavailable"}"#
                            .utf8))
            }
        }
        let store = try await HistoryStore.open(path: ":memory:")
        let activity = RecordedActivity()
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        try await store.upsertCounters([counter])
        let client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: GoneAPI(),
            requestTimeout: 5, sleep: { _ in }, now: { testNow })
        let check = AlertCheck(
            loader: HistoryLoader(store: store, client: client, now: { testNow }, unsettledDays: 2),
            settings: AlertSettings(), activity: activity)
        let outcome = await check.run(counters: [counter])
        #expect(outcome.failures.count == 1, "\(outcome.failures)")
        #expect(!activity.notes.contains { $0.contains("could not read its goals") }, "\(activity.notes)")
    }

    @Test func unreadableGoalsLeaveVisitsChecked() async throws {
        let api = GoalsAPI()
        api.refuseGoals = true
        let store = try await HistoryStore.open(path: ":memory:")
        let activity = RecordedActivity()
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        try await store.upsertCounters([counter])
        let open = AlertEpisode(
            counterID: 1001, metric: "ym:s:goal5reaches", kind: "stopped", since: Day(iso: "2026-11-20")!,
            lastDay: Day(iso: "2026-11-27")!,
            value: 0, expected: 30, notifiedAt: testNow)
        try await store.recordEpisodes(grain: .day, opened: [open], touched: [], closed: [])
        let check = check(api, store: store, activity: activity)
        let outcome = await check.run(counters: [counter])
        try await check.record(outcome)
        #expect(
            try await store.openEpisodes(counterID: 1001, grain: .day)["ym:s:goal5reaches"].map(withoutID) == open,
            "goals it could not read are not forgotten")
        #expect(outcome.failures.isEmpty && outcome.countersChecked == 1)
        #expect(
            activity.notes.contains {
                $0.contains("could not read its goals") && $0.contains("only its visits are checked")
            }, "\(activity.notes)")
        #expect(api.rules.dataRequests.first?.query["metrics"] == "ym:s:visits,ym:s:pageviews")
    }

    @Test func aDayThatEndedWithinTheDataLagIsProvisional() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0)
        try await store.upsertCounters([counter])
        func check(hoursAfterMidnight: Double) -> AlertCheck {
            let now = Date(
                timeIntervalSince1970: Double(Day(iso: "2026-11-29")!.ordinal) * 86_400 + hoursAfterMidnight * 3600)
            let activity = ClockActivity(now: { now })
            return AlertCheck(
                loader: HistoryLoader(store: store, client: nil, now: { now }, unsettledDays: 2),
                settings: AlertSettings(), activity: activity)
        }
        let yesterday = Day(iso: "2026-11-28")!
        #expect(try await check(hoursAfterMidnight: 2).isProvisional(yesterday, counter: counter))
        #expect(try await !check(hoursAfterMidnight: 4).isProvisional(yesterday, counter: counter))
        // The API said its data is 5 hours behind: 4 hours after midnight is still too early.
        try await store.storeDaily(
            counterID: 1001, range: DateRange(from: yesterday, to: yesterday)!, metrics: [.visits],
            values: [yesterday: [10]],
            fetchedAt: testNow, settledBefore: yesterday, sampled: false, dataLag: 5 * 3600)
        #expect(try await check(hoursAfterMidnight: 4).isProvisional(yesterday, counter: counter))
        #expect(try await !check(hoursAfterMidnight: 6).isProvisional(yesterday, counter: counter))
    }

    @Test func nothingIsRememberedUntilRecorded() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        try await store.upsertCounters([counter])
        // Six Saturdays of 600 visits and a Saturday of 0: stored history, judged offline.
        let judged = Day(iso: "2026-11-28")!
        var values: [Day: [Double?]] = [:]
        for back in 0...49 { values[judged.adding(days: -back)] = [back == 0 ? 0 : 600, 1_000] }
        try await store.storeDaily(
            counterID: 1001, range: DateRange(from: judged.adding(days: -49), to: judged)!,
            metrics: [.visits, .pageviews], values: values,
            fetchedAt: testNow, settledBefore: judged.adding(days: 1), sampled: false, dataLag: nil)
        var settings = AlertSettings()
        settings.checkGoals = false
        let check = AlertCheck(
            loader: HistoryLoader(store: store, client: nil, now: { testNow }, unsettledDays: 2), settings: settings,
            activity: RecordedActivity())
        let outcome = await check.run(counters: [counter])
        #expect(outcome.findings.map(\.notice) == [.alert(.stopped)], "\(outcome.failures.map(\.failure.message))")
        #expect(
            try await store.openEpisodes(counterID: 1001, grain: .day).isEmpty,
            "a run that is not recorded (a failed delivery, --dry-run) remembers nothing")
        #expect(await check.run(counters: [counter]).findings.count == 1, "so the next run tells it again")
        try await check.record(outcome)
        #expect(try await store.openEpisodes(counterID: 1001, grain: .day)["ym:s:visits"]?.kind == "stopped")
        #expect(await check.run(counters: [counter]).findings.isEmpty, "told once")
    }

    /// Issue 45 target 7: the hourly check told the stop on Saturday at 16:05 and it is still open;
    /// the daily check judging Saturday told it again as a new alert, and `--status` listed two. Then
    /// it told nothing. Now the day is the hourly alert's story, continued in one line on that alert
    /// (no second episode), once a day: a second daily run for the same day tells nothing.
    @Test func aDayTheHourlyCheckToldIsContinuedOnItsAlertOnceADay() async throws {
        let path = NSTemporaryDirectory() + "metrika-alert-story-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let counter = try await stoppedVisitsHistory(path)
        let store = try await HistoryStore.open(path: path)
        let saturday = Day(iso: "2026-11-28")!
        let told = AlertEpisode(
            counterID: 1001, metric: "ym:s:visits", kind: "stopped", day: saturday, sinceHour: 14,
            lastDay: saturday.adding(days: 1), lastHour: 6, value: 0, expected: 300, notifiedAt: testNow)
        try await store.recordEpisodes(grain: .hour, opened: [told], touched: [], closed: [])
        let hourly = try #require(try await store.openEpisodes(counterID: 1001, grain: .hour)["ym:s:visits"])
        var settings = AlertSettings()
        settings.checkGoals = false
        let check = AlertCheck(
            loader: HistoryLoader(store: store, client: nil, now: { testNow }, unsettledDays: 2), settings: settings,
            activity: RecordedActivity())
        var outcome = await check.run(counters: [counter])
        #expect(outcome.findings.map(\.notice) == [.continues(hourly, day: saturday)])
        #expect(
            outcome.findings.map(AlertText.line) == [
                "1001 Shop: visits still stopped since 14:00 on Sat 2026-11-28: 0 of ~600 that day (-100%)"
            ])
        #expect(AlertText.subject(outcome.findings) == "metrika: 1 alert still open (Shop)")
        let body = String(decoding: AlertText.webhookBody(outcome.findings), as: UTF8.self)
        #expect(body.contains(#""continues":{"alert_id":\#(hourly.id ?? 0),"since_hour":"14:00"}"#), "\(body)")
        #expect(outcome.findings.first?.recent.count == 35, "the mail's chart")
        // Claimed on the hourly alert; a delivery that failed gives it back, and the next run tells it.
        let claims = try await check.claim(&outcome)
        #expect(claims.count == 1 && outcome.findings.count == 1)
        try await check.release(claims)
        var again = await check.run(counters: [counter])
        #expect(try await check.claim(&again).count == 1, "given back: told again")
        try await check.record(again)
        #expect(try await store.openEpisodes(counterID: 1001, grain: .day).isEmpty, "a second alert opened")
        #expect(try await store.allOpenAlertEpisodes().map(\.id) == [hourly.id], "--status lists one alert")
        var third = await check.run(counters: [counter])
        _ = try await check.claim(&third)
        #expect(third.findings.isEmpty, "continued twice for one day: \(third.findings.map(AlertText.line))")
        // A rise is another story; a day outside the hourly alert's span is told as usual.
        #expect(!AlertCheck.sameStory(.rise, told: told, day: saturday))
        #expect(!AlertCheck.sameStory(.drop, told: told, day: saturday.adding(days: -1)))
        #expect(AlertCheck.sameStory(.drop, told: told, day: saturday.adding(days: 1)))
    }

    /// Issue 45 target 7: an hourly alert told the stop at 14:00 and saw it back at 17:00 (closed);
    /// the next morning's daily check told the day it dragged down as a new drop. Now the hourly
    /// alerts that closed are remembered, and their days are not told again; a day outside a closed
    /// alert's span still is.
    @Test func aDayWhoseHourlyAlertClosedIsNotToldAsANewDrop() async throws {
        let path = NSTemporaryDirectory() + "metrika-alert-closed-story-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let counter = try await stoppedVisitsHistory(path)
        let store = try await HistoryStore.open(path: path)
        let saturday = Day(iso: "2026-11-28")!
        var settings = AlertSettings()
        settings.checkGoals = false
        let check = AlertCheck(
            loader: HistoryLoader(store: store, client: nil, now: { testNow }, unsettledDays: 2), settings: settings,
            activity: RecordedActivity())
        // Thursday's hourly stop, closed when no longer as far off: another day's story.
        let thursday = AlertEpisode(
            counterID: 1001, metric: "ym:s:visits", kind: "drop", day: saturday.adding(days: -2), sinceHour: 10,
            lastDay: saturday.adding(days: -1), lastHour: 2, value: 10, expected: 300, notifiedAt: testNow)
        try await store.recordEpisodes(grain: .hour, opened: [thursday], touched: [], closed: [])
        try await store.recordEpisodes(grain: .hour, opened: [], touched: [], closed: [(1001, "ym:s:visits")])
        #expect(await check.run(counters: [counter]).findings.map(\.notice) == [.alert(.stopped)])
        // Saturday's, told at 16:05 and back to normal at 17:00 (the back-to-normal claim closed it).
        let told = AlertEpisode(
            counterID: 1001, metric: "ym:s:visits", kind: "stopped", day: saturday, sinceHour: 14,
            lastDay: saturday, lastHour: 16, value: 0, expected: 300, notifiedAt: testNow)
        try await store.recordEpisodes(grain: .hour, opened: [told], touched: [], closed: [])
        let open = try #require(try await store.openEpisodes(counterID: 1001, grain: .hour)["ym:s:visits"])
        #expect(try await store.claimNews([.close(open)]).count == 1)
        #expect(try await store.allOpenAlertEpisodes().isEmpty)
        let outcome = await check.run(counters: [counter])
        #expect(outcome.findings.isEmpty, "told again as a new drop: \(outcome.findings.map(AlertText.line))")
        try await check.record(outcome)
        #expect(try await store.allOpenAlertEpisodes().isEmpty, "a daily alert opened")
        #expect(try await store.closedHourEpisodes(counterID: 1001)["ym:s:visits"]?.count == 2)
        // `--forget all` forgets them too: the next run tells the day anew.
        _ = try await store.forgetAllAlertEpisodes()
        #expect(try await store.closedHourEpisodes(counterID: 1001).isEmpty)
        #expect(await check.run(counters: [counter]).findings.map(\.notice) == [.alert(.stopped)])
    }

    /// An episode as recorded, without the id the history gave it.
    func withoutID(_ episode: AlertEpisode) -> AlertEpisode {
        var episode = episode
        episode.id = nil
        return episode
    }

    /// A history (in a file, so that several runs open it) of six Saturdays of 600 visits and one of 0.
    func stoppedVisitsHistory(_ path: String) async throws -> Counter {
        let store = try await HistoryStore.open(path: path)
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        try await store.upsertCounters([counter])
        let judged = Day(iso: "2026-11-28")!
        var values: [Day: [Double?]] = [:]
        for back in 0...49 { values[judged.adding(days: -back)] = [back == 0 ? 0 : 600, 1_000] }
        try await store.storeDaily(
            counterID: 1001, range: DateRange(from: judged.adding(days: -49), to: judged)!,
            metrics: [.visits, .pageviews], values: values,
            fetchedAt: testNow, settledBefore: judged.adding(days: 1), sampled: false, dataLag: nil)
        return counter
    }

    /// Overlapping runs (issue 32): two runs that both found the same alert claim it; only the first
    /// keeps it to tell. Its delivery fails: the claim is given back and the next run tells it.
    @Test func overlappingRunsTellAnAlertOnceAndAFailedDeliveryGivesItBack() async throws {
        let path = NSTemporaryDirectory() + "metrika-alert-claims-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let counter = try await stoppedVisitsHistory(path)
        var settings = AlertSettings()
        settings.checkGoals = false
        func run() async throws -> AlertCheck {
            AlertCheck(
                loader: HistoryLoader(
                    store: try await HistoryStore.open(path: path), client: nil, now: { testNow }, unsettledDays: 2),
                settings: settings,
                activity: ClockActivity(now: { testNow }))
        }
        let (first, second) = (try await run(), try await run())
        var one = await first.run(counters: [counter])
        var other = await second.run(counters: [counter])
        #expect(one.findings.count == 1 && other.findings.count == 1, "both saw it before either told it")
        let claims = try await first.claim(&one)
        #expect(claims.count == 1 && one.findings.map(\.notice) == [.alert(.stopped)])
        #expect(try await second.claim(&other).isEmpty)
        #expect(other.findings.isEmpty, "the run that lost the claim tells nothing")
        try await second.record(other)
        #expect(
            try await HistoryStore.open(path: path).openEpisodes(counterID: 1001, grain: .day)["ym:s:visits"]?.id
                == claims.first?.news.episode.id,
            "the loser's record leaves the winner's episode alone")

        // The winner's webhook failed: it gives the claim back, and the next run tells the alert again.
        try await first.release(claims)
        #expect(try await HistoryStore.open(path: path).openEpisodes(counterID: 1001, grain: .day).isEmpty)
        let third = try await run()
        var again = await third.run(counters: [counter])
        #expect(try await third.claim(&again).count == 1 && again.findings.count == 1)
        try await third.record(again)
        var quiet = await third.run(counters: [counter])
        let quietClaims = try await third.claim(&quiet)
        #expect(quiet.findings.isEmpty && quietClaims.isEmpty, "told once")
    }

    /// An error metrika has no sentence for becomes one that is a sentence, never a Swift value's description.
    @Test func anUnexpectedErrorOfACounterIsASentence() {
        struct Odd: Error { let secret = "internal detail" }
        let failure = AlertCheckError.wrapping(Odd())
        #expect(
            failure.message.hasSuffix(".") && !failure.message.contains("internal detail")
                && failure.message.contains("unexpected error"))
        #expect(AlertCheckError.wrapping(CancellationError()) as? AlertCheckError == .interrupted)
        let typed = AlertCheckError.wrapping(WebhookError.notAURL(source: "--webhook"))
        #expect(typed as? WebhookError == .notAURL(source: "--webhook"), "metrika's own failures pass as they are")
    }

    /// A shop's history offline: six weeks of 600 visits, 60 orders and ~240 000 ₽ a day; then `last`
    /// (visits, purchases, revenue) on Saturday 2026-11-28 and Sunday.
    func shopHistory(saturday: [Double], sunday: [Double], currencyKnown: Bool = true) async throws -> (
        HistoryStore, Counter
    ) {
        let store = try await HistoryStore.open(path: ":memory:")
        let counter = Counter(
            id: 1001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
            createTime: "2025-01-01T00:00:00+00:00")
        try await store.upsertCounters([counter])
        let rub = Metric.revenue.inCurrency(Currency(code: "RUB")!)
        if currencyKnown {
            try await store.storeCounterCurrency(id: 1001, currency: Currency(code: "RUB")!, seenAt: testNow)
        }
        let saturdayDay = Day(iso: "2026-11-28")!
        var values: [Day: [Double?]] = [:]
        for back in 1...49 { values[saturdayDay.adding(days: -back)] = [600, 1_000, 60, 240_000 + Double(back * 37)] }
        values[saturdayDay] = [saturday[0], 1_000, saturday[1], saturday[2]]
        values[saturdayDay.adding(days: 1)] = [sunday[0], 1_000, sunday[1], sunday[2]]
        try await store.storeDaily(
            counterID: 1001, range: DateRange(from: saturdayDay.adding(days: -49), to: saturdayDay.adding(days: 1))!,
            metrics: [.visits, .pageviews, .purchases, rub], values: values,
            fetchedAt: testNow, settledBefore: saturdayDay.adding(days: 2), sampled: false, dataLag: nil)
        return (store, counter)
    }

    func offlineCheck(_ store: HistoryStore, now: Date) -> AlertCheck {
        var settings = AlertSettings()
        settings.checkGoals = false
        return AlertCheck(
            loader: HistoryLoader(store: store, client: nil, now: { now }, unsettledDays: 2), settings: settings,
            activity: ClockActivity(now: { now }))
    }

    /// Checkout broken on Saturday: orders and money stop; told once, as the purchases. On Sunday the
    /// orders are back but their money is not (prices lost): that is told then — the revenue episode was
    /// not opened behind the purchases' line, which would have kept it silent for good.
    @Test func revenueHiddenBehindThePurchasesIsToldWhenTheyRecoverAndItDoesNot() async throws {
        let (store, counter) = try await shopHistory(saturday: [600, 0, 0], sunday: [600, 60, 0])
        let saturday = offlineCheck(store, now: testNow)
        let first = await saturday.run(counters: [counter])
        #expect(first.failures.isEmpty, "\(first.failures.map(\.failure.message))")
        #expect(first.findings.map(\.metric.shortName) == ["purchases"], "revenue stopped with them: one line")
        try await saturday.record(first)
        #expect(try await store.openEpisodes(counterID: 1001, grain: .day).keys.sorted() == ["ym:s:ecommercePurchases"])

        let sunday = offlineCheck(store, now: testNow.addingTimeInterval(86_400))
        let second = await sunday.run(counters: [counter])
        let told = second.findings.map { "\($0.metric.shortName) \($0.notice)" }
        #expect(second.findings.count == 2, "\(told)")
        #expect(
            second.findings.contains {
                $0.metric.shortName == "purchases"
                    && { if case .backToNormal = $0.notice { return true } else { return false } }($0)
            })
        let revenue = try #require(second.findings.first { $0.metric.shortName == "revenue" }, "\(told)")
        #expect(revenue.notice == .alert(.stopped) && revenue.judgement.since == Day(iso: "2026-11-28"))
    }

    /// A run that could not load the revenue (offline, currency unknown) leaves its open episode alone:
    /// closing it would tell the same drop again on the next run that can.
    @Test func anEpisodeOfRevenueNotLoadedThisRunIsKept() async throws {
        let (store, counter) = try await shopHistory(
            saturday: [600, 60, 80_000], sunday: [600, 60, 80_000], currencyKnown: false)
        let episode = AlertEpisode(
            counterID: 1001, metric: "ym:s:ecommerceRUBConvertedRevenue", kind: "drop", since: Day(iso: "2026-11-27")!,
            lastDay: Day(iso: "2026-11-27")!, value: 80_000, expected: 240_000, notifiedAt: testNow)
        try await store.recordEpisodes(grain: .day, opened: [episode], touched: [], closed: [])
        let check = offlineCheck(store, now: testNow)
        let outcome = await check.run(counters: [counter])
        #expect(outcome.failures.isEmpty)
        try await check.record(outcome)
        #expect(
            try await store.openEpisodes(counterID: 1001, grain: .day)["ym:s:ecommerceRUBConvertedRevenue"].map(
                withoutID) == episode)
    }
}
