import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaStore
@testable import MetrikaSystem
@testable import MetrikaUseCases

/// The one alert check over two grains: what truly differs between a day and today's hours (the
/// judged span, the episode's touch, the mail's charts, the drivers offline) follows the judgement's
/// grain, and the rest is shared.
@Suite struct AlertGrainTests {
    let counter = Counter(id: 540001, name: "Магазин", site: "shop.example.ru", timeZoneName: "Europe/Moscow")
    let today = day("2026-12-01")
    let now = Date(timeIntervalSince1970: 1_796_135_400)

    /// A rasterizer that counts its calls.
    final class CountingRasterizer: ChartRasterizer, @unchecked Sendable {
        let lock = NSLock()
        var calls = 0
        func png(fromSVG svg: Data, scale: Double) throws -> Data {
            lock.withLock { calls += 1 }
            return Data([0x89, 0x50, 0x4E, 0x47])
        }
    }

    func hourDrop() -> AlertCheck.Finding {
        AlertCheck.Finding(
            counter: counter, metric: .visits, goalName: nil,
            judgement: AlertJudgement(day: today, hours: 14...16, value: 120, expected: 480, score: -9, kind: .drop),
            notice: .alert(.drop))
    }

    func dayDrop() -> AlertCheck.Finding {
        AlertCheck.Finding(
            counter: counter, metric: .visits, goalName: nil,
            judgement: AlertJudgement(day: today, value: 120, expected: 480, baselineDays: 6, score: -9, kind: .drop),
            notice: .alert(.drop), recent: [(today, 120)])
    }

    @Test func theJudgementsGrainIsItsSpan() {
        #expect(hourDrop().grain == .hour && hourDrop().judgement.sinceHour == 14)
        #expect(dayDrop().grain == .day && dayDrop().judgement.sinceHour == nil)
        #expect(hourDrop().day == today)
    }

    @Test func theSubjectSaysTodayForHoursOnly() {
        #expect(AlertRun.Findings(.hour, [hourDrop()]).subject == "metrika: 1 alert today (Магазин)")
        #expect(AlertRun.Findings(.day, [dayDrop()]).subject == "metrika: 1 alert (Магазин)")
    }

    @Test func bothGrainsScoreADropAlike() {
        // The same total against the same baseline samples: one score, one kind, whatever the span.
        let settings = AlertSettings()
        let samples = [450.0, 470, 480, 500]
        let score = AlertDetector.score(120, expected: 480, samples: samples)
        #expect(score < -settings.minimumScore)
        #expect(AlertDetector.kind(120, expected: 480, score: score, settings: settings) == .drop)
        #expect(
            AlertDetector.kind(
                470, expected: 480, score: AlertDetector.score(470, expected: 480, samples: samples), settings: settings
            ) == nil)
    }

    @Test func aTouchOfEitherGrainKeepsItsLastValues() {
        let dayEpisode = AlertEpisode(
            counterID: counter.id, metric: "ym:s:visits", kind: "drop", since: day("2026-11-30"),
            lastDay: day("2026-11-30"), value: 100, expected: 480, notifiedAt: now)
        let dayTouch = AlertLedger.decide(
            dayDrop().judgement, counterID: counter.id, metric: "ym:s:visits", open: dayEpisode, now: now)
        guard case .touch(let daily) = dayTouch.change else {
            Issue.record("\(dayTouch.change)")
            return
        }
        #expect(dayTouch.notice == nil && daily.lastDay == today && daily.lastValue == 120 && daily.lastExpected == 480)

        let hourEpisode = AlertEpisode(
            counterID: counter.id, metric: "ym:s:visits", kind: "drop", day: today, sinceHour: 13,
            lastDay: today, lastHour: 15, value: 100, expected: 480, notifiedAt: now)
        let hourTouch = AlertLedger.decide(
            hourDrop().judgement, counterID: counter.id, metric: "ym:s:visits", open: hourEpisode, now: now)
        guard case .touch(let hourly) = hourTouch.change else {
            Issue.record("\(hourTouch.change)")
            return
        }
        // Issue 45: an hour's touch records what the run measured too (it kept nil, so `--status` showed
        // the values told hours before).
        #expect(
            hourTouch.notice == nil && hourly.lastHour == 16 && hourly.lastValue == 120 && hourly.lastExpected == 480)
    }

    @Test func anHoursMailIsItsLinesWithoutCharts() async throws {
        let rasterizer = CountingRasterizer()
        let hours = try await AlertMail.compose(
            [hourDrop()], sender: try MIMEAddress("m@example.com"), recipients: [try MIMEAddress("o@example.com")],
            rasterizer: rasterizer, activity: RecordedActivity())
        #expect(hours.subject == "metrika: 1 alert today (Магазин)")
        #expect(!String(decoding: hours.bytes(), as: UTF8.self).contains("Content-Type: image/"))
        #expect(rasterizer.calls == 0)
        let days = try await AlertMail.compose(
            [dayDrop()], sender: try MIMEAddress("m@example.com"), recipients: [try MIMEAddress("o@example.com")],
            rasterizer: rasterizer, activity: RecordedActivity())
        #expect(String(decoding: days.bytes(), as: UTF8.self).contains("Content-Type: image/png"))
        #expect(rasterizer.calls == 1)
    }

    @Test func hoursOfflineGetNoDriverAndAskNothing() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let offline = HistoryLoader(store: store, client: nil, now: { testNow }, unsettledDays: 2)
        let drivers = AlertDrivers(loader: offline, activity: RecordedActivity(), verbose: true)
        #expect(AlertDrivers.wantsDriver(hourDrop()), "a drop of hours wants a driver")
        #expect(!drivers.wantsDriver(hourDrop()), "today is never kept by segment: offline, no driver")
        #expect(drivers.wantsDriver(dayDrop()), "a day's segments may be in the history")
        let (findings, requests) = await drivers.attach([hourDrop()])
        #expect(requests == 0 && findings[0].drivers.isEmpty)
    }
}
