import Testing

@testable import MetrikaModel
@testable import MetrikaRender

/// `TextTable.render` as it was before the byte-level fast path (commit b1dad1d): every cell through
/// `displaySafe`, `displayWidth` by grapheme cluster, lines built from Strings. The oracle the fast
/// path is held to, byte for byte.
enum ReferenceTextTable {
    static func render(_ table: TextTable, maxWidth: Int? = nil) -> String {
        let columns = table.columns
        let headers = columns.map { TextTable.displaySafe($0.title) }
        let body: [TextTable.Row] = table.rows.map { row in
            switch row {
            case .separator: return .separator
            case .cells(let cells, let note):
                return .cells(cells.map(TextTable.displaySafe), note: note.map(TextTable.displaySafe))
            }
        }
        var widths = headers.map { displayWidth(of: $0) }
        var noteWidth = 0
        for case .cells(let cells, let note) in body {
            for (index, cell) in cells.enumerated() { widths[index] = max(widths[index], displayWidth(of: cell)) }
            if let note { noteWidth = max(noteWidth, displayWidth(of: note)) }
        }
        if let maxWidth {
            let fixed = 2 * max(columns.count - 1, 0) + (noteWidth > 0 ? 2 + noteWidth : 0)
            var total = widths.reduce(0, +)
            while total > maxWidth - fixed {
                var widest: Int?
                for index in widths.indices where columns[index].alignment == .left && widths[index] > 1 {
                    if let current = widest, widths[current] > widths[index] { continue }
                    widest = index
                }
                guard let index = widest else { break }
                widths[index] -= 1
                total -= 1
            }
        }
        func trimmed(_ text: String) -> String {
            var text = text
            while text.last == " " { text.removeLast() }
            return text
        }
        func line(_ cells: [String], note: String?) -> String {
            var parts: [String] = []
            for (index, column) in columns.enumerated() {
                var cell = index < cells.count ? cells[index] : ""
                var width = displayWidth(of: cell)
                if column.alignment == .left && width > widths[index] {
                    cell = TextTable.truncate(cell, toWidth: widths[index])
                    width = displayWidth(of: cell)
                }
                let padding = String(repeating: " ", count: max(widths[index] - width, 0))
                parts.append(column.alignment == .left ? cell + padding : padding + cell)
            }
            var text = parts.joined(separator: "  ")
            if let note, !note.isEmpty { text += "  " + note }
            return trimmed(text)
        }
        var output = ""
        if let title = table.title {
            var text = TextTable.displaySafe(title)
            if let maxWidth { text = TextTable.truncate(text, toWidth: maxWidth) }
            output += trimmed(text) + "\n"
        }
        guard !columns.isEmpty else { return output }
        let rule = widths.map { String(repeating: TextTable.ruleCharacter, count: $0) }.joined(separator: "  ")
        output += line(headers, note: nil) + "\n"
        output += trimmed(rule) + "\n"
        for row in body {
            switch row {
            case .separator: output += trimmed(rule) + "\n"
            case .cells(let cells, let note): output += line(cells, note: note) + "\n"
            }
        }
        return output
    }
}

@Suite("Text table: the fast path gives the reference's bytes")
struct TextTableDifferentialTests {
    /// Cells from pieces that take every path: ASCII, Cyrillic and Latin-1 (the fast path), and what
    /// must leave it — combining marks (also Cyrillic U+0483…U+0489), soft hyphen, C0/C1 controls,
    /// CR/LF, tabs, bidi controls, CJK, emoji and their sequences, Prepend + space, trailing and
    /// leading spaces, long cells over the 1,000-character limit.
    static let pieces: [String] = [
        "a", "Zz", "phrase", "купить", "ё", " ", "  ", "é", "e\u{301}", "\u{483}", "\u{489}", "\u{48A}", "\u{4FF}",
        "\u{500}", "\u{52F}",
        "\u{530}", "\u{AD}", "\u{A0}", "\u{2FF}", "\u{300}", "\u{36F}", "\u{370}", "\u{3A9}", "\u{7F}", "\u{85}",
        "\u{9B}", "\u{1B}[2J",
        "\r", "\n", "\r\n", "\t", "\u{202E}", "\u{200F}", "東京", "한", "😀", "👍🏽", "❤️", "©", "©\u{FE0F}", "\u{600} ",
        "\u{0600}",
        "\u{1F1F7}\u{1F1FA}", "…", "─", "~", "\u{200D}", "\u{FE0F}", "\u{1160}"
    ]

    static func cell(_ random: inout SeededRandom) -> String {
        if random.next() % 200 == 0 {
            return String(repeating: random.next() % 2 == 0 ? "ж" : "x", count: 990 + Int(random.next() % 20))
        }
        if random.next() % 9 == 0 { return "" }
        var text = ""
        for _ in 0..<Int(random.next() % 6) {
            // Mostly the plain pieces, as in real reports; the rest often enough to reach every rule.
            let index = random.next() % 3 == 0 ? Int(random.next() % UInt64(pieces.count)) : Int(random.next() % 5)
            text += pieces[index]
        }
        return text
    }

    @Test func randomTablesRenderLikeTheReference() {
        var random = SeededRandom(seed: 0x7AB1_0001)
        for round in 0..<400 {
            let columnCount = Int(random.next() % 5)
            let columns = (0..<columnCount).map { _ in
                TextTable.Column(Self.cell(&random), alignment: random.next() % 2 == 0 ? .left : .right)
            }
            var table = TextTable(columns: columns, title: random.next() % 3 == 0 ? nil : Self.cell(&random))
            for _ in 0..<Int(random.next() % 30) {
                if random.next() % 15 == 0 {
                    table.appendSeparator()
                    continue
                }
                let cells = (0..<Int(random.next() % UInt64(columnCount + 2))).map { _ in Self.cell(&random) }
                table.append(cells, note: random.next() % 4 == 0 ? Self.cell(&random) : nil)
            }
            for maxWidth in [nil, 1, 12, 40, 80] as [Int?] {
                let fast = table.render(maxWidth: maxWidth)
                let slow = ReferenceTextTable.render(table, maxWidth: maxWidth)
                #expect(fast == slow, "round \(round), maxWidth \(String(describing: maxWidth))")
                if fast != slow { return }
            }
        }
    }
}
