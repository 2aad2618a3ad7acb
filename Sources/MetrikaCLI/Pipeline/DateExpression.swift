import Foundation
import MetrikaKit

/// A date as users write it: `YYYY-MM-DD`, `today`, `yesterday` or `NdaysAgo`. Relative dates are
/// resolved in each counter's own time zone, like the API does.
enum DateExpression: Equatable, Sendable, CustomStringConvertible {
    case absolute(Day)
    case daysAgo(Int)

    /// Parses an option value; throws a usage error naming the option and the value.
    init(parsing text: String, option: String) throws {
        let lower = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let day = Day(iso: lower) {
            self = .absolute(day)
        } else if lower == "today" {
            self = .daysAgo(0)
        } else if lower == "yesterday" {
            self = .daysAgo(1)
        } else if lower.hasSuffix("daysago"), let count = Int(lower.dropLast(7)), count >= 0, count <= 36_500 {
            self = .daysAgo(count)
        } else {
            throw UsageError("--\(option) '\(text)' is not a date: use YYYY-MM-DD (a real date), today, yesterday or NdaysAgo (e.g. 6daysAgo)")
        }
    }

    /// The day this expression means for a counter whose today is `today`.
    func resolve(today: Day) -> Day {
        switch self {
        case .absolute(let day): return day
        case .daysAgo(let count): return today.adding(days: -count)
        }
    }

    var description: String {
        switch self {
        case .absolute(let day): return day.iso
        case .daysAgo(0): return "today"
        case .daysAgo(1): return "yesterday"
        case .daysAgo(let count): return "\(count)daysAgo"
        }
    }
}

/// "Today" for a counter: the calendar day at `now` in the counter's time zone (its IANA name, or
/// its GMT offset when the name is unknown to this system).
func today(for counter: Counter, now: Date) -> Day {
    let offset: Int
    if let zone = TimeZone(identifier: counter.timeZoneName) {
        offset = zone.secondsFromGMT(for: now)
    } else {
        offset = counter.timeZoneOffsetMinutes * 60
    }
    let seconds = Int(now.timeIntervalSince1970.rounded(.down)) + offset
    return Day(ordinal: Int((Double(seconds) / 86_400).rounded(.down)))
}

/// The days `from`…`to` mean for a counter: relative dates resolve against its today; a range that
/// starts after today or is reversed is a usage error naming both values; a `to` past today is cut
/// to today (and said through `note`, when given).
func resolveRange(from: DateExpression, to: DateExpression, counter: Counter, now: Date, note: ((String) -> Void)? = nil) throws -> DateRange {
    let today = today(for: counter, now: now)
    let start = from.resolve(today: today)
    var end = to.resolve(today: today)
    if start > today {
        throw UsageError("--from \(start.iso) is in the future for counter \(counter.id) (today there is \(today.iso))")
    }
    if end > today {
        note?("Note: --to \(end.iso) is after today (\(today.iso)) for counter \(counter.id); showing up to today.")
        end = today
    }
    guard let range = DateRange(from: start, to: end) else {
        throw UsageError("--from \(start.iso) (\(from)) is after --to \(end.iso) (\(to)): the range is reversed")
    }
    return range
}
