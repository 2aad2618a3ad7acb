import Foundation

/// One cheap pass over a server answer's bytes before any JSON parser sees them.
///
/// - Nesting is bounded: parsers recurse once per `[` or `{`, so a hostile answer of a million
///   brackets would overflow the stack and kill the process (a crash, maybe a core file). Real
///   Metrika and OAuth answers nest at most 5 levels; deeper than `maxDepth` is refused.
/// - A lone UTF-16 surrogate escape (`"\ud800"` without its pair, or a stray `"\udc00"`) is not a
///   character; Foundation refuses the whole document over it. It becomes `\ufffd` (U+FFFD, the
///   replacement character): one bad name costs one visible character, not the report. The
///   escape has the same length, so the rewrite is in place, on a copy made only when needed.
///
/// Brackets and escapes are only counted outside or inside strings as JSON defines them, so a
/// name such as `"[[["` or `"\\ud800"` (an escaped backslash) is left alone.
package enum JSONPreflight {
    /// The deepest nesting of arrays and objects accepted in a server answer.
    package static let maxDepth = 64

    /// The answer nests arrays or objects deeper than `maxDepth`.
    package struct TooDeep: Error, Equatable {
        /// The limit that was exceeded.
        package let limit: Int
        /// What to tell the user: the rest of an "unreadable answer" message.
        package var description: String { "arrays or objects nested more than \(limit) levels deep" }
    }

    /// The bytes to parse: `body` itself, or a copy with every lone surrogate escape rewritten to
    /// `\ufffd`. Throws `TooDeep` when the nesting goes deeper than `maxDepth`.
    package static func prepare(_ body: Data, maxDepth: Int = maxDepth) throws(TooDeep) -> Data {
        let lone = try loneSurrogateEscapes(in: body, maxDepth: maxDepth)
        guard !lone.isEmpty else { return body }
        var bytes = [UInt8](body)
        let replacement = Array("fffd".utf8)
        for offset in lone {
            bytes.replaceSubrange(offset..<offset + 4, with: replacement)
        }
        return Data(bytes)
    }

    /// Offsets of the four hex digits of each lone surrogate escape; checks the depth on the way.
    static func loneSurrogateEscapes(in body: Data, maxDepth: Int) throws(TooDeep) -> [Int] {
        let outcome: Result<[Int], TooDeep> = body.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let count = bytes.count
            var lone: [Int] = []
            var depth = 0
            var index = 0
            while index < count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > maxDepth { return .failure(TooDeep(limit: maxDepth)) }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                case UInt8(ascii: "\""):
                    // Inside a string until the closing quote.
                    while index < count {
                        let inner = bytes[index]
                        index += 1
                        if inner == UInt8(ascii: "\"") { break }
                        guard inner == UInt8(ascii: "\\"), index < count else { continue }
                        let escape = bytes[index]
                        index += 1
                        guard escape == UInt8(ascii: "u"), let unit = hex4(bytes, at: index) else { continue }
                        if (0xD800...0xDBFF).contains(unit) {
                            // A high surrogate must be followed at once by an escaped low one.
                            if index + 10 <= count, bytes[index + 4] == UInt8(ascii: "\\"),
                                bytes[index + 5] == UInt8(ascii: "u"),
                                let low = hex4(bytes, at: index + 6), (0xDC00...0xDFFF).contains(low)
                            {
                                index += 10
                            } else {
                                lone.append(index)
                                index += 4
                            }
                        } else if (0xDC00...0xDFFF).contains(unit) {
                            lone.append(index)
                            index += 4
                        } else {
                            index += 4
                        }
                    }
                default:
                    break
                }
            }
            return .success(lone)
        }
        return try outcome.get()
    }

    /// The value of four hex digits at `offset`, or nil (the parser will refuse a bad escape).
    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for position in offset..<offset + 4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return value
    }
}
