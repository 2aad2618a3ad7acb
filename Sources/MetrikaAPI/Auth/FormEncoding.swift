import Foundation

/// `application/x-www-form-urlencoded` bodies, encoded strictly: only RFC 3986 unreserved characters
/// stay as they are, so a `+`, `&` or `=` inside a secret or a token cannot change the form's meaning
/// (a space is `%20`, which every form parser reads as a space).
package enum FormEncoding {
    /// `a=1&b=x%2By`, the fields in the given order.
    package static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Percent-encodes everything but `A–Z a–z 0–9 - . _ ~`, as UTF-8.
    package static func escape(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return result
    }

    /// Splits `a=1&b=x%2By` (or a URL fragment) into fields; `+` reads as a space, as forms do.
    package static func decode(_ text: String) -> [(String, String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescape(_ piece: Substring) -> String {
                let spaced = piece.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (unescape(pieces[0]), pieces.count > 1 ? unescape(pieces[1]) : "")
        }
    }
}
