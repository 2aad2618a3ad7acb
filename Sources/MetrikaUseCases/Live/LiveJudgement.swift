import Foundation
import MetrikaModel
import MetrikaRender

/// The pure part of `metrika live`: today's hours against the earlier weeks' → what the view shows.
///
/// Expected by now: the earlier weeks' medians of the finished hours, plus the running hour's median
/// pro rata to the minutes gone. The verdict looks at the finished hours from the last one backwards:
/// while each is off its median the same way by at least `minimumChange` (hours too small to judge,
/// a median under `minimumUsual`, are passed over), they form a run, told as `−40% since 14:00` (the run's
/// visits against its medians). Without such a run the day so far is `on track` when within
/// `tolerance` of expected by now, else off `today` (`+22% today`). The running hour never starts a run:
/// its number is incomplete.
package enum LiveJudgement {
    /// A finished hour counts as off its median from this fraction (0.25: −25% or +25%).
    package static let minimumChange = 0.25
    /// The day so far is on track within this fraction of expected by now.
    package static let tolerance = 0.15
    /// Hours whose median is below this are too small to judge one by one.
    package static let minimumUsual = 5.0

    package static func snapshot(_ hours: LiveHours, now: Date) -> LiveSnapshot {
        let zone =
            TimeZone(identifier: hours.counter.timeZoneName) ?? TimeZone(
                secondsFromGMT: hours.counter.timeZoneOffsetMinutes * 60) ?? TimeZone(secondsFromGMT: 0)!
        let (day, minuteOfDay) = local(now, zone)
        let running = minuteOfDay / 60
        var shown: [LiveSnapshot.Hour] = []
        for hour in 0..<24 {
            let visits = hour <= running ? slot(hours.visits, hour) : nil
            shown.append(
                LiveSnapshot.Hour(
                    hour: hour, visits: visits, band: slot(hours.baseline, hour), running: hour == running))
        }
        let soFar = shown.reduce(0) { $0 + ($1.visits ?? 0) }
        // Expected by the newest data, not by the clock: minutes the API has not caught up with (its
        // data lag) are in neither the visits so far nor what they are compared with.
        var dataMinute = minuteOfDay
        if let lastData = hours.lastData {
            let (dataDay, minute) = local(lastData, zone)
            if dataDay == day { dataMinute = min(minute, minuteOfDay) } else if dataDay < day { dataMinute = 0 }
        }
        let (dataRunning, dataFraction) = (dataMinute / 60, Double(dataMinute % 60) / 60)
        let expected = expectedByNow(shown.map { $0.band?.median }, running: dataRunning, fraction: dataFraction)
        let goals = hours.goals.map { goal in
            LiveSnapshot.Goal(
                name: goal.name,
                reaches: (0...running).reduce(0) { $0 + (slot(goal.reaches, $1) ?? 0) },
                expected: expectedByNow(goal.usual, running: dataRunning, fraction: dataFraction))
        }
        // Only hours that are over and caught up with are judged one by one.
        let judged = min(running, hours.finishedHours ?? running)
        return LiveSnapshot(
            counterID: hours.counter.id, counterName: hours.counter.displayName, day: day, clock: clock(minuteOfDay),
            hours: shown, visitsSoFar: soFar, expectedByNow: expected,
            verdict: verdict(shown, running: judged, soFar: soFar, expected: expected),
            goals: goals, lastData: hours.lastData.map { clock(local($0, zone).minute) },
            requestsToday: hours.requestsToday)
    }

    /// The one-phrase judgement (see the type's comment).
    package static func verdict(_ hours: [LiveSnapshot.Hour], running: Int, soFar: Double, expected: Double?)
        -> LiveSnapshot.Verdict
    {
        guard let expected else { return .noBaseline }
        if soFar == 0, expected < minimumUsual { return .noData }
        var since: Int?
        var direction = 0
        var visits = 0.0
        var usual = 0.0
        // Hours too small to judge join the run only when an hour before them extends it.
        var passedVisits = 0.0
        var passedUsual = 0.0
        for hour in hours[..<min(running, hours.count)].reversed() {
            guard let band = hour.band else { break }
            let value = hour.visits ?? 0
            if band.median < minimumUsual {
                passedVisits += value
                passedUsual += band.median
                continue
            }
            let change = value / band.median - 1
            let sign = change <= -minimumChange ? -1 : change >= minimumChange ? 1 : 0
            if sign == 0 || (direction != 0 && sign != direction) { break }
            direction = sign
            since = hour.hour
            visits += passedVisits + value
            usual += passedUsual + band.median
            passedVisits = 0
            passedUsual = 0
        }
        if let since, usual > 0 {
            return .off(percent: percent(visits, usual), since: since)
        }
        guard expected > 0 else { return soFar > 0 ? .onTrack : .noData }
        let change = soFar / expected - 1
        return abs(change) < tolerance ? .onTrack : .off(percent: percent(soFar, expected), since: nil)
    }

    /// The medians of the finished hours plus the running one's share; nil when no hour has history.
    static func expectedByNow(_ usual: [Double?], running: Int, fraction: Double) -> Double? {
        var total = 0.0
        var known = false
        for hour in 0...running {
            guard let median = slot(usual, hour) else { continue }
            known = true
            total += hour == running ? median * fraction : median
        }
        return known ? total : nil
    }

    /// `value` against `usual` as a whole percent, half away from zero (through the one rounding rule).
    static func percent(_ value: Double, _ usual: Double) -> Int {
        Int(DecimalText.format((value / usual - 1) * 100, fractionDigits: 0)) ?? 0
    }

    static func slot<T>(_ values: [T?], _ index: Int) -> T? {
        index < values.count ? values[index] : nil
    }

    /// The day and the minute of the day of `date` in `zone`.
    static func local(_ date: Date, _ zone: TimeZone) -> (day: Day, minute: Int) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + zone.secondsFromGMT(for: date)
        let day = Int((Double(seconds) / 86_400).rounded(.down))
        return (Day(ordinal: day), (seconds - day * 86_400) / 60)
    }

    /// `14:05`.
    static func clock(_ minuteOfDay: Int) -> String {
        let hour = minuteOfDay / 60
        let minute = minuteOfDay % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }
}
