import Foundation

/// Decoding of `application/x-www-form-urlencoded` text, used for query strings and OAuth bodies.
enum FormCoding {
    /// The name/value pairs in order; `+` is a space and `%XX` a byte, as in HTML forms (the real
    /// services are Java servlets and read query strings the same way).
    static func decode(_ text: String) -> [(String, String)] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: "&", omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecode(String(pieces[0]))
            let value = pieces.count > 1 ? percentDecode(String(pieces[1])) : ""
            return (name, value)
        }
    }

    /// Percent-decodes `text`; malformed escapes are kept literally and invalid UTF-8 is repaired.
    static func percentDecode(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        let source = Array(text.utf8)
        var index = 0
        while index < source.count {
            let c = source[index]
            if c == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
                index += 1
            } else if c == UInt8(ascii: "%"), index + 2 < source.count,
                let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(c)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
