import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// An hourly cron (`alert --today` at 5 past every hour) stepped hour by hour on a fake clock across
/// midnight, through an anomaly that lasts into the next morning (issue 40, item 1): one anomaly is
/// told once however long it lasts, nothing at night, and "back to normal" names when it really began.
/// The hours are what the store holds (offline), so each run sees exactly the hours given.
@Suite struct HourlyAcrossMidnightTests {
    /// Tuesday 2026-12-01, UTC.
    static let first = Day(iso: "2026-12-01")!
    static let counter = Counter(
        id: 7001, name: "Shop", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0,
        createTime: "2025-01-01T00:00:00+00:00")

    /// The usual visits of an hour: 21 at night (0–6), 300 by day; earlier weeks at ×0.9, ×1.0, ×1.1
    /// and ×1.2 of it (so the median, today's normal, is ×1.05).
    static func usual(_ hour: Int) -> Double { hour < 7 ? 21 : 300 }
    static let weekFactors: [Double] = [0.9, 1.0, 1.1, 1.2]

    /// `hour`:05 on `day` (UTC).
    static func at(_ day: Day, _ hour: Int) -> Date {
        Date(timeIntervalSince1970: Double(day.ordinal) * 86_400 + Double(hour) * 3_600 + 300)
    }

    /// Runs the cron (`AlertRun`, as `alert --today` does) from 12:05 on the first day to 12:05 on the
    /// next; `factor(day, hour)` is today's share of the usual. Returns the lines shown, each with the
    /// time of its run.
    func cron(deliverers: [any AlertDeliverer] = [], factor: @escaping (Day, Int) -> Double) async throws -> [(
        run: String, line: String
    )] {
        let store = try await HistoryStore.open(path: ":memory:")
        try await store.upsertCounters([Self.counter])
        let next = Self.first.adding(days: 1)
        // The same weekday of the previous four weeks, for both days, settled.
        for (index, week) in Self.weekFactors.enumerated() {
            var days: [Day: [[Double?]?]] = [:]
            for day in [Self.first, next] {
                days[day.adding(days: -7 * (index + 1))] = (0..<24).map { [Self.usual($0) * week] }
            }
            try await store.storeHourly(
                counterID: Self.counter.id, metrics: [.visits], values: days, settledBefore: next,
                fetchedAt: Self.at(next, 0))
        }
        var settings = AlertSettings()
        settings.checkGoals = false
        settings.checkShop = false
        var told: [(run: String, line: String)] = []
        let runs = (12..<24).map { (Self.first, $0) } + (0...12).map { (next, $0) }
        for (day, hour) in runs {
            let now = Self.at(day, hour)
            // What the API says at hour:05: the finished hours, and the running one (partial, unjudged).
            let today: [[Double?]?] = (0..<24).map {
                $0 <= hour ? [(Self.usual($0) * 1.05 * factor(day, $0)).rounded()] : nil
            }
            try await store.storeHourly(
                counterID: Self.counter.id, metrics: [.visits], values: [day: today], settledBefore: day, fetchedAt: now
            )
            if day == next {
                // After midnight yesterday's hours are all known, settled (the first run online fetches them).
                let yesterday: [[Double?]?] = (0..<24).map {
                    [(Self.usual($0) * 1.05 * factor(Self.first, $0)).rounded()]
                }
                try await store.storeHourly(
                    counterID: Self.counter.id, metrics: [.visits], values: [Self.first: yesterday],
                    settledBefore: next, fetchedAt: now)
            }
            let activity = RecordedActivity()
            let run = AlertRun(
                loader: HistoryLoader(store: store, client: nil, now: { now }, unsettledDays: 2), settings: settings,
                activity: ClockActivity(now: { now }, inner: activity))
            var shown: [String] = []
            let result = try await run.run(AlertRun.Request(today: true), deliverers: deliverers) { shown += $0 }
            #expect(result.failures.isEmpty, "\(result.failures.map(\.failure.message))")
            #expect(result.findings.lines == shown)
            let time = "\(day.iso) \(AlertText.hourName(hour).dropLast(2))05"
            told += shown.map { (time, $0) }
        }
        return told
    }

    /// An activity on the test's clock that passes notes on.
    struct ClockActivity: Activity {
        let now: @Sendable () -> Date
        let inner: RecordedActivity
        func note(_ line: String) { inner.note(line) }
        func progress(_ text: String, force: Bool) {}
        func endProgress() {}
    }

    @Test func anOutageFromTwoInTheAfternoonToTenNextMorningIsToldOnceAndBackOnce() async throws {
        let next = Self.first.adding(days: 1)
        let told = try await cron { day, hour in
            (day == Self.first && hour >= 14) || (day == next && hour < 10) ? 0 : 1
        }
        let text = told.map { "\($0.run): \($0.line)" }.joined(separator: "\n")
        #expect(told.count == 2, "\(text)")
        #expect(told.first?.run == "2026-12-01 16:05", "\(text)")
        #expect(
            told.first?.line
                == "7001 Shop: visits stopped at 14:00 on Tue 2026-12-01: 0 in 14:00–16:00, expected ~630 (-100%)",
            "\(text)")
        #expect(told.last?.run == "2026-12-02 11:05", "\(text)")
        #expect(
            told.last?.line
                == "7001 Shop: visits back to normal at 10:00 on Wed 2026-12-02 (had stopped at 14:00 on Tue 2026-12-01)",
            "\(text)")
        #expect(!text.contains(" drop") && !text.contains("since midnight"), "\(text)")
    }

    @Test func aLastingDropIsToldOnceThroughTheNight() async throws {
        let next = Self.first.adding(days: 1)
        let told = try await cron { day, hour in
            (day == Self.first && hour >= 14) || (day == next && hour < 10) ? 0.4 : 1
        }
        let text = told.map { "\($0.run): \($0.line)" }.joined(separator: "\n")
        #expect(told.count == 1, "\(text)")
        #expect(told.first?.run == "2026-12-01 17:05", "\(text)")
        #expect(
            told.first?.line.hasPrefix("7001 Shop: visits ") == true && told.first?.line.hasSuffix("(-60%)") == true,
            "\(text)")
    }

    /// Visits stop at `stop` (`(day, hour)`, half of that hour had visits) and come back at 10:00 on the
    /// second day: the lines told, with each run's time.
    func stopping(at stop: (day: Day, hour: Int)) async throws -> [(run: String, line: String)] {
        let next = Self.first.adding(days: 1)
        return try await cron { day, hour in
            if day == next && hour >= 10 { return 1 }
            if (day, hour) == stop { return 0.5 }
            return day > stop.day || (day == stop.day && hour > stop.hour) ? 0 : 1
        }
    }

    /// Issue 45, item 8: trouble that begins near midnight is told once, at the second zero hour
    /// (as at midday), with its true start, though that start is yesterday's, and back once.
    @Test(arguments: [
        (22, "2026-12-02 01:05", "stopped at 23:00 on Tue 2026-12-01: 0 in 23:00–01:00, expected ~340 (-100%)"),
        (23, "2026-12-02 02:05", "stopped at 00:00 on Wed 2026-12-02: 0 in 00:00–02:00, expected ~44 (-100%)"),
        (24, "2026-12-02 03:05", "stopped at 01:00 on Wed 2026-12-02: 0 in 01:00–03:00, expected ~44 (-100%)"),
        (14, "2026-12-01 17:05", "stopped at 15:00 on Tue 2026-12-01: 0 in 15:00–17:00, expected ~630 (-100%)")
    ])
    func aStopNearMidnightIsToldOnceWithItsTrueStart(half: Int, run: String, stopped: String) async throws {
        let stop = half < 24 ? (Self.first, half) : (Self.first.adding(days: 1), half - 24)
        let told = try await stopping(at: stop)
        let text = told.map { "\($0.run): \($0.line)" }.joined(separator: "\n")
        #expect(told.count == 2, "\(text)")
        #expect(told.first?.run == run, "\(text)")
        #expect(told.first?.line == "7001 Shop: visits " + stopped, "\(text)")
        let since = String(stopped.dropFirst("stopped at ".count).prefix { $0 != ":" }) + ":00"
        let sinceDay = stopped.contains("Tue") ? " on Tue 2026-12-01" : ""
        #expect(told.last?.run == "2026-12-02 11:05", "\(text)")
        #expect(
            told.last?.line
                == "7001 Shop: visits back to normal at 10:00 on Wed 2026-12-02 (had stopped at \(since)\(sinceDay))",
            "\(text)")
        #expect(!text.contains(" drop") && !text.contains("since midnight"), "\(text)")
    }

    @Test func aQuietDayTellsNothing() async throws {
        let told = try await cron { _, _ in 1 }
        #expect(told.isEmpty, "\(told)")
    }

    /// A deliverer that records what it got, failing the first `failures` times.
    final class Recorder: AlertDeliverer, @unchecked Sendable {
        let lock = NSLock()
        var failures: Int
        var delivered: [[String]] = []
        init(failures: Int = 0) { self.failures = failures }

        var channel: OutboxMessage.Channel { .webhook }
        var route: String { "recorder" }
        func name(of recipient: String) -> String { recipient }
        func sampleDrafts(now: Date) -> [OutboxDraft] { [] }

        func prepare(_ findings: AlertRun.Findings) async throws -> AlertDrafting {
            { findings in
                let body = Data(findings.lines.joined(separator: "\n").utf8)
                return [OutboxDraft(recipient: "recorder", kind: "lines", body: body)]
            }
        }

        func send(_ message: OutboxMessage) async throws {
            let lines = String(decoding: message.body, as: UTF8.self).split(separator: "\n").map(String.init)
            if let failure = take(lines) { throw failure }
        }

        private func take(_ lines: [String]) -> WebhookError? {
            lock.withLock {
                if failures > 0 {
                    failures -= 1
                    return WebhookError.unreachable(masked: "https://hooks.example/…", detail: "refused")
                }
                delivered.append(lines)
                return nil
            }
        }
    }

    /// Every deliverer gets the news the run shows, once; a failed delivery stays in the outbox, so
    /// the next run (an hour later) delivers it — without telling it again — and then the end of the
    /// outage is told once more only.
    @Test func aFailedDeliveryIsDeliveredFromTheOutboxByTheNextRun() async throws {
        let next = Self.first.adding(days: 1)
        let outage: (Day, Int) -> Double = { day, hour in
            (day == Self.first && hour >= 14) || (day == next && hour < 10) ? 0 : 1
        }
        let working = Recorder()
        _ = try await cron(deliverers: [working], factor: outage)
        #expect(working.delivered.count == 2 && working.delivered.allSatisfy { $0.count == 1 }, "\(working.delivered)")
        let flaky = Recorder(failures: 1)
        let told = try await cron(deliverers: [flaky], factor: outage)
        // 16:05 shown and refused by the deliverer (kept in the outbox), 17:05 sends it, told once.
        #expect(told.map(\.run) == ["2026-12-01 16:05", "2026-12-02 11:05"], "\(told)")
        #expect(flaky.delivered == working.delivered, "\(flaky.delivered)")
    }
}
