/// A calendar day with no time zone attached: the unit of Metrika's daily statistics.
///
/// Stored as the number of days since 1970-01-01 so that arithmetic and comparison are exact and
/// cheap; converted to and from `YYYY-MM-DD` with the proleptic Gregorian calendar.
package struct Day: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before it).
    package let ordinal: Int

    /// Creates a day from its number of days since 1970-01-01.
    package init(ordinal: Int) { self.ordinal = ordinal }

    /// Creates a day from a year, month (1–12) and day of month; `nil` when the date does not exist.
    package init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= Day.daysIn(month: month, year: year) else { return nil }
        self.ordinal = Day.daysFromCivil(year: year, month: month, day: day)
    }

    /// Parses `YYYY-MM-DD` strictly (four-digit year, two-digit month and day, a real date).
    package init?(iso text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The year, month and day of month.
    package var components: (year: Int, month: Int, day: Int) { Day.civil(fromDays: ordinal) }

    /// `YYYY-MM-DD`.
    package var iso: String {
        let (y, m, d) = components
        return Day.pad(y, 4) + "-" + Day.pad(m, 2) + "-" + Day.pad(d, 2)
    }

    package var description: String { iso }

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    package var weekday: Int {
        // 1970-01-01 was a Thursday (4).
        let zeroBased = ((ordinal % 7) + 7 + 3) % 7
        return zeroBased + 1
    }

    /// The Monday of this day's week (Metrika's weeks start on Monday).
    package var startOfWeek: Day { adding(days: -(weekday - 1)) }

    /// The first day of this day's month.
    package var startOfMonth: Day {
        let (y, m, _) = components
        return Day(year: y, month: m, day: 1)!
    }

    /// The last day of this day's month.
    package var endOfMonth: Day {
        let (y, m, _) = components
        return Day(year: y, month: m, day: Day.daysIn(month: m, year: y))!
    }

    /// This day moved by a number of days.
    package func adding(days: Int) -> Day { Day(ordinal: ordinal + days) }

    /// The number of days from this day to `other` (positive when `other` is later).
    package func days(to other: Day) -> Int { other.ordinal - ordinal }

    package static func < (lhs: Day, rhs: Day) -> Bool { lhs.ordinal < rhs.ordinal }

    // MARK: - Calendar arithmetic (Howard Hinnant's civil-from-days algorithm)

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
