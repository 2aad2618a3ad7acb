import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaUseCases

/// The hourly judgement: finished hours only, against the same hours of earlier weeks; stopped,
/// drop and rise; never on the running hour, never at night on noise.
@Suite struct HourlyDetectorTests {
    /// A day curve: ~`scale` visits at 15:00, a tenth of it at 04:00.
    static func curve(_ scale: Double) -> [Double] {
        let shape: [Double] = [
            0.3, 0.2, 0.14, 0.1, 0.1, 0.12, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 1, 1, 1, 1, 0.98, 0.95, 0.9, 0.85, 0.8, 0.7,
            0.55, 0.4
        ]
        return shape.map { ($0 * scale).rounded() }
    }

    /// Four earlier weeks of the curve, each a little different.
    static func weeks(_ scale: Double) -> [[Double?]] {
        [1.0, 0.93, 1.06, 0.97].map { factor in curve(scale * factor).map { Optional($0) } }
    }

    let settings = AlertSettings()
    /// The judged day.
    static let day = Day(iso: "2026-12-01")!

    func today(_ values: [Double], upTo running: Int) -> [Double?] {
        (0...running).map { Optional(values[$0]) }
    }

    @Test func anOrdinaryDayIsQuiet() throws {
        let values = Self.curve(200)
        let judgement = try #require(
            AlertDetector.judge(
                day: Self.day, today: today(values, upTo: 17), finishedHours: 17, weeks: Self.weeks(200),
                settings: settings))
        #expect(judgement.kind == nil)
        #expect(judgement.hours == 14...16)
    }

    @Test func visitsAtZeroFromTwoOclockAreStoppedSinceThen() throws {
        var values = Self.curve(200)
        for hour in 14..<24 { values[hour] = 0 }
        let judgement = try #require(
            AlertDetector.judge(
                day: Self.day, today: today(values, upTo: 17), finishedHours: 17, weeks: Self.weeks(200),
                settings: settings))
        #expect(judgement.kind == .stopped)
        #expect(judgement.sinceHour == 14 && judgement.hours == 14...16)
        #expect(judgement.value == 0 && judgement.expected > 500)
        #expect(AlertText.hourName(judgement.sinceHour ?? -1) == "14:00")
    }

    @Test func oneZeroHourIsNotAStopAndTheRunningHourIsNeverJudged() throws {
        var values = Self.curve(200)
        values[16] = 0
        values[17] = 0
        // 16:00 finished at zero, 17:00 running at zero: one zero hour, judged as the last 3 hours.
        let one = try #require(
            AlertDetector.judge(
                day: Self.day, today: today(values, upTo: 17), finishedHours: 17, weeks: Self.weeks(200),
                settings: settings))
        #expect(one.kind != .stopped)
        #expect(one.hours == 14...16, "the running hour is not among the judged")
        // Nothing finished yet: nothing to judge.
        #expect(
            AlertDetector.judge(day: Self.day, today: [0], finishedHours: 0, weeks: Self.weeks(200), settings: settings)
                == nil)
    }

    @Test func threeOclockNoiseOfASmallSiteIsNeverAnAlert() {
        // ~20 a day at 15:00 peak: the night hours are 0–2 and sometimes 0 in earlier weeks too.
        var weeks = Self.weeks(20)
        weeks[1][2] = 0
        weeks[2][3] = 0
        var values = Self.curve(20)
        values[1] = 0
        values[2] = 0
        values[3] = 0
        let judgement = AlertDetector.judge(
            day: Self.day, today: today(values, upTo: 4), finishedHours: 4, weeks: weeks, settings: settings)
        #expect(judgement?.kind == nil, "\(String(describing: judgement))")
    }

    @Test func theLastThreeHoursTogetherDropOrRise() throws {
        var low = Self.curve(300)
        for hour in 12..<15 { low[hour] = (low[hour] * 0.4).rounded() }
        let drop = try #require(
            AlertDetector.judge(
                day: Self.day, today: today(low, upTo: 15), finishedHours: 15, weeks: Self.weeks(300),
                settings: settings))
        #expect(drop.kind == .drop)
        #expect(drop.hours == 12...14)
        #expect((drop.changePercent ?? 0) < -50)

        var high = Self.curve(300)
        for hour in 12..<15 { high[hour] *= 2.5 }
        let rise = try #require(
            AlertDetector.judge(
                day: Self.day, today: today(high, upTo: 15), finishedHours: 15, weeks: Self.weeks(300),
                settings: settings))
        #expect(rise.kind == .rise)

        // One odd hour among the three is not enough.
        var odd = Self.curve(300)
        odd[14] = (odd[14] * 0.4).rounded()
        let single = try #require(
            AlertDetector.judge(
                day: Self.day, today: today(odd, upTo: 15), finishedHours: 15, weeks: Self.weeks(300),
                settings: settings))
        #expect(single.kind == nil)
    }

    @Test func aGoalAtZeroForHoursItNormallyHasSomeIsStopped() throws {
        // A goal of ~5 an hour in the afternoon; 0 since 13:00.
        let weeks = Self.weeks(5).map { week in week.map { $0.map { max(1, $0) } } }
        var values = Self.curve(5).map { max(1, $0) }
        for hour in 13..<24 { values[hour] = 0 }
        let judgement = try #require(
            AlertDetector.judge(
                day: Self.day, today: today(values, upTo: 16), finishedHours: 16, weeks: weeks, settings: settings))
        #expect(judgement.kind == .stopped && judgement.sinceHour == 13)
        // A goal of ~1 an hour that is 0 for two hours: noise, not judged a stop.
        let small = Self.weeks(1).map { week in week.map { $0.map { max(1, $0) } } }
        var quiet = Self.curve(1).map { max(1, $0) }
        quiet[14] = 0
        quiet[15] = 0
        let noise = AlertDetector.judge(
            day: Self.day, today: today(quiet, upTo: 16), finishedHours: 16, weeks: small, settings: settings)
        #expect(noise?.kind == nil)
    }

    @Test func hoursWithoutEnoughEarlierWeeksAreNotJudged() {
        let weeks = Array(Self.weeks(200).prefix(2))
        var values = Self.curve(200)
        for hour in 14..<24 { values[hour] = 0 }
        #expect(
            AlertDetector.judge(
                day: Self.day, today: today(values, upTo: 17), finishedHours: 17, weeks: weeks, settings: settings)
                == nil)
    }
}
