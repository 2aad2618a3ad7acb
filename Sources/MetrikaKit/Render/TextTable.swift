/// A plain-text table for terminals, aligned by display width (see `displayWidth(of:)`), so Cyrillic,
/// CJK and emoji cells line up.
///
/// Layout:
/// ```
/// Visits by day                  ← optional title line
/// date        visits  bounce_rate
/// ──────────  ──────  ───────────   ← rule under the header, one segment per column
/// 2024-05-01     120        41.2%
/// 2024-05-02      80        38.0%  *   ← optional row note, after the last column
/// ──────────  ──────  ───────────   ← optional separator (e.g. before totals)
/// Total          200        39.9%
/// ```
/// - Columns are separated by two spaces; lines never end in spaces; every line, the last included,
///   ends with `"\n"`.
/// - Left-aligned columns hold text, right-aligned columns hold numbers. Headers take their column's
///   alignment.
/// - Control characters in cells, titles, headers and notes cannot break the layout or reach the
///   terminal: they pass `TerminalText`, the one sanitizer of terminal text — line breaks become `↵`, a
///   tab one space, other control characters `\x1b`-style escapes (ESC → `\x1b`), bidi controls are
///   removed, and a cell is at most 1,000 characters. See `displaySafe(_:)`.
/// - Cells are cut only when `render(maxWidth:)` is given a width (the CLI passes the terminal width
///   only when stdout is a terminal); see there.
public struct TextTable: Sendable {
    /// How a column's cells sit in its width.
    public enum Alignment: Sendable {
        /// Text: padded on the right, and may be cut with `…` to fit a maximum width.
        case left
        /// Numbers: padded on the left, never cut.
        case right
    }

    /// A column: its header and alignment.
    public struct Column: Sendable {
        /// The header text.
        public var title: String
        /// `.left` for text, `.right` for numbers.
        public var alignment: Alignment

        /// A column headed `title`; text (`.left`) unless told otherwise.
        public init(_ title: String, alignment: Alignment = .left) {
            self.title = title
            self.alignment = alignment
        }
    }

    /// The character of the rule under the header and of separators.
    public static let ruleCharacter: Character = "─"
    /// The ellipsis that marks a cut cell.
    public static let ellipsis: Character = "…"
    /// The gap between columns.
    static let gap = "  "

    /// One body line of the table.
    enum Row: Sendable {
        case cells([String], note: String?)
        case separator
    }

    /// The table's columns, in display order.
    public let columns: [Column]
    /// An optional line printed above the header.
    public var title: String?
    /// The body, in insertion order.
    private(set) var rows: [Row] = []

    /// An empty table with these columns and an optional title line.
    public init(columns: [Column], title: String? = nil) {
        self.columns = columns
        self.title = title
    }

    /// Appends a row. Missing trailing cells are empty; cells beyond the last column are dropped (a row
    /// built from an answer of another width must never stop the program: callers check widths).
    ///
    /// - Parameter note: a short marker printed after the last column (e.g. `*` on today's incomplete
    ///   row). Notes line up in a column of their own and are never cut.
    public mutating func append(_ cells: [String], note: String? = nil) {
        rows.append(.cells(cells.count <= columns.count ? cells : Array(cells.prefix(columns.count)), note: note))
    }

    /// Appends a rule across the columns, e.g. before a totals row.
    public mutating func appendSeparator() {
        rows.append(.separator)
    }

    // MARK: - Rendering

    /// The table as text: lines joined by `"\n"`, with a trailing `"\n"`.
    ///
    /// Without `maxWidth` nothing is cut. With it, when the table is wider than `maxWidth` columns, the
    /// widest text (left-aligned) column loses one column at a time — ties go to the rightmost — until the
    /// table fits or every text column is 1 wide; cells and headers longer than their column are cut with
    /// `…` at a grapheme-cluster boundary, by display width. Numbers and notes are never cut, so a table
    /// of many number columns may still be wider than `maxWidth`. A title wider than `maxWidth` is cut too.
    public func render(maxWidth: Int? = nil) -> String {
        let headers = columns.map { Self.displaySafe($0.title) }
        let body: [Row] = rows.map { row in
            switch row {
            case .separator:
                return .separator
            case .cells(let cells, let note):
                return .cells(cells.map(Self.displaySafe), note: note.map(Self.displaySafe))
            }
        }

        var widths = headers.map { displayWidth(of: $0) }
        var noteWidth = 0
        for case .cells(let cells, let note) in body {
            for (index, cell) in cells.enumerated() {
                widths[index] = max(widths[index], displayWidth(of: cell))
            }
            if let note {
                noteWidth = max(noteWidth, displayWidth(of: note))
            }
        }
        if let maxWidth {
            let fixed = Self.gap.count * max(columns.count - 1, 0) + (noteWidth > 0 ? Self.gap.count + noteWidth : 0)
            widths = shrink(widths, toFit: maxWidth - fixed)
        }

        var output = ""
        if let title {
            var line = Self.displaySafe(title)
            if let maxWidth { line = Self.truncate(line, toWidth: maxWidth) }
            output += Self.trimmingTrailingSpaces(line) + "\n"
        }
        guard !columns.isEmpty else { return output }
        let rule = widths.map { String(repeating: Self.ruleCharacter, count: $0) }.joined(separator: Self.gap)
        output += line(headers, widths: widths, note: nil) + "\n"
        output += Self.trimmingTrailingSpaces(rule) + "\n"
        for row in body {
            switch row {
            case .separator:
                output += Self.trimmingTrailingSpaces(rule) + "\n"
            case .cells(let cells, let note):
                output += line(cells, widths: widths, note: note) + "\n"
            }
        }
        return output
    }

    /// Narrows text columns, widest first, until their sum fits `available` or none can narrow further.
    private func shrink(_ natural: [Int], toFit available: Int) -> [Int] {
        var widths = natural
        var total = widths.reduce(0, +)
        while total > available {
            var widest: Int?
            for index in widths.indices where columns[index].alignment == .left && widths[index] > 1 {
                if let current = widest, widths[current] > widths[index] { continue }
                widest = index
            }
            guard let index = widest else { break }
            widths[index] -= 1
            total -= 1
        }
        return widths
    }

    /// One line: every cell cut (text only) and padded to its column, then the note.
    private func line(_ cells: [String], widths: [Int], note: String?) -> String {
        var parts: [String] = []
        parts.reserveCapacity(columns.count)
        for (index, column) in columns.enumerated() {
            var cell = index < cells.count ? cells[index] : ""
            var width = displayWidth(of: cell)
            if column.alignment == .left && width > widths[index] {
                cell = Self.truncate(cell, toWidth: widths[index])
                width = displayWidth(of: cell)
            }
            let padding = String(repeating: " ", count: max(widths[index] - width, 0))
            parts.append(column.alignment == .left ? cell + padding : padding + cell)
        }
        var text = parts.joined(separator: Self.gap)
        if let note, !note.isEmpty {
            text += Self.gap + note
        }
        return Self.trimmingTrailingSpaces(text)
    }

    // MARK: - Text helpers

    /// `text` cut to at most `width` display columns, ending in `…` when anything was cut. Never splits a
    /// grapheme cluster; spaces right before the `…` are dropped, and the result may be narrower than
    /// `width` when a 2-column character would have straddled the limit.
    public static func truncate(_ text: String, toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        if displayWidth(of: text) <= width { return text }
        let budget = width - 1  // one column for the ellipsis
        var kept = ""
        var used = 0
        for character in text {
            let characterWidth = displayWidth(of: character)
            if used + characterWidth > budget { break }
            kept.append(character)
            used += characterWidth
        }
        // A space just before the ellipsis reads as a gap in the data, not as a cut.
        while kept.last == " " { kept.removeLast() }
        kept.append(ellipsis)
        return kept
    }

    /// `text` as a table may show it: through `TerminalText`, the one sanitizer of terminal text
    /// (line breaks as `↵`, a tab as a space, other control characters as `\x1b`-style escapes, bidi
    /// controls removed), and at most `TerminalText.lineLimit` characters.
    public static func displaySafe(_ text: String) -> String {
        TerminalText.sanitize(text, limit: TerminalText.lineLimit)
    }

    private static func trimmingTrailingSpaces(_ text: String) -> String {
        var text = text
        while text.last == " " { text.removeLast() }
        return text
    }
}
