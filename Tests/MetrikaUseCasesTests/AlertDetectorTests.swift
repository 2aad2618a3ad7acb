import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// `AlertDetector` on synthetic series (no network, no database): what is an alert and what is noise.
@Suite struct AlertDetectorTests {
    /// Sunday 2026-11-29, the day judged.
    let judged = day("2026-11-29")

    /// Seven weeks of daily values up to the judged day: `weekday(day)` for a typical day, times a
    /// small deterministic wobble, with `last` on the judged day.
    func series(weeks: Int = 7, last: Double?, _ typical: (Day) -> Double) -> [Day: Double] {
        var values: [Day: Double] = [:]
        for back in 1...(weeks * 7) {
            let past = judged.adding(days: -back)
            let wobble = 1 + 0.08 * sin(Double(past.ordinal) * 1.7)
            values[past] = (typical(past) * wobble).rounded()
        }
        if let last { values[judged] = last }
        return values
    }

    /// Busy weekdays, quiet weekends (a shop closed to business on Sunday).
    func seasonal(_ day: Day) -> Double { day.weekday >= 6 ? 200 : 600 }

    @Test func anOrdinarySundayAfterBusyWeekdaysIsNoAlert() throws {
        let values = series(last: 205, seasonal)
        let judgement = try #require(AlertDetector.judge(values, day: judged, settings: AlertSettings()))
        #expect(judgement.kind == nil)
        #expect(abs(judgement.expected - 200) < 20, "the baseline is Sundays, not the week: \(judgement.expected)")
    }

    @Test func aSundayLikeAWeekdayIsARise() throws {
        let values = series(last: 600, seasonal)
        let judgement = try #require(AlertDetector.judge(values, day: judged, settings: AlertSettings()))
        #expect(judgement.kind == .rise)
    }

    @Test func visitsFallingToAThirdIsADrop() throws {
        let values = series(last: 200) { _ in 600 }
        let judgement = try #require(AlertDetector.judge(values, day: judged, settings: AlertSettings()))
        #expect(judgement.kind == .drop)
        let change = try #require(judgement.changePercent)
        #expect(change > -70 && change < -60, "\(change)")
        #expect(judgement.score < -4)
    }

    @Test func aBotWaveDoublingVisitsIsARise() throws {
        let values = series(last: 1_300) { _ in 600 }
        #expect(AlertDetector.judge(values, day: judged, settings: AlertSettings())?.kind == .rise)
    }

    @Test func tenPercentLessIsNoise() throws {
        let values = series(last: 540) { _ in 600 }
        #expect(AlertDetector.judge(values, day: judged, settings: AlertSettings())?.kind == nil)
    }

    @Test func aGoalOf25ADayThatReachesZeroHasStopped() throws {
        let values = series(last: 0) { _ in 25 }
        let judgement = try #require(AlertDetector.judge(values, day: judged, settings: AlertSettings()))
        #expect(judgement.kind == .stopped)
        #expect(judgement.since == judged)
        #expect(judgement.score < -8, "25 → 0 is far beyond noise: \(judgement.score)")
    }

    /// Poisson-like counts around 2 a day, zero on some days (as real small counts are).
    static let tinyGoal: [Double] = [
        2, 1, 3, 0, 2, 4, 1, 2, 0, 3, 2, 1, 2, 5, 1, 0, 2, 3, 2, 1, 2, 2, 3, 1, 0, 2, 4, 2, 1, 3, 2, 2, 1, 0, 3, 2, 1,
        2, 3, 2, 2, 1, 2, 3, 0, 2, 1, 2, 3
    ]

    @Test func aGoalOf2ADayThatReachesZeroIsNoise() throws {
        var values: [Day: Double] = [:]
        for (back, value) in Self.tinyGoal.enumerated() { values[judged.adding(days: -(back + 1))] = value }
        values[judged] = 0
        let judgement = try #require(AlertDetector.judge(values, day: judged, settings: AlertSettings()))
        #expect(judgement.kind == nil, "score \(judgement.score)")
        #expect(judgement.score > -4)
    }

    @Test func aTinyGoalOnlyEverZeroOnItsOwnDaysIsStillNotStopped() throws {
        // Even a large relative fall of a tiny goal is noise: 3 → 0.
        var values: [Day: Double] = [:]
        for back in 1...49 { values[judged.adding(days: -back)] = 3 }
        values[judged] = 0
        #expect(AlertDetector.judge(values, day: judged, settings: AlertSettings())?.kind == nil)
    }

    @Test func zeroAfterEarlierZerosIsADropNotAStop() throws {
        var values = series(last: 0) { _ in 40 }
        values[judged.adding(days: -10)] = 0
        let judgement = try #require(AlertDetector.judge(values, day: judged, settings: AlertSettings()))
        #expect(judgement.kind == .drop, "a metric that is sometimes zero did not stop")
    }

    @Test func aStopSaysSinceWhen() throws {
        var values = series(last: 0) { _ in 900 }
        values[judged.adding(days: -1)] = 0
        values[judged.adding(days: -2)] = 0
        let judgement = try #require(AlertDetector.judge(values, day: judged, settings: AlertSettings()))
        #expect(judgement.kind == .stopped)
        #expect(judgement.since == day("2026-11-27"))
    }

    @Test func fewerThanFourSameWeekdaysAreNotJudged() {
        let values = series(weeks: 3, last: 0) { _ in 900 }
        #expect(AlertDetector.judge(values, day: judged, settings: AlertSettings()) == nil)
        #expect(
            AlertDetector.judge(series(last: nil) { _ in 900 }, day: judged, settings: AlertSettings()) == nil,
            "an unknown day is not zero")
    }

    @Test func oneOddWeekDoesNotMoveTheBaseline() throws {
        var values = series(last: 600) { _ in 600 }
        values[judged.adding(days: -7)] = 2_400 // last Sunday's bot wave
        let judgement = try #require(AlertDetector.judge(values, day: judged, settings: AlertSettings()))
        #expect(judgement.kind == nil)
        #expect(abs(judgement.expected - 600) < 60)
    }

    @Test func theThresholdsAreTheSettings() throws {
        let values = series(last: 420) { _ in 600 }
        #expect(
            AlertDetector.judge(values, day: judged, settings: AlertSettings())?.kind == nil,
            "-30% is below the default 40%")
        var settings = AlertSettings()
        settings.minimumChangePercent = 25
        #expect(AlertDetector.judge(values, day: judged, settings: settings)?.kind == .drop)
    }

    // MARK: - Told once

    func judgement(_ kind: AlertKind?, value: Double, on iso: String = "2026-11-29") -> AlertJudgement {
        AlertJudgement(
            day: day(iso), value: value, expected: 600, baselineDays: 6, score: kind == nil ? 0 : -9, kind: kind,
            since: kind == .stopped ? day(iso) : nil)
    }

    @Test func anAnomalyIsToldOnceThenSilentWhileItLasts() throws {
        let first = AlertLedger.decide(
            judgement(.drop, value: 100), counterID: 1, metric: "ym:s:visits", open: nil, now: testNow)
        #expect(first.notice == .alert(.drop))
        guard case .open(let episode) = first.change else {
            Issue.record("not opened: \(first.change)")
            return
        }
        let again = AlertLedger.decide(
            judgement(.drop, value: 90), counterID: 1, metric: "ym:s:visits", open: episode, now: testNow)
        #expect(again.notice == nil)
        let nextDay = AlertLedger.decide(
            judgement(.drop, value: 80, on: "2026-11-30"), counterID: 1, metric: "ym:s:visits", open: episode,
            now: testNow)
        #expect(nextDay.notice == nil)
        guard case .touch(let moved) = nextDay.change else {
            Issue.record("not touched")
            return
        }
        #expect(moved.lastDay == day("2026-11-30") && moved.since == day("2026-11-29"))
        // A drop that turns into a stop is news.
        let worse = AlertLedger.decide(
            judgement(.stopped, value: 0, on: "2026-11-30"), counterID: 1, metric: "ym:s:visits", open: episode,
            now: testNow)
        #expect(worse.notice == .alert(.stopped))
    }

    @Test func aStoppedMetricThatComesBackIsToldOnce() throws {
        let stop = AlertLedger.decide(judgement(.stopped, value: 0), counterID: 1, metric: "m", open: nil, now: testNow)
        guard case .open(let episode) = stop.change else {
            Issue.record("not opened")
            return
        }
        let stillZero = AlertLedger.decide(
            judgement(nil, value: 0, on: "2026-11-30"), counterID: 1, metric: "m", open: episode, now: testNow)
        #expect(
            stillZero.notice == nil, "zero is not back to normal, even when the baseline no longer finds it unusual")
        let back = AlertLedger.decide(
            judgement(nil, value: 590, on: "2026-12-01"), counterID: 1, metric: "m", open: episode, now: testNow)
        #expect(back.notice == .backToNormal(episode))
        #expect(back.change == .close(counterID: 1, metric: "m"))
        // A drop that ends closes silently.
        let drop = AlertLedger.decide(judgement(.drop, value: 100), counterID: 1, metric: "m", open: nil, now: testNow)
        guard case .open(let dropEpisode) = drop.change else {
            Issue.record("not opened")
            return
        }
        let normal = AlertLedger.decide(
            judgement(nil, value: 600, on: "2026-11-30"), counterID: 1, metric: "m", open: dropEpisode, now: testNow)
        #expect(normal.notice == nil && normal.change == .close(counterID: 1, metric: "m"))
    }

    @Test func anOlderDayNeverFlaps() {
        let episode = AlertEpisode(
            counterID: 1, metric: "m", kind: "stopped", since: day("2026-11-29"), lastDay: day("2026-11-30"), value: 0,
            expected: 600, notifiedAt: testNow)
        let old = AlertLedger.decide(
            judgement(nil, value: 600, on: "2026-11-28"), counterID: 1, metric: "m", open: episode, now: testNow)
        #expect(old.notice == nil && old.change == .none)
    }

    // MARK: - Words

    @Test func theExpectedValueHasTwoSignificantDigitsFromTenUp() {
        #expect(AlertText.approximate(24.5) == "25")
        #expect(AlertText.approximate(2.5) == "2.5")
        #expect(AlertText.approximate(583) == "580")
        #expect(AlertText.approximate(879.5) == "880")
        // Grouped by the one grouper, as the table's numbers are.
        #expect(AlertText.approximate(241_380) == "240 000")
        #expect(AlertText.approximate(999.6) == "1 000")
        #expect(AlertText.number(3085) == "3 085")
        #expect(AlertText.number(2.25) == "2.3", "the one rounding rule: half away from zero")
    }

    @Test func theLineSaysCounterMetricDayValueExpectationAndChange() {
        let counter = Counter(
            id: 515151, name: "Сезонный магазин", site: "s.example", status: "Active", permission: "own",
            ownerLogin: "u", timeZoneName: "Europe/Moscow", timeZoneOffsetMinutes: 180, createTime: nil,
            isFavorite: false)
        let finding = AlertCheck.Finding(
            counter: counter, metric: .visits, goalName: nil,
            judgement: AlertJudgement(day: judged, value: 200, expected: 603, baselineDays: 6, score: -8, kind: .drop),
            notice: .alert(.drop), recent: [], provisional: false)
        #expect(
            AlertText.line(finding) == "515151 Сезонный магазин: visits 200 on Sun 2026-11-29, expected ~600 (-67%)")
        var early = finding
        early.provisional = true
        #expect(
            AlertText.line(early)
                == "515151 Сезонный магазин: visits 200 on Sun 2026-11-29, expected ~600 (-67%) (the day has only just ended: its numbers may still grow)"
        )
        var goal = finding
        goal.metric = Metric.named("goal4001reaches")!
        goal.goalName = "Оформление\u{1B}[31m заказа"
        goal.judgement = AlertJudgement(
            day: judged, value: 0, expected: 25, baselineDays: 6, score: -10, kind: .stopped, since: day("2026-11-27"))
        goal.notice = .alert(.stopped)
        let line = AlertText.line(goal)
        #expect(line.hasPrefix("515151 Сезонный магазин: goal \"Оформление"))
        #expect(line.hasSuffix(" 0 on Sun 2026-11-29, expected ~25 (-100%), stopped since Fri 2026-11-27"))
        #expect(!line.contains("\u{1B}"), "server text passes the terminal sanitizer")
        let body = String(decoding: AlertText.webhookBody([finding, goal]), as: UTF8.self)
        let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        let alerts = object?["alerts"] as? [[String: Any]] ?? []
        #expect(alerts.count == 2)
        #expect(
            alerts.first?["counter_id"] as? Int == 515151 && alerts.first?["kind"] as? String == "drop"
                && alerts.first?["date"] as? String == "2026-11-29")
        #expect(
            alerts.last?["metric"] as? String == "goal4001reaches" && alerts.last?["kind"] as? String == "stopped"
                && alerts.last?["since"] as? String == "2026-11-27")
        #expect((object?["text"] as? String)?.contains("515151 Сезонный магазин: visits 200") == true)
    }

    // MARK: - Money

    /// A shop's revenue: `orders` a day at about `order` each (a steady wobble), `last` on the judged day.
    func revenue(orders: Double, order: Double, last: Double) -> [Day: Double] {
        series(last: last) { _ in orders * order }
    }

    @Test func revenueFallingByTwoThirdsWhileOrdersGoOnIsADropInOrdersWorth() throws {
        let values = revenue(orders: 60, order: 4_000, last: 80_000.37)
        let judgement = try #require(
            AlertDetector.judge(values, day: judged, settings: AlertSettings(), unitSize: 4_000))
        #expect(judgement.kind == .drop)
        #expect(judgement.value == 80_000.37, "the judged value is the day's money, to the kopeck")
        #expect(abs(judgement.expected - 240_000) < 24_000, "\(judgement.expected)")
        #expect(judgement.score < -4, "\(judgement.score)")
    }

    @Test func aSmallShopsRevenueHalvingIsNoise() throws {
        // Two orders a day: a day of one order is ordinary, though the money halves.
        let values = revenue(orders: 2, order: 4_000, last: 4_000)
        let inOrders = try #require(
            AlertDetector.judge(values, day: judged, settings: AlertSettings(), unitSize: 4_000))
        #expect(inOrders.kind == nil, "score \(inOrders.score)")
        // Judged as if roubles were events, the same day would be a drop: why orders' worth is the unit.
        let asCount = try #require(AlertDetector.judge(values, day: judged, settings: AlertSettings()))
        #expect(asCount.kind == .drop)
    }

    @Test func noTypicalOrderNoJudgement() {
        let values = revenue(orders: 60, order: 4_000, last: 0)
        #expect(AlertDetector.judge(values, day: judged, settings: AlertSettings(), unitSize: 0) == nil)
        #expect(AlertDetector.judge(values, day: judged, settings: AlertSettings(), unitSize: .nan) == nil)
    }

    func shopFinding(_ metric: Metric, _ notice: AlertLedger.Notice, value: Double, expected: Double)
        -> AlertCheck.Finding
    {
        let counter = Counter(id: 520007, name: "Обувной магазин «Шаг»", site: "shag.example.ru")
        let kind: AlertKind? = if case .alert(let kind) = notice { kind } else { nil }
        return AlertCheck.Finding(
            counter: counter, metric: metric, goalName: nil,
            judgement: AlertJudgement(
                day: judged, value: value, expected: expected, baselineDays: 6, score: -9, kind: kind),
            notice: notice, recent: [], provisional: false)
    }

    @Test func moneyReadsAsMoneyInTheLineAndTheWebhook() throws {
        let rub = Metric.revenue.inCurrency(Currency(code: "RUB")!)
        let finding = shopFinding(rub, .alert(.drop), value: 77_035.78, expected: 241_380)
        #expect(
            AlertText.line(finding)
                == "520007 Обувной магазин «Шаг»: revenue 77 035.78 ₽ on Sun 2026-11-29, expected ~240 000 ₽ (-68%)")
        let usd = shopFinding(
            Metric.revenue.inCurrency(Currency(code: "USD")!), .alert(.drop), value: 855.9, expected: 2_682)
        #expect(AlertText.line(usd).contains("revenue 855.90 $ on Sun 2026-11-29, expected ~2 700 $ (-68%)"))
        let body =
            try JSONSerialization.jsonObject(
                with: AlertText.webhookBody([finding, shopFinding(.purchases, .alert(.rise), value: 120, expected: 60)])
            ) as? [String: Any]
        let alerts = body?["alerts"] as? [[String: Any]] ?? []
        #expect(
            alerts.first?["unit"] as? String == "money" && alerts.first?["currency"] as? String == "RUB"
                && alerts.first?["value"] as? Double == 77_035.78)
        #expect(alerts.last?["unit"] as? String == "count" && alerts.last?["currency"] is NSNull)
        // A median in orders' worth has more decimals than money: the webhook's expected is to the kopeck.
        let odd =
            try JSONSerialization.jsonObject(
                with: AlertText.webhookBody([shopFinding(rub, .alert(.drop), value: 1, expected: 241_248.305_5)]))
            as? [String: Any]
        #expect((odd?["alerts"] as? [[String: Any]])?.first?["expected"] as? Double == 241_248.31)
        // The chart's alt text names the counter and what happened.
        #expect(
            AlertText.chartDescription(finding)
                == "revenue of Обувной магазин «Шаг», last five weeks: 77 035.78 ₽ on Sun 2026-11-29, expected ~240 000 ₽ (-68%)"
        )
    }

    @Test func revenueThatFellWithThePurchasesIsTheirEcho() {
        // Stopped with the purchases, today or since: the purchases' line says it.
        #expect(AlertCheck.isEcho(.alert(.stopped), purchasesKind: .stopped, purchasesNotice: .alert(.stopped)))
        #expect(
            AlertCheck.isEcho(.alert(.stopped), purchasesKind: .stopped, purchasesNotice: nil),
            "purchases still stopped (told before)")
        // Orders went on, or rose, while their worth fell: news of its own.
        #expect(!AlertCheck.isEcho(.alert(.drop), purchasesKind: nil, purchasesNotice: nil))
        #expect(!AlertCheck.isEcho(.alert(.drop), purchasesKind: .rise, purchasesNotice: .alert(.rise)))
        // Back to normal with the purchases: one line is enough; alone it is told.
        let episode = AlertEpisode(
            counterID: 1, metric: "m", kind: "stopped", since: judged, lastDay: judged, value: 0, expected: 1,
            notifiedAt: Date())
        #expect(AlertCheck.isEcho(.backToNormal(episode), purchasesKind: nil, purchasesNotice: .backToNormal(episode)))
        #expect(!AlertCheck.isEcho(.backToNormal(episode), purchasesKind: nil, purchasesNotice: nil))
    }
}
