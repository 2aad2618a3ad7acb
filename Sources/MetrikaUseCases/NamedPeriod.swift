import MetrikaModel

/// A period by name, for `--period` of `report`, `chart` and `mail`: calendar weeks (Monday to Sunday, as
/// Metrika counts them), months and years, or the last N days. Resolved, like every relative date,
/// in each counter's own time zone; a period that runs into the future ends today.
package enum NamedPeriod: Equatable, Sendable, CustomStringConvertible {
    case today, yesterday
    case thisWeek, lastWeek
    case thisMonth, lastMonth
    case thisYear, lastYear
    /// The last N days, today included: `last7days` is 6daysAgo … today.
    case lastDays(Int)

    /// The names `--period` accepts, for help, completions and the man page.
    package static let names = [
        "today", "yesterday", "thisWeek", "lastWeek", "thisMonth", "lastMonth", "thisYear", "lastYear", "last7days",
        "last30days", "lastNdays"
    ]
    /// The N of `lastNdays`: a day to a hundred years.
    package static let dayCounts = 1...36_500
    /// The periods that end before today (whole days only: what a mail reports).
    package static let finished: [NamedPeriod] = [.yesterday, .lastWeek, .lastMonth, .lastYear]

    /// Parses a `--period` value (case does not matter); a usage error names the choices.
    package init(parsing text: String) throws {
        let lower = text.trimmingCharacters(in: .whitespaces).lowercased()
        let fixed: [String: NamedPeriod] = [
            "today": .today, "yesterday": .yesterday, "thisweek": .thisWeek, "lastweek": .lastWeek,
            "thismonth": .thisMonth, "lastmonth": .lastMonth, "thisyear": .thisYear, "lastyear": .lastYear
        ]
        if let period = fixed[lower] {
            self = period
            return
        }
        if lower.hasPrefix("last"), lower.hasSuffix("days") {
            let digits = lower.dropFirst(4).dropLast(4)
            if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                // The form is right: a count out of range says the range (never parsed into an overflow).
                let significant = digits.drop { $0 == "0" }
                if significant.count <= 5, let count = Int(significant.isEmpty ? "0" : significant),
                    Self.dayCounts.contains(count)
                {
                    self = .lastDays(count)
                    return
                }
                let range = Self.dayCounts
                throw ParameterError(.period, .outOfRange(value: text, allowed: range)) {
                    "\($0[.period]) '\(text)': N of lastNdays must be from \(range.lowerBound) to \(range.upperBound) (a hundred years), e.g. last7days, last30days"
                }
            }
        }
        throw ParameterError(.period, .notOneOf(value: text, choices: Self.names)) {
            "\($0[.period]) '\(text)' is not a period: use today, yesterday, thisWeek, lastWeek, thisMonth, lastMonth, thisYear, lastYear or lastNdays (e.g. last7days, last30days)"
        }
    }

    /// The days it covers for a counter whose today is `today` (the current week, month or year ends today).
    package func days(today: Day) -> (from: Day, to: Day) {
        switch self {
        case .today: return (today, today)
        case .yesterday: return (today.adding(days: -1), today.adding(days: -1))
        case .thisWeek: return (today.startOfWeek, today)
        case .lastWeek:
            let monday = today.startOfWeek.adding(days: -7)
            return (monday, monday.adding(days: 6))
        case .thisMonth: return (today.startOfMonth, today)
        case .lastMonth:
            let last = today.startOfMonth.adding(days: -1)
            return (last.startOfMonth, last)
        case .thisYear: return (Day(year: today.components.year, month: 1, day: 1)!, today)
        case .lastYear:
            let year = today.components.year - 1
            return (Day(year: year, month: 1, day: 1)!, Day(year: year, month: 12, day: 31)!)
        case .lastDays(let count): return (today.adding(days: -(count - 1)), today)
        }
    }

    /// Whether the period runs to today (today, thisWeek, thisMonth, thisYear, lastNdays): its last
    /// day's numbers are still coming in.
    package var endsToday: Bool {
        switch self {
        case .today, .thisWeek, .thisMonth, .thisYear, .lastDays: return true
        case .yesterday, .lastWeek, .lastMonth, .lastYear: return false
        }
    }

    package var description: String {
        switch self {
        case .today: return "today"
        case .yesterday: return "yesterday"
        case .thisWeek: return "thisWeek"
        case .lastWeek: return "lastWeek"
        case .thisMonth: return "thisMonth"
        case .lastMonth: return "lastMonth"
        case .thisYear: return "thisYear"
        case .lastYear: return "lastYear"
        case .lastDays(let count): return "last\(count)days"
        }
    }
}
