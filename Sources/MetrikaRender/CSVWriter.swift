import MetrikaModel
import MetrikaSystem

/// Writes CSV records as RFC 4180 describes them, as bytes into an `OutputWriter`.
///
/// - A field is quoted when it contains a comma, a double quote, CR or LF; quotes inside are doubled.
/// - Records end with LF (what Unix tools and CSV readers expect), or CRLF as RFC 4180 asks
///   (`--crlf`).
/// - Text fields that a spreadsheet would run as a formula — starting with `=`, `+`, `-`, `@`, TAB or
///   CR — get a leading `'` (OWASP's advice against CSV injection: search phrases and page titles are
///   typed by strangers). Numbers are never touched. `--csv-formulas keep` writes text verbatim.
///
/// The writer holds no rows, so a report of any length streams through it with memory bounded by one
/// row, which the caller supplies.
package struct CSVWriter: Sendable {
    /// How records end.
    package enum LineEnding: String, Sendable {
        /// `\n`: the default.
        case lf
        /// `\r\n`: RFC 4180.
        case crlf
    }

    /// What happens to text that a spreadsheet would read as a formula.
    package enum Formulas: String, Sendable, CaseIterable {
        /// A leading `'` makes it plain text in Excel, LibreOffice and Google Sheets.
        case defuse
        /// The bytes as they are, for programs.
        case keep
    }

    package var lineEnding: LineEnding
    package var formulas: Formulas

    /// Whether the CSV is going to a terminal, for eyes rather than a program: then text fields pass
    /// `TerminalText` (escape sequences, BEL and C1 controls made visible, bidi controls removed, line
    /// breaks shown as `↵`), as every table cell does. Names are typed by strangers (search phrases,
    /// UTM tags); a file or a pipe always gets the bytes as they came.
    package var terminal = false

    /// A writer: LF line ends and defused formulas unless told otherwise.
    package init(lineEnding: LineEnding = .lf, formulas: Formulas = .defuse) {
        self.lineEnding = lineEnding
        self.formulas = formulas
    }

    /// Writes one record. Fields before `numbersFrom` (all of them when nil) are text and may be
    /// defused; fields from `numbersFrom` on are numbers, written as they are.
    ///
    /// A record of one empty field is written as `""` so that it reads back as one field rather than as
    /// an empty line; a record of no fields is an empty line.
    package func write(_ fields: [String], numbersFrom: Int? = nil, to out: OutputWriter) throws {
        if fields.count == 1, fields[0].isEmpty {
            try out.write(byte: Self.quote)
            try out.write(byte: Self.quote)
        } else {
            let firstNumber = numbersFrom ?? fields.count
            for (index, field) in fields.enumerated() {
                if index > 0 { try out.write(byte: Self.comma) }
                try writeField(field, isText: index < firstNumber, to: out)
            }
        }
        try endRecord(to: out)
    }

    /// Writes one field (no separator): escaped, and defused when it is text.
    package func writeField(_ field: String, isText: Bool, to out: OutputWriter) throws {
        var field = field
        try field.withUTF8 { try writeField(utf8: $0, isText: isText, to: out) }
    }

    /// Writes one field given as UTF-8 bytes (a name in a page's buffer, `SharedText`): the same
    /// bytes as `writeField(_:isText:to:)` of its `String`.
    package func writeField(utf8 bytes: UnsafeBufferPointer<UInt8>, isText: Bool, to out: OutputWriter) throws {
        if terminal, isText, bytes.contains(where: Self.mayBeTerminalActive) {
            var plain = self
            plain.terminal = false
            var shown = TerminalText.sanitize(String(decoding: bytes, as: UTF8.self))
            try shown.withUTF8 { try plain.writeField(utf8: $0, isText: true, to: out) }
            return
        }
        let defuse = isText && formulas == .defuse && bytes.first.map(Self.startsFormula) == true
        // Scan bytes, not Characters: "\r\n" is one Character and would hide both CR and LF.
        guard bytes.contains(where: Self.needsQuoting) else {
            if defuse { try out.write(byte: Self.apostrophe) }
            try out.write(contentsOf: UnsafeRawBufferPointer(bytes))
            return
        }
        try out.write(byte: Self.quote)
        if defuse { try out.write(byte: Self.apostrophe) }
        var start = 0
        for index in bytes.indices where bytes[index] == Self.quote {
            // The run up to and including this quote, then the quote again.
            try out.write(contentsOf: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...index])))
            try out.write(byte: Self.quote)
            start = index + 1
        }
        try out.write(contentsOf: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...])))
        try out.write(byte: Self.quote)
    }

    /// Ends a record.
    package func endRecord(to out: OutputWriter) throws {
        if lineEnding == .crlf { try out.write(byte: 0x0D) }
        try out.write(byte: 0x0A)
    }

    private static let quote: UInt8 = 0x22
    private static let comma: UInt8 = 0x2C
    private static let apostrophe: UInt8 = 0x27

    /// A byte of a character `TerminalText` rewrites: C0 controls and DEL, and the first byte of
    /// U+0080–U+009F (C2), U+061C (D8) and the U+200E…U+2069 marks (E2); false positives only cost
    /// the slow path.
    private static func mayBeTerminalActive(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == 0xC2 || byte == 0xD8 || byte == 0xE2
    }

    private static func needsQuoting(_ byte: UInt8) -> Bool {
        byte == comma || byte == quote || byte == 0x0D || byte == 0x0A
    }

    /// `=`, `+`, `-`, `@`, TAB, CR: what Excel and Sheets read as the start of a formula.
    static func startsFormula(_ byte: UInt8) -> Bool {
        byte == 0x3D || byte == 0x2B || byte == 0x2D || byte == 0x40 || byte == 0x09 || byte == 0x0D
    }
}
