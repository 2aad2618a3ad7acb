import Foundation

/// Short English dates for narrow columns (the mail and the HTML report read on a phone): `Mon 24 Nov`,
/// weeks `24–30 Nov`, months `Nov 2026`. Words joined by spaces that the caller may make no-break;
/// the year is added only where the reader could not otherwise tell it (`withYear`).
package enum CompactDate {
    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Mon 24 Nov`, or `Mon 24 Nov 2025` with `withYear`.
    package static func day(_ day: Day, withYear: Bool = false) -> String {
        let (year, month, dayOfMonth) = day.components
        return weekdays[day.weekday - 1] + " " + String(dayOfMonth) + " " + months[month - 1]
            + (withYear ? " " + String(year) : "")
    }

    /// `24 Nov` (axis labels), or `24 Nov 2025` with `withYear`.
    package static func dayOfMonth(_ day: Day, withYear: Bool = false) -> String {
        let (year, month, dayOfMonth) = day.components
        return String(dayOfMonth) + " " + months[month - 1] + (withYear ? " " + String(year) : "")
    }

    /// `Nov 2026`.
    package static func month(_ day: Day) -> String {
        let (year, month, _) = day.components
        return months[month - 1] + " " + String(year)
    }

    /// A range as compactly as it stays unambiguous: `24–30 Nov 2026`, `28 Nov – 4 Dec 2026`,
    /// `29 Dec 2025 – 4 Jan 2026`, one day as `Mon 24 Nov 2026`. `withYear: false` drops the year.
    package static func range(_ range: DateRange, withYear: Bool = true) -> String {
        let (fromYear, fromMonth, fromDay) = range.from.components
        let (toYear, toMonth, toDay) = range.to.components
        let year = withYear ? " " + String(toYear) : ""
        if range.from == range.to { return day(range.from, withYear: withYear) }
        if fromYear == toYear && fromMonth == toMonth {
            return String(fromDay) + "–" + String(toDay) + " " + months[toMonth - 1] + year
        }
        if fromYear == toYear {
            return String(fromDay) + " " + months[fromMonth - 1] + " – " + String(toDay) + " " + months[toMonth - 1]
                + year
        }
        return dayOfMonth(range.from, withYear: true) + " – " + dayOfMonth(range.to, withYear: true)
    }

    /// The label of a report row's period: a day, a week's range or a month; the year only when the
    /// report spans more than one (`spansYears`).
    package static func period(_ period: DateRange, grouping: Grouping, spansYears: Bool) -> String {
        switch grouping {
        case .day: return day(period.from, withYear: spansYears)
        case .week: return range(period, withYear: spansYears)
        case .month: return month(period.from)
        }
    }
}

extension CompactDate {
    /// An instant in UTC, for "made at" lines: `Wed 25 Nov 2026 09:00 UTC`.
    package static func stamp(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let hours = inDay / 3600
        let minutes = (inDay % 3600) / 60
        return day(Day(ordinal: days), withYear: true) + " " + (hours < 10 ? "0" : "") + String(hours) + ":"
            + (minutes < 10 ? "0" : "") + String(minutes) + " UTC"
    }
}
