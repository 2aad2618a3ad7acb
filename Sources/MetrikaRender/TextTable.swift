import MetrikaModel
import MetrikaSystem

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
///   only when stdout is a terminal); see there. A report names its key columns (`keyColumnCount`):
///   they are never narrowed for the others, which are split into blocks that repeat them.
package struct TextTable: Sendable {
    /// How a column's cells sit in its width.
    package enum Alignment: Sendable {
        /// Text: padded on the right, and may be cut with `…` to fit a maximum width.
        case left
        /// Numbers: padded on the left, never cut.
        case right
    }

    /// A column: its header and alignment.
    package struct Column: Sendable {
        /// The header text.
        package var title: String
        /// `.left` for text, `.right` for numbers.
        package var alignment: Alignment
        /// Whether a table split into blocks (see `keyColumnCount`) keeps this column in the same block
        /// as the one before it (a `--compare` change beside its value).
        package var staysWithPrevious: Bool
        /// Decorates a body cell's text after it is measured, sanitized and cut (a colour for a person
        /// at a terminal): what it adds must take no columns. Headers are never styled.
        package var style: (@Sendable (String) -> String)?

        /// A column headed `title`; text (`.left`) unless told otherwise.
        package init(
            _ title: String, alignment: Alignment = .left, staysWithPrevious: Bool = false,
            style: (@Sendable (String) -> String)? = nil
        ) {
            self.title = title
            self.alignment = alignment
            self.staysWithPrevious = staysWithPrevious
            self.style = style
        }
    }

    /// The character of the rule under the header and of separators.
    package static let ruleCharacter: Character = "─"
    /// The ellipsis that marks a cut cell.
    package static let ellipsis: Character = "…"
    /// The gap between columns.
    static let gap = "  "

    /// One body line of the table.
    enum Row: Sendable {
        case cells([String], note: String?)
        case separator
    }

    /// The table's columns, in display order.
    package let columns: [Column]
    /// An optional line printed above the header.
    package var title: String?
    /// How many leading columns name a row (a date, a traffic source, a search phrase). 0: none, and
    /// `render(maxWidth:)` narrows the widest text column, whichever it is. Otherwise, when the table
    /// is wider than `maxWidth`, the key columns keep their width and the other columns are split
    /// into blocks, one under the other, each repeating the key columns: every line still says which
    /// row it is. A key is narrowed only when it could not stand beside the widest other column.
    package var keyColumnCount = 0
    /// The body, in insertion order.
    private(set) var rows: [Row] = []

    /// An empty table with these columns and an optional title line.
    package init(columns: [Column], title: String? = nil) {
        self.columns = columns
        self.title = title
    }

    /// Appends a row. Missing trailing cells are empty; cells beyond the last column are dropped (a row
    /// built from an answer of another width must never stop the program: callers check widths).
    ///
    /// - Parameter note: a short marker printed after the last column (e.g. `*` on today's incomplete
    ///   row). Notes line up in a column of their own and are never cut.
    package mutating func append(_ cells: [String], note: String? = nil) {
        rows.append(.cells(cells.count <= columns.count ? cells : Array(cells.prefix(columns.count)), note: note))
    }

    /// Appends a rule across the columns, e.g. before a totals row.
    package mutating func appendSeparator() {
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
    /// A table with key columns (`keyColumnCount`) is split into blocks instead; see there.
    package func render(maxWidth: Int? = nil) -> String {
        let out = OutputWriter()
        // An in-memory writer cannot fail.
        try? write(maxWidth: maxWidth, to: out)
        return out.text
    }

    /// `render(maxWidth:)`'s bytes, written into `out` line by line (a 100,000-row report is never
    /// one String).
    ///
    /// Every cell passes `TerminalText` and is measured once. A safe cell of plain text
    /// (`PlainText`: printable ASCII, Latin-1, Cyrillic — one character and one column per scalar)
    /// has its scalar count as its width, and a line made only of such cells is padded and trimmed
    /// as bytes. Any other cell is measured by `displayWidth`, grapheme cluster by cluster, and its
    /// line built through the String path (TextTableDifferentialTests holds the two
    /// paths to the same bytes).
    package func write(maxWidth: Int? = nil, to out: OutputWriter) throws {
        let headers = columns.map { Measured($0.title) }
        var body: [MeasuredRow] = []
        body.reserveCapacity(rows.count)
        var widths = headers.map(\.width)
        var noteWidth = 0
        for row in rows {
            switch row {
            case .separator:
                body.append(.separator)
            case .cells(let cells, let note):
                let measured = cells.map(Measured.init)
                for (index, cell) in measured.enumerated() where cell.width > widths[index] {
                    widths[index] = cell.width
                }
                let measuredNote = note.map(Measured.init)
                if let measuredNote { noteWidth = max(noteWidth, measuredNote.width) }
                body.append(.cells(measured, note: measuredNote))
            }
        }
        var blocks = [Array(columns.indices)]
        if let maxWidth {
            let noteSpace = noteWidth > 0 ? Self.gap.count + noteWidth : 0
            if keyColumnCount > 0, keyColumnCount < columns.count, Self.width(of: widths) + noteSpace > maxWidth {
                (widths, blocks) = split(widths, toFit: maxWidth - noteSpace)
            } else {
                let fixed = Self.gap.count * max(columns.count - 1, 0) + noteSpace
                widths = shrink(widths, toFit: maxWidth - fixed)
            }
        }

        if let title {
            var line = Self.displaySafe(title)
            if let maxWidth { line = Self.truncate(line, toWidth: maxWidth) }
            try out.write(Self.trimmingTrailingSpaces(line) + "\n")
        }
        guard !columns.isEmpty else { return }
        for (number, shown) in blocks.enumerated() {
            if number > 0 { try out.write(byte: 0x0A) }
            let rule =
                Self.trimmingTrailingSpaces(
                    shown.map { String(repeating: Self.ruleCharacter, count: widths[$0]) }.joined(separator: Self.gap))
                + "\n"
            try write(headers, shown: shown, widths: widths, note: nil, header: true, to: out)
            try out.write(rule)
            for row in body {
                switch row {
                case .separator: try out.write(rule)
                case .cells(let cells, let note):
                    try write(cells, shown: shown, widths: widths, note: note, header: false, to: out)
                }
            }
        }
    }

    /// The width of a line of columns this wide: the columns and the gaps between them.
    static func width(of widths: some Collection<Int>) -> Int {
        widths.reduce(0, +) + Self.gap.count * max(widths.count - 1, 0)
    }

    /// The natural width of the table's widest line, notes included (what `render()` prints without
    /// a maximum width).
    package var naturalWidth: Int {
        var widths = columns.map { displayWidth(of: Self.displaySafe($0.title)) }
        var noteWidth = 0
        for case .cells(let cells, let note) in rows {
            for (index, cell) in cells.enumerated() {
                widths[index] = max(widths[index], displayWidth(of: Self.displaySafe(cell)))
            }
            if let note { noteWidth = max(noteWidth, displayWidth(of: Self.displaySafe(note))) }
        }
        return Self.width(of: widths) + (noteWidth > 0 ? Self.gap.count + noteWidth : 0)
    }

    /// The columns after the key as blocks that each fit `available` beside the key columns: as few
    /// blocks as fit, with the columns shared out evenly among them (6 columns in two blocks are
    /// 3 + 3, not 5 + 1). Columns that stay with the previous one move together. The key columns
    /// are narrowed (widest text first) only if they could not stand beside the widest unit.
    private func split(_ natural: [Int], toFit available: Int) -> (widths: [Int], blocks: [[Int]]) {
        var widths = natural
        let keys = Array(0..<keyColumnCount)
        var units: [[Int]] = []
        for index in keyColumnCount..<columns.count {
            if columns[index].staysWithPrevious, !units.isEmpty {
                units[units.count - 1].append(index)
            } else {
                units.append([index])
            }
        }
        // A unit's width as it follows the key: a gap before each of its columns.
        func unitWidth(_ unit: [Int]) -> Int { unit.reduce(0) { $0 + Self.gap.count + widths[$1] } }
        let widestUnit = units.map(unitWidth).max() ?? 0
        let keyNatural = Self.width(of: keys.map { widths[$0] })
        if keyNatural + widestUnit > available {
            let narrowed = shrink(
                keys.map { widths[$0] }, toFit: available - widestUnit - Self.gap.count * (keys.count - 1))
            for (position, index) in keys.enumerated() { widths[index] = narrowed[position] }
        }
        let room = available - Self.width(of: keys.map { widths[$0] })
        // The fewest blocks: fill each as far as it goes.
        var count = 0
        var used = 0
        for unit in units {
            let width = unitWidth(unit)
            if count == 0 || used + width > room {
                count += 1
                used = width
            } else {
                used += width
            }
        }
        // Then as even as the widths allow: at most ceil(units / count) units a block.
        var blocks: [[Int]] = []
        var perBlock = (units.count + count - 1) / max(count, 1)
        while true {
            blocks = []
            var current: [[Int]] = []
            var currentWidth = 0
            for unit in units {
                let width = unitWidth(unit)
                if !current.isEmpty, current.count == perBlock || currentWidth + width > room {
                    blocks.append(keys + current.flatMap { $0 })
                    current = []
                    currentWidth = 0
                }
                current.append(unit)
                currentWidth += width
            }
            if !current.isEmpty { blocks.append(keys + current.flatMap { $0 }) }
            if blocks.count <= count || perBlock >= units.count { break }
            perBlock += 1
        }
        return (widths, blocks)
    }

    /// A cell as shown: its safe text, its display width, and whether it is plain (`PlainText`).
    struct Measured {
        var text: String
        var width: Int
        var isPlain: Bool

        init(_ text: String) {
            // Every cell passes the one sanitizer; plain text only skips the grapheme walk.
            self.text = TextTable.displaySafe(text)
            if let width = PlainText.width(of: self.text) {
                self.width = width
                isPlain = true
            } else {
                width = displayWidth(of: self.text)
                isPlain = false
            }
        }

        static let empty = Measured("")
    }

    enum MeasuredRow {
        case cells([Measured], note: Measured?)
        case separator
    }

    /// One line of the `shown` columns into `out`: as bytes when every cell is plain, unstyled and
    /// none must be cut, else through `line(_:shown:widths:note:header:)`.
    private func write(
        _ cells: [Measured], shown: [Int], widths: [Int], note: Measured?, header: Bool, to out: OutputWriter
    ) throws {
        var plain = note?.isPlain ?? true
        for index in shown where plain && index < cells.count {
            let cell = cells[index]
            let column = columns[index]
            plain =
                cell.isPlain && !(column.alignment == .left && cell.width > widths[index])
                && (header || column.style == nil)
        }
        guard plain else {
            return try out.write(line(cells, shown: shown, widths: widths, note: note, header: header) + "\n")
        }
        // Spaces are held back until something follows them: a line never ends in spaces. (Plain
        // text has one character per scalar, so trimming space bytes is trimming " " characters.)
        var pendingSpaces = 0
        func text(_ cell: Measured) throws {
            var text = cell.text
            try text.withUTF8 { bytes in
                guard let last = bytes.lastIndex(where: { $0 != 0x20 }) else {
                    pendingSpaces += bytes.count
                    return
                }
                try Self.writeSpaces(pendingSpaces, to: out)
                try out.write(contentsOf: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[...last])))
                pendingSpaces = bytes.count - last - 1
            }
        }
        for (position, index) in shown.enumerated() {
            let column = columns[index]
            if position > 0 { pendingSpaces += Self.gap.count }
            let cell = index < cells.count ? cells[index] : .empty
            let padding = max(widths[index] - cell.width, 0)
            if column.alignment == .left {
                try text(cell)
                pendingSpaces += padding
            } else {
                pendingSpaces += padding
                try text(cell)
            }
        }
        if let note, !note.text.isEmpty {
            pendingSpaces += Self.gap.count
            try text(note)
        }
        try out.write(byte: 0x0A)
    }

    private static func writeSpaces(_ count: Int, to out: OutputWriter) throws {
        try out.write(repeating: 0x20, count: count)
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

    /// One line: every cell of the `shown` columns cut (text only), styled (body only) and padded to
    /// its column, then the note.
    private func line(_ cells: [Measured], shown: [Int], widths: [Int], note: Measured?, header: Bool) -> String {
        var parts: [String] = []
        parts.reserveCapacity(shown.count)
        for index in shown {
            let column = columns[index]
            var cell = index < cells.count ? cells[index].text : ""
            var width = index < cells.count ? cells[index].width : 0
            if column.alignment == .left && width > widths[index] {
                cell = Self.truncate(cell, toWidth: widths[index])
                width = displayWidth(of: cell)
            }
            if !header, let style = column.style, !cell.isEmpty { cell = style(cell) }
            let padding = String(repeating: " ", count: max(widths[index] - width, 0))
            parts.append(column.alignment == .left ? cell + padding : padding + cell)
        }
        var text = parts.joined(separator: Self.gap)
        if let note, !note.text.isEmpty {
            text += Self.gap + note.text
        }
        return Self.trimmingTrailingSpaces(text)
    }

    // MARK: - Text helpers

    /// `text` cut to at most `width` display columns, ending in `…` when anything was cut. Never splits a
    /// grapheme cluster; spaces right before the `…` are dropped, and the result may be narrower than
    /// `width` when a 2-column character would have straddled the limit.
    package static func truncate(_ text: String, toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        if displayWidth(of: text) <= width { return text }
        let budget = width - 1 // one column for the ellipsis
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
    package static func displaySafe(_ text: String) -> String {
        TerminalText.sanitize(text, limit: TerminalText.lineLimit)
    }

    private static func trimmingTrailingSpaces(_ text: String) -> String {
        var text = text
        while text.last == " " { text.removeLast() }
        return text
    }
}
