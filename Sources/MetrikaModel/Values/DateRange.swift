/// An inclusive range of calendar days, in a counter's time zone.
package struct DateRange: Hashable, Sendable, CustomStringConvertible {
    /// The first day.
    package let from: Day
    /// The last day (inclusive).
    package let to: Day

    /// Creates a range; `nil` when `from` is after `to`.
    package init?(from: Day, to: Day) {
        guard from <= to else { return nil }
        self.from = from
        self.to = to
    }

    /// The number of days in the range.
    package var dayCount: Int { from.days(to: to) + 1 }

    /// Every day of the range, in order.
    package var days: [Day] { (from.ordinal...to.ordinal).map(Day.init(ordinal:)) }

    /// Whether the range contains a day.
    package func contains(_ day: Day) -> Bool { from <= day && day <= to }

    package var description: String { "\(from.iso)…\(to.iso)" }

    /// The smallest range holding every given range (nil for none): the days a report of several
    /// counters covers, each counter's relative dates resolved in its own time zone.
    package static func spanning(_ ranges: [DateRange]) -> DateRange? {
        guard let from = ranges.map(\.from).min(), let to = ranges.map(\.to).max() else { return nil }
        return DateRange(from: from, to: to)
    }

    /// The range cut into consecutive periods of a grouping: Monday-start weeks and calendar months,
    /// the first and last period clipped to the range (as the Reporting API does).
    package func periods(_ grouping: Grouping) -> [DateRange] {
        var result: [DateRange] = []
        var start = from
        while start <= to {
            let naturalEnd: Day
            switch grouping {
            case .day: naturalEnd = start
            case .week: naturalEnd = start.startOfWeek.adding(days: 6)
            case .month: naturalEnd = start.endOfMonth
            }
            let end = min(naturalEnd, to)
            result.append(DateRange(from: start, to: end)!)
            start = end.adding(days: 1)
        }
        return result
    }
}

/// How a time-series report groups days.
package enum Grouping: String, Sendable, CaseIterable {
    case day, week, month
}
