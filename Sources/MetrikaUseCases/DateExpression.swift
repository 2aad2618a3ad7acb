import Foundation
import MetrikaModel

/// A date as users write it: `YYYY-MM-DD`, `today`, `yesterday`, `NdaysAgo`, `NweeksAgo` or
/// `NmonthsAgo`, or one end of a named period (`--period lastWeek`). Relative dates are resolved in
/// each counter's own time zone, like the API does.
package enum DateExpression: Equatable, Sendable, CustomStringConvertible {
    case absolute(Day)
    case daysAgo(Int)
    /// N × 7 days before today.
    case weeksAgo(Int)
    /// The same day of the month N months before today, or that month's last day when it is shorter
    /// (2026-03-31 with 1monthsAgo is 2026-02-28).
    case monthsAgo(Int)
    /// The first (`end` false) or last day of a named period.
    case period(NamedPeriod, end: Bool)

    /// The first day Metrika can have data for: the service started in 2008. A date before it is a
    /// typo or a probe (`--from 0001-01-01` would otherwise ask for 730,000 days).
    package static let earliestDay = Day(year: 2008, month: 1, day: 1)!

    /// Whether a day comes before Metrika existed: the one test of the 2008 floor.
    package static func isBeforeMetrika(_ day: Day) -> Bool { day < earliestDay }

    /// Refuses a day before `earliestDay` (a usage error naming the option and the day).
    package static func checkNotBeforeMetrika(_ day: Day, option: Parameter) throws {
        if isBeforeMetrika(day) {
            throw ParameterError(option, .badDay(value: day.iso)) {
                "\($0[option]) \(day.iso) is before \(earliestDay.iso): Metrika has no data before 2008; use a later date"
            }
        }
    }

    /// Parses an option value; throws a usage error naming the option and the value.
    package init(parsing text: String, option: Parameter) throws {
        let lower = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let day = Day(iso: lower) {
            try Self.checkNotBeforeMetrika(day, option: option)
            self = .absolute(day)
        } else if lower == "today" {
            self = .daysAgo(0)
        } else if lower == "yesterday" {
            self = .daysAgo(1)
        } else if let count = try Self.count(lower, suffix: "daysago", most: 36_500, text: text, option: option) {
            self = .daysAgo(count)
        } else if let count = try Self.count(lower, suffix: "weeksago", most: 5_200, text: text, option: option) {
            self = .weeksAgo(count)
        } else if let count = try Self.count(lower, suffix: "monthsago", most: 1_200, text: text, option: option) {
            self = .monthsAgo(count)
        } else {
            throw ParameterError(option, .malformed(value: text)) {
                "\($0[option]) '\(text)' is not a date: use YYYY-MM-DD (a real date), today, yesterday, NdaysAgo, NweeksAgo or NmonthsAgo (e.g. 6daysAgo, 2weeksAgo, 3monthsAgo)"
            }
        }
    }

    /// N of `N<suffix>` (ASCII digits only), or nil when `lower` is not of that form. An N above
    /// `most` (a hundred years; any number of digits, never parsed into an overflow) is of the right
    /// form but reaches back before Metrika: said so, not "not a date".
    private static func count(_ lower: String, suffix: String, most: Int, text: String, option: Parameter) throws
        -> Int?
    {
        guard lower.hasSuffix(suffix) else { return nil }
        let digits = lower.dropLast(suffix.count)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let significant = digits.drop { $0 == "0" }
        guard significant.count <= String(most).count, let count = Int(significant.isEmpty ? "0" : significant),
            count <= most
        else {
            let value = text.trimmingCharacters(in: .whitespaces)
            throw ParameterError(option, .badDay(value: value)) {
                "\($0[option]) \(value) is before \(earliestDay.iso), the first day Metrika has data for; use a later date"
            }
        }
        return count
    }

    /// Whether it depends on the day it is resolved on.
    package var isRelative: Bool {
        if case .absolute = self { return false }
        return true
    }

    /// Days before today, when that is the same in every time zone and month (days and weeks).
    package var fixedDaysAgo: Int? {
        switch self {
        case .daysAgo(let count): return count
        case .weeksAgo(let count): return count * 7
        default: return nil
        }
    }

    /// Refuses, before any request, a relative date that reaches back before 2008 wherever on Earth
    /// it is resolved (checked against today in UTC; counters' zones move it by a day at most, and
    /// `HistoryLoader` never fetches before 2008 anyway).
    package func checkNotBeforeMetrika(option: Parameter, now: Date) throws {
        guard isRelative else { return }
        let utcToday = Day(ordinal: Int((now.timeIntervalSince1970 / 86_400).rounded(.down)))
        try Self.checkNotBeforeMetrika(resolve(today: utcToday), option: option)
    }

    /// The day this expression means for a counter whose today is `today`.
    package func resolve(today: Day) -> Day {
        switch self {
        case .absolute(let day): return day
        case .daysAgo(let count): return today.adding(days: -count)
        case .weeksAgo(let count): return today.adding(days: -7 * count)
        case .monthsAgo(let count):
            let (year, month, day) = today.components
            let months = year * 12 + (month - 1) - count
            let (targetYear, targetMonth) = (months / 12, months % 12 + 1)
            let first = Day(year: targetYear, month: targetMonth, day: 1)!
            return Day(year: targetYear, month: targetMonth, day: min(day, first.endOfMonth.components.day))!
        case .period(let period, let end):
            let range = period.days(today: today)
            return end ? range.to : range.from
        }
    }

    package var description: String {
        switch self {
        case .absolute(let day): return day.iso
        case .daysAgo(0): return "today"
        case .daysAgo(1): return "yesterday"
        case .daysAgo(let count): return "\(count)daysAgo"
        case .weeksAgo(let count): return "\(count)weeksAgo"
        case .monthsAgo(let count): return "\(count)monthsAgo"
        case .period(let period, let end): return "\(end ? "end" : "start") of \(period)"
        }
    }
}

/// "Today" for a counter: the calendar day at `now` in the counter's time zone (its IANA name, or
/// its GMT offset when the name is unknown to this system).
package func today(for counter: Counter, now: Date) -> Day {
    let offset: Int
    if let zone = TimeZone(identifier: counter.timeZoneName) {
        offset = zone.secondsFromGMT(for: now)
    } else {
        offset = counter.timeZoneOffsetMinutes * 60
    }
    let seconds = Int(now.timeIntervalSince1970.rounded(.down)) + offset
    return Day(ordinal: Int((Double(seconds) / 86_400).rounded(.down)))
}

/// The calendar day, in the counter's time zone, of its `create_time` (ISO 8601 with an offset or
/// `Z`, e.g. `2022-03-25T15:59:52+03:00`); nil when it is missing or unreadable (then nothing is clipped).
package func creationDay(of counter: Counter) -> Day? {
    guard let text = counter.createTime, let instant = RFC3339.parse(text) else { return nil }
    return today(for: counter, now: instant)
}

/// The first day a counter can have data for: its creation day, never before 2008-01-01.
package func firstDataDay(of counter: Counter) -> Day {
    max(DateExpression.earliestDay, creationDay(of: counter) ?? DateExpression.earliestDay)
}

/// The days `from`…`to` mean for a counter: relative dates resolve against its today; a range that
/// starts after today or is reversed is a usage error naming both values; a `to` past today is cut
/// to today, and a range that starts before the counter existed starts on its creation day (both
/// said through `note`, when given). A range wholly before the creation day is returned as it is
/// (with a note): `HistoryLoader` finds no day in it, so there are no rows, never zero rows.
package func resolveRange(
    from: DateExpression, to: DateExpression, counter: Counter, now: Date, naming: ParameterNaming = .neutral,
    note: ((String) -> Void)? = nil
) throws -> DateRange {
    let today = today(for: counter, now: now)
    let start = from.resolve(today: today)
    var end = to.resolve(today: today)
    // NdaysAgo (up to 36500) can reach back before Metrika; absolute dates were refused when parsed.
    try DateExpression.checkNotBeforeMetrika(start, option: .from)
    try DateExpression.checkNotBeforeMetrika(end, option: .to)
    if start > today {
        throw ParameterError(.from, .badDay(value: start.iso)) {
            "\($0[.from]) \(start.iso) is in the future for counter \(counter.id) (today is \(today.iso) in its time zone)"
        }
    }
    if end > today {
        note?(
            "Note: \(naming[.to]) \(end.iso) is after today (\(today.iso)) for counter \(counter.id); showing up to today."
        )
        end = today
    }
    guard let range = DateRange(from: start, to: end) else {
        // A relative date is said with the day it meant; an absolute one once (not `2026-11-22 (2026-11-22)`).
        let fromText = from.isRelative ? "\(start.iso) (\(from))" : start.iso
        let toText = to.isRelative ? "\(end.iso) (\(to))" : end.iso
        throw ParameterError(.from, .contradicts([.to])) {
            "\($0[.from]) \(fromText) is after \($0[.to]) \(toText): the range is reversed"
        }
    }
    if let created = creationDay(of: counter), start < created {
        if end < created {
            note?(
                "Note: counter \(counter.id) was created on \(created.iso), after \(end.iso): it has no data for this range."
            )
        } else {
            note?(
                "Note: counter \(counter.id) was created on \(created.iso); showing from that day (no data exists before it)."
            )
            return DateRange(from: created, to: end)!
        }
    }
    return range
}
