import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaUseCases

/// `metrika live`'s judgement of today so far: expected by now, the verdict, the hours shown.
@Suite("LiveJudgement")
struct LiveJudgementTests {
    /// 2026-11-29 15:20 UTC: hours 00–14 finished, 15 running for 20 minutes.
    static let now = Date(timeIntervalSince1970: 1_795_953_600 + 3 * 3600 + 20 * 60)
    static let counter = Counter(
        id: 1001, name: "Магазин", site: "shop.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0)
    /// Usual hours: quiet nights (median 2, too small to judge one by one), 60 by day.
    static let usual: [Double] = (0..<24).map { $0 < 6 ? 2 : 60 }

    static func hours(_ visits: [Double?], usual: [Double] = usual, counter: Counter = counter) -> LiveHours {
        LiveHours(
            counter: counter, visits: visits,
            baseline: usual.map { LiveSnapshot.Band(low: $0 * 0.8, median: $0, high: $0 * 1.2) })
    }

    /// Today like the usual up to `hour`, then `scaled` of it from `hour` to the running hour.
    static func today(from hour: Int = 24, scaled: Double = 1, running: Double = 20) -> [Double?] {
        (0..<24).map { index -> Double? in
            if index > 15 { return nil }
            if index == 15 { return running }
            return index >= hour ? usual[index] * scaled : usual[index]
        }
    }

    @Test func aUsualDayIsOnTrackAndExpectsTheRunningHourProRata() {
        let snapshot = LiveJudgement.snapshot(Self.hours(Self.today()), now: Self.now)
        #expect(snapshot.verdict == .onTrack)
        // 6 nights × 2 + 9 days × 60 finished, plus a third of the running hour's 60.
        #expect(abs((snapshot.expectedByNow ?? 0) - (12 + 540 + 20)) < 1e-9)
        #expect(snapshot.visitsSoFar == 12 + 540 + 20)
        #expect(snapshot.clock == "15:20")
        #expect(snapshot.day == Day(iso: "2026-11-29"))
        #expect(snapshot.hours.count == 24)
        #expect(snapshot.hours[15].running && !snapshot.hours[14].running)
    }

    @Test func aDropIsToldSinceTheHourItBegan() {
        let snapshot = LiveJudgement.snapshot(Self.hours(Self.today(from: 13, scaled: 0.4)), now: Self.now)
        // 13:00 and 14:00: 24 + 24 against 60 + 60 → −60%.
        #expect(snapshot.verdict == .off(percent: -60, since: 13))
        #expect(snapshot.verdict.text == "\u{2212}60% since 13:00")
    }

    @Test func aStopIsMinusAHundredPercent() {
        let snapshot = LiveJudgement.snapshot(Self.hours(Self.today(from: 11, scaled: 0, running: 0)), now: Self.now)
        #expect(snapshot.verdict == .off(percent: -100, since: 11))
    }

    @Test func aRiseIsToldToo() {
        let snapshot = LiveJudgement.snapshot(Self.hours(Self.today(from: 14, scaled: 1.5)), now: Self.now)
        #expect(snapshot.verdict == .off(percent: 50, since: 14))
    }

    @Test func theRunningHourNeverStartsARun() {
        // Nothing yet in the running hour (its numbers come in late): the finished hours decide.
        let snapshot = LiveJudgement.snapshot(Self.hours(Self.today(running: 0)), now: Self.now)
        #expect(snapshot.verdict == .onTrack)
    }

    @Test func hoursTooSmallToJudgeNeitherStartNorBreakARun() {
        // A counter busy only from 06:00 is quiet at night; an early-morning drop runs through it.
        var visits = Self.today(from: 6, scaled: 0.5)
        visits[3] = 0
        let snapshot = LiveJudgement.snapshot(Self.hours(visits), now: Self.now)
        #expect(snapshot.verdict == .off(percent: -50, since: 6))
        // Only night hours off: nothing to tell.
        var nights = Self.today()
        for hour in 0..<6 { nights[hour] = 0 }
        #expect(LiveJudgement.snapshot(Self.hours(nights), now: Self.now).verdict == .onTrack)
    }

    @Test func aDayOffByLittleEachHourIsOffTodayWhenTheTotalIs() {
        // +20% every hour: no hour alone is off by 25%, the day is off by more than 15%.
        // The running hour's third of its usual 60, +20% too.
        let visits = (0..<24).map { index -> Double? in index < 15 ? Self.usual[index] * 1.2 : index == 15 ? 24 : nil }
        let snapshot = LiveJudgement.snapshot(Self.hours(visits), now: Self.now)
        #expect(snapshot.verdict == .off(percent: 20, since: nil))
        #expect(snapshot.verdict.text == "+20% today")
        let slight = (0..<24).map { index -> Double? in index < 15 ? Self.usual[index] * 1.1 : index == 15 ? 22 : nil }
        #expect(LiveJudgement.snapshot(Self.hours(slight), now: Self.now).verdict == .onTrack)
    }

    @Test func withoutHistoryThereIsNothingToCompare() {
        let hours = LiveHours(counter: Self.counter, visits: Self.today(), baseline: Array(repeating: nil, count: 24))
        let snapshot = LiveJudgement.snapshot(hours, now: Self.now)
        #expect(snapshot.verdict == .noBaseline)
        #expect(snapshot.expectedByNow == nil)
    }

    @Test func hoursAfterNowAreNotShownEvenIfGiven() {
        let full = (0..<24).map { Optional(Self.usual[$0]) }
        let snapshot = LiveJudgement.snapshot(Self.hours(full), now: Self.now)
        #expect(snapshot.hours[16].visits == nil)
        #expect(snapshot.hours[16].band?.median == 60)
    }

    @Test func theCountersTimeZoneDecidesTheHourAndTheDay() {
        // 15:20 UTC is 18:20 in Moscow; 23:30 UTC on the 29th is already the 30th there.
        let moscow = Counter(
            id: 2002, name: "Москва", site: "msk.example", timeZoneName: "Europe/Moscow", timeZoneOffsetMinutes: 180)
        let evening = LiveJudgement.snapshot(Self.hours(Self.today(), counter: moscow), now: Self.now)
        #expect(evening.clock == "18:20")
        #expect(evening.hours[18].running)
        let late = LiveJudgement.snapshot(
            Self.hours(Self.today(), counter: moscow), now: Self.now.addingTimeInterval(8 * 3600 + 10 * 60))
        #expect(late.day == Day(iso: "2026-11-30"))
        #expect(late.clock == "02:30")
    }

    @Test func goalsAndTheLastDataTime() {
        var hours = Self.hours(Self.today())
        hours.goals = [
            LiveHours.Goal(
                name: "Заказ", reaches: (0..<24).map { $0 <= 15 ? 2 : 5 }, usual: Array(repeating: 3, count: 24))
        ]
        hours.lastData = Self.now.addingTimeInterval(-8 * 60)
        hours.requestsToday = 7
        let snapshot = LiveJudgement.snapshot(hours, now: Self.now)
        // 16 hours × 2 through the running one; expected by the last data (15:12): 15 × 3 + 3 × 12/60.
        #expect(snapshot.goals.count == 1)
        #expect(snapshot.goals.first?.reaches == 32)
        #expect(abs((snapshot.goals.first?.expected ?? 0) - 45.6) < 1e-9)
        #expect(snapshot.lastData == "15:12")
        #expect(snapshot.requestsToday == 7)
    }

    // MARK: - The board

    struct FixedSource: LiveSource {
        var hours: [Int: LiveHours]
        func hours(of counter: Counter, now: Date) async throws -> LiveHours {
            guard let found = hours[counter.id] else {
                throw HistoryError.counterNotInHistory(counterID: counter.id, database: ":memory:")
            }
            return found
        }
    }

    @Test func aCounterThatFailsKeepsItsPlaceAndTheOthersDraw() async throws {
        let other = Counter(id: 1002, name: "Блог", site: "blog.example", timeZoneName: "UTC", timeZoneOffsetMinutes: 0)
        let board = LiveBoard(
            counters: [other, Self.counter], source: FixedSource(hours: [1001: Self.hours(Self.today())]),
            activity: ClockActivity(now: Self.now))
        let outcomes = try await board.refresh()
        #expect(outcomes.count == 2)
        guard case .failed(let counter, _) = outcomes[0], case .snapshot(let snapshot) = outcomes[1] else {
            Issue.record("expected a failure then a snapshot, got \(outcomes)")
            return
        }
        #expect(counter.id == 1002)
        #expect(snapshot.counterID == 1001)
        #expect(snapshot.counterName == "Магазин")
    }

    struct ClockActivity: Activity {
        var now: @Sendable () -> Date
        init(now: Date) { self.now = { now } }
        func note(_ line: String) {}
        func progress(_ text: String, force: Bool) {}
        func endProgress() {}
    }

    /// 15:20 with 30 minutes of data lag: hour 14 is only half in, so it looks like −50% — but the API
    /// has not caught up with it: it is not judged, and expected by now stops at the last data
    /// (review: a false drop at the start of every hour).
    @Test func anHourTheAPIHasNotCaughtUpWithIsNotJudged() {
        var visits = Self.today(running: 0)
        visits[14] = 30
        var hours = Self.hours(visits)
        hours.finishedHours = 14
        hours.lastData = Self.now.addingTimeInterval(-30 * 60)
        let snapshot = LiveJudgement.snapshot(hours, now: Self.now)
        #expect(snapshot.verdict == .onTrack)
        // 6 nights × 2 + 8 days × 60, plus 50 minutes of hour 14's 60.
        #expect(abs((snapshot.expectedByNow ?? 0) - (12 + 480 + 50)) < 1e-9)
        // Without the lag the same numbers are a drop since 14:00.
        hours.finishedHours = nil
        hours.lastData = nil
        #expect(LiveJudgement.snapshot(hours, now: Self.now).verdict == .off(percent: -50, since: 14))
    }
}
