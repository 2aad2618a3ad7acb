import MetrikaModel

/// A JSON document built in memory with object keys kept in insertion order, written with exact
/// shortest decimals — so the same data always gives the same bytes (Foundation's serializer gives
/// neither stable key order nor exact doubles on every platform).
package indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    /// A number, or null when the value is missing.
    package static func number(_ value: Double?) -> JSONValue {
        guard let value else { return .null }
        return .number(value)
    }

    /// A string, or null.
    package static func string(_ value: String?) -> JSONValue {
        guard let value else { return .null }
        return .string(value)
    }

    /// Compact JSON (one line), or pretty with two-space indentation.
    package func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(to: &out, pretty: pretty, indent: 0)
        return out
    }

    /// Appends the JSON text to a stream (for streaming large arrays, write the elements one by one).
    package func write<Out: TextOutputStream>(to out: inout Out, pretty: Bool, indent: Int) {
        switch self {
        case .null: out.write("null")
        case .bool(let value): out.write(value ? "true" : "false")
        case .number(let value):
            out.write(value.isFinite ? DecimalText.shortest(value) : "null")
        case .string(let value): JSONValue.writeString(value, to: &out)
        case .array(let items):
            if items.isEmpty {
                out.write("[]")
                return
            }
            out.write("[")
            for (index, item) in items.enumerated() {
                if index > 0 { out.write(",") }
                if pretty { out.write("\n" + String(repeating: "  ", count: indent + 1)) }
                item.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out.write("\n" + String(repeating: "  ", count: indent)) }
            out.write("]")
        case .object(let members):
            if members.isEmpty {
                out.write("{}")
                return
            }
            out.write("{")
            for (index, member) in members.enumerated() {
                if index > 0 { out.write(",") }
                if pretty { out.write("\n" + String(repeating: "  ", count: indent + 1)) }
                JSONValue.writeString(member.0, to: &out)
                out.write(pretty ? ": " : ":")
                member.1.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out.write("\n" + String(repeating: "  ", count: indent)) }
            out.write("}")
        }
    }

    /// Writes a JSON string literal: quotes, backslashes and control characters escaped; the rest
    /// (Cyrillic included) as UTF-8. Characters that are legal raw in JSON but act on whatever shows
    /// the text — C1 controls (U+0080–U+009F, `\u009b` is an 8-bit CSI), DEL, the bidi controls
    /// (U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069) and U+2028/U+2029 — are written as
    /// `\uXXXX` escapes, so `metrika … --json` piped to a terminal or `less -r` is inert while a JSON
    /// parser still reads back the same string.
    package static func writeString<Out: TextOutputStream>(_ value: String, to out: inout Out) {
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\u{2028}": escaped += "\\u2028"
            case "\u{2029}": escaped += "\\u2029"
            default:
                if escapesAsUnicode(scalar.value) {
                    let hex = String(scalar.value, radix: 16)
                    escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        escaped += "\""
        out.write(escaped)
    }

    private static func escapesAsUnicode(_ value: UInt32) -> Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
            return true
        default:
            return false
        }
    }
}
