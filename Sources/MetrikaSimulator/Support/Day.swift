import Foundation

/// A calendar date (proleptic Gregorian), stored as days since 1970-01-01.
///
/// Reports work on whole days in a counter's time zone; plain day numbers keep the arithmetic
/// exact and fast (a year of daily data is 365 integer steps, no Calendar calls).
struct Day: Hashable, Comparable, Sendable, Strideable {
    let number: Int

    init(number: Int) {
        self.number = number
    }

    init(year: Int, month: Int, day: Int) {
        // Days-from-civil, after Howard Hinnant's public-domain derivation.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * m + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        number = era * 146_097 + dayOfEra - 719_468
    }

    /// Reads `YYYY-MM-DD`; nil for anything else or an impossible date.
    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        self.init(year: y, month: m, day: d)
        guard components == (y, m, d) else { return nil }
    }

    /// The date `seconds` after the epoch, shifted by `offsetSeconds` from UTC.
    init(epochSeconds seconds: Double, offsetSeconds: Int) {
        number = Int(((seconds + Double(offsetSeconds)) / 86_400).rounded(.down))
    }

    var components: (year: Int, month: Int, day: Int) {
        let z = number + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let d = dayOfYear - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// `YYYY-MM-DD`.
    var string: String {
        let (y, m, d) = components
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// 0 = Monday ... 6 = Sunday (1970-01-01 was a Thursday).
    var weekdayFromMonday: Int { ((number % 7) + 7 + 3) % 7 }

    var startOfWeek: Day { Day(number: number - weekdayFromMonday) }

    var startOfMonth: Day {
        let (y, m, _) = components
        return Day(year: y, month: m, day: 1)
    }

    var startOfQuarter: Day {
        let (y, m, _) = components
        return Day(year: y, month: ((m - 1) / 3) * 3 + 1, day: 1)
    }

    var startOfYear: Day { Day(year: components.year, month: 1, day: 1) }

    static func < (lhs: Day, rhs: Day) -> Bool { lhs.number < rhs.number }

    func distance(to other: Day) -> Int { other.number - number }

    func advanced(by n: Int) -> Day { Day(number: number + n) }
}
