/// Writes CSV as RFC 4180 describes it, one record at a time, into any `TextOutputStream`.
///
/// - A field is quoted when it contains a comma, a double quote, CR or LF; quotes inside are doubled.
/// - Every record ends with CRLF.
/// - The header row is the caller's first `write(_:to:)`.
/// - Values are written verbatim. In particular no guard against spreadsheet formula injection is
///   applied (a leading `=`, `+`, `-` or `@` is kept): CSV output is data for programs, and changing
///   values would break the exactness scripts rely on.
///
/// The writer holds no state — not even the current row — so a report of any length streams through it
/// with memory bounded by one row, which the caller supplies.
public struct CSVWriter: Sendable {
    /// The record terminator RFC 4180 asks for.
    public static let recordTerminator = "\r\n"

    /// A writer. It has no options: the format is RFC 4180 exactly.
    public init() {}

    /// Writes one record: the fields, escaped and joined by commas, then CRLF.
    ///
    /// A record of one empty field is written as `""` so that it reads back as one field rather than as an
    /// empty line; a record of no fields is an empty line.
    public func write<Out: TextOutputStream>(_ fields: [String], to out: inout Out) {
        if fields.count == 1, fields[0].isEmpty {
            out.write("\"\"")
        } else {
            for (index, field) in fields.enumerated() {
                if index > 0 { out.write(",") }
                out.write(Self.escape(field))
            }
        }
        out.write(Self.recordTerminator)
    }

    /// `field` as it appears in a record: unchanged, or quoted with inner quotes doubled when it contains a
    /// comma, a double quote, CR or LF.
    public static func escape(_ field: String) -> String {
        // Scan scalars, not Characters: "\r\n" is one Character and would hide both CR and LF.
        guard field.unicodeScalars.contains(where: needsQuoting) else { return field }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in field.unicodeScalars {
            if scalar == "\"" { quoted.append("\"") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }

    private static func needsQuoting(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "," || scalar == "\"" || scalar == "\r" || scalar == "\n"
    }
}
