import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// Told once, hour by hour: a stop is told when it is first seen, silent while it lasts (the next
/// run within the hour, the next hours), back to normal once, from the hour the visits came back.
@Suite struct HourlyLedgerTests {
    let today = Day(iso: "2026-12-01")!
    let now = Date(timeIntervalSince1970: 1_796_135_400)

    func stopped(_ hours: ClosedRange<Int>) -> AlertJudgement {
        AlertJudgement(day: today, hours: hours, value: 0, expected: 900, score: -60, kind: .stopped)
    }

    @Test func aStopIsToldOnceThenSilentThenBackToNormalOnce() throws {
        let first = AlertLedger.decide(
            stopped(14...16), today: [], counterID: 1, metric: "ym:s:visits", open: nil, now: now)
        #expect(first.notice == .alert(.stopped))
        guard case .open(let episode) = first.change else {
            Issue.record("no episode opened")
            return
        }
        #expect(episode.sinceHour == 14 && episode.lastHour == 16)
        // The same hour again, and the next hour still at zero: silent.
        let again = AlertLedger.decide(
            stopped(14...16), today: [], counterID: 1, metric: "ym:s:visits", open: episode, now: now)
        #expect(again.notice == nil)
        let next = AlertLedger.decide(
            stopped(14...17), today: [], counterID: 1, metric: "ym:s:visits", open: episode, now: now)
        #expect(next.notice == nil)
        guard case .touch(let moved) = next.change else {
            Issue.record("not moved on")
            return
        }
        #expect(moved.lastHour == 17)
        // Issue 45: the hour's episode records what this run measured (it stayed NULL: `--status` showed
        // the values it was told with, hours ago).
        let later = AlertLedger.decide(
            AlertJudgement(day: today, hours: 15...17, value: 0, expected: 1_500, score: -70, kind: .stopped),
            today: [], counterID: 1, metric: "ym:s:visits", open: episode, now: now)
        guard case .touch(let measured) = later.change else {
            Issue.record("not moved on")
            return
        }
        #expect(measured.lastValue == 0 && measured.lastExpected == 1_500, "\(measured)")
        // Visits again from 17:00: back to normal at 17:00, told once (the episode is closed).
        var hours: [Double?] = Array(repeating: 100, count: 20)
        for hour in 14..<17 { hours[hour] = 0 }
        let ordinary = AlertJudgement(day: today, hours: 17...19, value: 300, expected: 310, score: -0.2, kind: nil)
        let back = AlertLedger.decide(
            ordinary, today: hours, counterID: 1, metric: "ym:s:visits", open: moved, now: now)
        #expect(back.notice == .backToNormal(moved, hour: 17))
        #expect(back.change == .close(counterID: 1, metric: "ym:s:visits"))
    }

    @Test func nothingToJudgeChangesNothingAndADropEndsSilently() {
        let drop = AlertEpisode(
            counterID: 1, metric: "ym:s:visits", kind: "drop", day: today, sinceHour: 10, lastDay: today, lastHour: 12,
            value: 100, expected: 400, notifiedAt: now)
        #expect(
            AlertLedger.decide(nil, today: [], counterID: 1, metric: "ym:s:visits", open: drop, now: now).change
                == .none)
        let ordinary = AlertJudgement(day: today, hours: 13...15, value: 390, expected: 400, score: -0.1, kind: nil)
        let ended = AlertLedger.decide(ordinary, today: [], counterID: 1, metric: "ym:s:visits", open: drop, now: now)
        #expect(ended.notice == nil && ended.change == .close(counterID: 1, metric: "ym:s:visits"))
        // A drop that becomes a stop is told.
        let worse = AlertLedger.decide(
            stopped(13...15), today: [], counterID: 1, metric: "ym:s:visits", open: drop, now: now)
        #expect(worse.notice == .alert(.stopped))
    }

    /// The hour after a stop ends, the last three hours still hold its zeros (0 + 0 + 100 against
    /// ~900): the window reads as a drop, but what happened is a recovery — told as back to normal,
    /// never as a new drop alert (review: the drop swallowed the recovery).
    @Test func theFirstHourBackIsBackToNormalThoughTheWindowStillReadsAsADrop() throws {
        let first = AlertLedger.decide(
            stopped(14...16), today: [], counterID: 1, metric: "ym:s:visits", open: nil, now: now)
        guard case .open(let episode) = first.change else {
            Issue.record("no episode opened")
            return
        }
        var hours: [Double?] = Array(repeating: 300, count: 18)
        for hour in 14..<17 { hours[hour] = 0 }
        hours[17] = 100
        let window = AlertJudgement(day: today, hours: 15...17, value: 100, expected: 900, score: -5, kind: .drop)
        let decided = AlertLedger.decide(
            window, today: hours, counterID: 1, metric: "ym:s:visits", open: episode, now: now)
        #expect(decided.notice == .backToNormal(episode, hour: 17))
        #expect(decided.change == .close(counterID: 1, metric: "ym:s:visits"))
    }
}
