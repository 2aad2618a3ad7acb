import Foundation
import MetrikaModel

/// The encodings a mail message needs, written to the RFCs rather than borrowed, so that every byte of
/// a message is known: quoted-printable (RFC 2045 §6.7), base64 in 76-character lines, encoded-words
/// for non-ASCII header text (RFC 2047), parameter values with a charset (RFC 2231), and the RFC 5322
/// date. All output uses CRLF line ends.
package enum MIMEEncoding {
    /// The longest line a quoted-printable or base64 body may have (RFC 2045).
    package static let bodyLineLimit = 76
    /// The longest header line metrika writes: RFC 2047 §2 asks 76 of lines holding encoded-words
    /// (RFC 5322 itself asks 78), and one limit for all headers is simpler.
    package static let headerLineLimit = 76
    /// The longest encoded-word allowed (RFC 2047 §2).
    package static let encodedWordLimit = 75

    // MARK: - Bodies

    /// UTF-8 text as quoted-printable with CRLF hard line breaks (any of LF, CRLF, CR in the input) and
    /// soft breaks that keep every line within 76 characters. A leading `.` and the `F` of a leading
    /// `From ` are encoded too, so that no naive transport can mangle them.
    package static func quotedPrintable(_ text: String) -> String {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var output: [String] = []
        for line in normalized.split(separator: "\n", omittingEmptySubsequences: false) {
            output.append(quotedPrintableLine(Array(line.utf8)))
        }
        return output.joined(separator: "\r\n")
    }

    private static func quotedPrintableLine(_ bytes: [UInt8]) -> String {
        var lines: [String] = []
        var current = ""
        for (index, byte) in bytes.enumerated() {
            let isLast = index == bytes.count - 1
            let token: String
            switch byte {
            case UInt8(ascii: "="): token = hex(byte)
            case UInt8(ascii: "."), UInt8(ascii: "F"):
                let atLineStart = current.isEmpty && lines.isEmpty
                let isFrom = byte == UInt8(ascii: "F") && bytes[index...].starts(with: Array("From ".utf8))
                token = atLineStart && (byte == UInt8(ascii: ".") || isFrom) ? hex(byte) : String(UnicodeScalar(byte))
            case 33...126: token = String(UnicodeScalar(byte))
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                // Trailing white space may be stripped in transit: encode it at the end of a line.
                token = isLast ? hex(byte) : String(UnicodeScalar(byte))
            default: token = hex(byte)
            }
            // Room for the token plus the `=` of a soft break, unless this token ends the line.
            let limit = isLast ? bodyLineLimit : bodyLineLimit - 1
            if current.utf8.count + token.utf8.count > limit {
                lines.append(current + "=")
                current = ""
            }
            current += token
        }
        lines.append(current)
        return lines.joined(separator: "\r\n")
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "=" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }

    /// Data as base64 in lines of 76 characters separated by CRLF (no line end after the last).
    package static func base64Lines(_ data: Data) -> String {
        let encoded = Array(data.base64EncodedString().utf8)
        var lines: [String] = []
        var start = 0
        while start < encoded.count {
            let end = min(start + bodyLineLimit, encoded.count)
            lines.append(String(decoding: encoded[start..<end], as: UTF8.self))
            start = end
        }
        return lines.joined(separator: "\r\n")
    }

    // MARK: - Headers

    /// Whether header text can be written as it is: printable ASCII and spaces only, and nothing a
    /// decoder could mistake for an encoded-word.
    package static func isPlainHeaderText(_ text: String) -> Bool {
        !text.contains("=?") && text.utf8.allSatisfy { $0 >= 32 && $0 < 127 }
    }

    /// Header text with CR, LF and other controls turned into spaces: nothing from outside may start a
    /// new header line.
    package static func singleLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 32 || $0.value == 127 ? " " : $0 }))
    }

    /// `text` as RFC 2047 `B` encoded-words in UTF-8, each at most 75 characters (the first at most
    /// `firstWordLimit`, to leave room for the header's name on its line), split only between
    /// characters (never inside a UTF-8 sequence), to be joined by folding white space.
    package static func encodedWords(_ text: String, firstWordLimit: Int = encodedWordLimit) -> [String] {
        let prefix = "=?UTF-8?B?"
        let suffix = "?="
        // 75 - 12 = 63 characters of base64 → at most 15 groups → 45 bytes of text per word.
        func bytesFitting(_ limit: Int) -> Int {
            max(3, (min(limit, encodedWordLimit) - prefix.count - suffix.count) / 4 * 3)
        }
        var maxBytes = bytesFitting(firstWordLimit)
        var words: [String] = []
        var chunk: [UInt8] = []
        func flush() {
            if !chunk.isEmpty {
                words.append(prefix + Data(chunk).base64EncodedString() + suffix)
                maxBytes = bytesFitting(encodedWordLimit)
            }
            chunk = []
        }
        for character in text {
            let bytes = Array(String(character).utf8)
            if bytes.count > maxBytes {
                // A grapheme longer than a word (long emoji sequences): split between its scalars.
                flush()
                for scalar in String(character).unicodeScalars {
                    let scalarBytes = Array(String(scalar).utf8)
                    if chunk.count + scalarBytes.count > maxBytes { flush() }
                    chunk += scalarBytes
                }
                continue
            }
            if chunk.count + bytes.count > maxBytes { flush() }
            chunk += bytes
        }
        flush()
        return words
    }

    /// A complete header field, folded: `Name: value` where `tokens` are joined by single spaces and a
    /// line is broken (CRLF + space) before a token that would pass 78 characters.
    package static func foldedHeader(_ name: String, tokens: [String]) -> String {
        var lines: [String] = []
        var current = name + ":"
        for token in tokens {
            if current.utf8.count + 1 + token.utf8.count > headerLineLimit, current != name + ":" {
                lines.append(current)
                current = ""
            }
            current += " " + token
        }
        lines.append(current)
        return lines.joined(separator: "\r\n")
    }

    /// An unstructured header (Subject): plain words when possible, encoded-words otherwise.
    package static func unstructuredHeader(_ name: String, value: String) -> String {
        let clean = singleLine(value)
        if isPlainHeaderText(clean) {
            let words = clean.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            if words.allSatisfy({ $0.utf8.count <= headerLineLimit - name.utf8.count - 2 }) {
                return foldedHeader(name, tokens: words)
            }
        }
        return foldedHeader(name, tokens: encodedWords(clean, firstWordLimit: headerLineLimit - name.utf8.count - 2))
    }

    /// A quoted MIME parameter (`name="value"`) for ASCII values, or RFC 2231 `name*=UTF-8''…` with
    /// continuations (`name*0*=`, `name*1*=`) of at most 60 characters for others. Returned as the
    /// tokens of a folded header, each starting after the `; ` separator.
    package static func parameter(_ name: String, value: String) -> [String] {
        let clean = singleLine(value)
        if clean.utf8.allSatisfy({ $0 >= 32 && $0 < 127 }), clean.utf8.count + name.utf8.count <= 60 {
            let escaped = clean.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"")
            return [name + "=\"" + escaped + "\""]
        }
        var encoded = ""
        for byte in clean.utf8 {
            // attribute-char of RFC 2231: ASCII printable except specials, `*`, `'`, `%` and space.
            let isSafe =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || [UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~")].contains(byte)
            encoded += isSafe ? String(UnicodeScalar(byte)) : "%" + String(hex(byte).dropFirst())
        }
        var pieces: [String] = []
        var rest = Substring("UTF-8''" + encoded)
        while !rest.isEmpty {
            var take = min(60, rest.count)
            // Never cut a %XX escape in two.
            let candidate = rest.prefix(take)
            if let percent = candidate.lastIndex(of: "%"), candidate.distance(from: percent, to: candidate.endIndex) < 3
            {
                take = candidate.distance(from: candidate.startIndex, to: percent)
            }
            pieces.append(String(rest.prefix(take)))
            rest = rest.dropFirst(take)
        }
        if pieces.count == 1 { return [name + "*=" + pieces[0]] }
        return pieces.enumerated().map { name + "*" + String($0.offset) + "*=" + $0.element }
    }

    /// The RFC 5322 date-time of `date` at a UTC offset, e.g. `Sun, 29 Nov 2026 15:00:00 +0300`.
    package static func dateHeaderValue(_ date: Date, offsetSeconds: Int) -> String {
        let local = Int((date.timeIntervalSince1970).rounded(.down)) + offsetSeconds
        let days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400)
        let seconds = local - days * 86400
        let day = Day(ordinal: days)
        let (year, month, dayOfMonth) = day.components
        let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0" + String(value) : String(value) }
        let sign = offsetSeconds < 0 ? "-" : "+"
        let offsetMinutes = abs(offsetSeconds) / 60
        return weekdays[day.weekday - 1] + ", " + String(dayOfMonth) + " " + months[month - 1] + " " + String(year)
            + " "
            + two(seconds / 3600) + ":" + two(seconds % 3600 / 60) + ":" + two(seconds % 60) + " "
            + sign + two(offsetMinutes / 60) + two(offsetMinutes % 60)
    }
}
