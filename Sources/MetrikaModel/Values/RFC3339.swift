import Foundation

/// Instants as RFC 3339 text (`2026-06-15T12:00:00Z`, `2022-03-25T15:59:52+03:00`), read and written
/// without Foundation's `ISO8601DateFormatter`: that one loads ICU's calendar and locale data, about
/// 4 MiB of memory and a few milliseconds of every command that reads the token file or `METRIKA_NOW`.
package enum RFC3339 {
    /// `date-T-time`, a fraction of a second allowed, then `Z` or an offset (`+03:00`, `+0300`); a space
    /// instead of `T` is accepted too. Nil for anything else, a missing zone included.
    package static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, let day = Day(iso: String(decoding: bytes[0..<10], as: UTF8.self)),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                guard bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let first = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > first else { return nil }
        }
        var offset = 0
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
            index += 1
        } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            let hasColon = index + 3 < bytes.count && bytes[index + 3] == UInt8(ascii: ":")
            guard let hours = number(index + 1..<index + 3),
                let minutes = number(hasColon ? index + 4..<index + 6 : index + 3..<index + 5), hours < 24, minutes < 60
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
            index += hasColon ? 6 : 5
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds = day.ordinal * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// `2026-06-15T12:00:00Z`: UTC, whole seconds (a fraction is dropped, not rounded).
    package static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let rest = seconds - days * 86_400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(Day(ordinal: days).iso)T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }
}
