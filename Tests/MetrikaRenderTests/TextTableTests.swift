import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel
@testable import MetrikaRender

@Suite("Text table")
struct TextTableTests {
    // MARK: - Fixtures

    static func dailyReport() -> TextTable {
        var table = TextTable(
            columns: [
                .init("date"),
                .init("pageviews", alignment: .right),
                .init("visits", alignment: .right),
                .init("users", alignment: .right),
                .init("page_depth", alignment: .right),
                .init("time_on_site", alignment: .right),
                .init("bounce_rate", alignment: .right)
            ],
            title: "Counter 12345 · 2024-05-01 – 2024-05-04 · by day"
        )
        table.append(["2024-05-01", "1203", "407", "391", "2.96", "2:41", "21.4%"])
        table.append(["2024-05-02", "987", "352", "340", "2.80", "2:05", "24.1%"])
        table.append(["2024-05-03", "15034", "4820", "4711", "3.12", "12:09", "9.8%"])
        table.append(["2024-05-04", "58", "21", "21", "2.76", "0:47", "33.3%"], note: "*")
        table.appendSeparator()
        table.append(["Total", "17282", "5600", "5401", "3.09", "10:32", "11.6%"])
        return table
    }

    static func multilingualSources() -> TextTable {
        var table = TextTable(columns: [
            .init("traffic_source"), .init("search_phrase"), .init("visits", alignment: .right)
        ])
        table.append(["Поисковые системы", "Интернет-магазин", "1520"])
        table.append(["検索エンジン", "日本語 テキスト", "88"])
        table.append(["Social 👍🏽", "семья 👨‍👩‍👧", "7"])
        table.append(["Direct", "cafe\u{301}", "12345"])
        return table
    }

    // MARK: - Goldens

    @Test func dailyReportGolden() throws {
        try expectGolden(Self.dailyReport().render(), named: "daily_report")
    }

    @Test func multilingualGolden() throws {
        try expectGolden(Self.multilingualSources().render(), named: "multilingual")
    }

    @Test func truncatedGolden() throws {
        try expectGolden(Self.multilingualSources().render(maxWidth: 36), named: "multilingual_width36")
    }

    @Test func hostileGolden() throws {
        try expectGolden(Self.hostileTable().render(), named: "hostile")
    }

    @Test func headerOnlyGolden() throws {
        let table = TextTable(columns: [.init("counter_id", alignment: .right), .init("name"), .init("site")])
        try expectGolden(table.render(), named: "header_only")
    }

    // MARK: - Layout

    @Test func smallTableExactly() {
        var table = TextTable(columns: [.init("name"), .init("n", alignment: .right)])
        table.append(["ab", "1"])
        table.append(["Яндекс", "100"], note: "*")
        table.appendSeparator()
        table.append(["日本", "5"])
        let expected = """
            name      n
            ──────  ───
            ab        1
            Яндекс  100  *
            ──────  ───
            日本      5

            """
        #expect(table.render() == expected)
    }

    @Test func columnsLineUpByDisplayWidth() {
        let lines = Self.multilingualSources().render().split(separator: "\n").map(String.init)
        // The last column is right-aligned and there are no notes, so every line ends at the same column.
        #expect(lines.count == 6)
        let widths = Set(lines.map { displayWidth(of: $0) })
        #expect(widths == [2 + 17 + 2 + 16 + 2 + 6 - 2])
        // The visits column starts at the same display column on every line: 17 + 2 + 16 + 2.
        for line in lines.dropFirst(2) {
            let visits = String(line.split(separator: " ").last!)
            #expect(displayWidth(of: line) - displayWidth(of: visits) >= 37)
        }
    }

    @Test func linesHaveNoTrailingSpacesAndEndWithNewline() {
        for text in [
            Self.dailyReport().render(), Self.multilingualSources().render(),
            Self.multilingualSources().render(maxWidth: 20)
        ] {
            #expect(text.hasSuffix("\n"))
            #expect(!text.hasSuffix("\n\n"))
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                #expect(!line.hasSuffix(" "), "trailing space in \(line)")
            }
        }
    }

    @Test func missingCellsAreEmpty() {
        var table = TextTable(columns: [.init("a"), .init("b", alignment: .right)])
        table.append(["x"])
        #expect(table.render() == "a  b\n─  ─\nx\n")
    }

    @Test func titleOnlyWithoutColumns() {
        let table = TextTable(columns: [], title: "Nothing")
        #expect(table.render() == "Nothing\n")
    }

    // MARK: - Fitting a width

    @Test func nothingIsCutWithoutMaxWidth() {
        var table = TextTable(columns: [.init("name")])
        let long = String(repeating: "Интернет-магазин ", count: 20)
        table.append([long])
        #expect(!table.render().contains("…"))
        #expect(table.render().contains("Интернет-магазин Интернет-магазин"))
    }

    @Test func fitsMaxWidthCuttingTextButNotNumbers() {
        let text = Self.multilingualSources().render(maxWidth: 36)
        let lines = text.split(separator: "\n").map(String.init)
        for line in lines {
            #expect(displayWidth(of: line) <= 36, "\(line)")
        }
        for number in ["1520", "88", "7", "12345"] {
            #expect(lines.contains { $0.hasSuffix(" " + number) })
        }
        #expect(text.contains("…"))
    }

    @Test func widestTextColumnShrinksFirst() {
        var table = TextTable(columns: [.init("long"), .init("short"), .init("n", alignment: .right)])
        table.append([String(repeating: "д", count: 20), String(repeating: "s", count: 10), "123456"])
        // Natural: 20 + 2 + 10 + 2 + 6 = 40. At 35 only the 20-wide column gives up 5 columns.
        let at35 = table.render(maxWidth: 35).split(separator: "\n").map(String.init)
        #expect(at35[1] == String(repeating: "─", count: 15) + "  " + String(repeating: "─", count: 10) + "  ──────")
        #expect(at35[2] == String(repeating: "д", count: 14) + "…  ssssssssss  123456")
        // At 28 the excess is 12: 20 → 10 takes ten, then the tie goes to the right one first, then left: 9 and 9.
        let at28 = table.render(maxWidth: 28).split(separator: "\n").map(String.init)
        #expect(at28[1] == "─────────  ─────────  ──────")
        #expect(at28[2] == "дддддддд…  ssssssss…  123456")
        #expect(at28[0] == "long       short           n")
    }

    @Test func numbersAreNeverCutEvenWhenTheTableCannotFit() {
        var table = TextTable(columns: [.init("t"), .init("visits", alignment: .right)])
        table.append(["Интернет", "1234567890"])
        let lines = table.render(maxWidth: 8).split(separator: "\n").map(String.init)
        #expect(lines == ["t      visits", "─  ──────────", "…  1234567890"])
    }

    @Test func cutRespectsWideCharacters() {
        var table = TextTable(columns: [.init("phrase"), .init("n", alignment: .right)])
        table.append(["日本語テキスト", "1"])
        // 14 + 2 + 1 = 17; at 9 the phrase column is 6 wide: "日本" (4) + "…" = 5, padded to 6.
        let lines = table.render(maxWidth: 9).split(separator: "\n").map(String.init)
        #expect(lines == ["phrase  n", "──────  ─", "日本…   1"])
    }

    @Test func longTitleIsCutOnlyWithMaxWidth() {
        var table = TextTable(columns: [.init("a")], title: "Отчёт по счётчику 12345")
        table.append(["x"])
        #expect(table.render().hasPrefix("Отчёт по счётчику 12345\n"))
        #expect(table.render(maxWidth: 10).hasPrefix("Отчёт по…\n"))
    }

    @Test(arguments: [
        ("abc", 3, "abc"),
        ("abcd", 3, "ab…"),
        ("Интернет-магазин", 8, "Интерне…"),
        ("日本語テキスト", 5, "日本…"),
        ("日本語", 4, "日…"),
        ("日本語", 6, "日本語"),
        ("👨‍👩‍👧👨‍👩‍👧", 3, "👨‍👩‍👧…"),
        ("👍🏽👍🏽", 2, "…"),
        ("e\u{301}e\u{301}e\u{301}", 2, "e\u{301}…"),
        ("abc", 1, "…"),
        ("abc", 0, "")
    ])
    func truncate(_ text: String, width: Int, expected: String) {
        let cut = TextTable.truncate(text, toWidth: width)
        #expect(cut == expected)
        #expect(displayWidth(of: cut) <= width)
    }

    // MARK: - Hostile cells

    static func hostileTable() -> TextTable {
        var table = TextTable(columns: [.init("name"), .init("visits", alignment: .right)], title: "Evil\ntitle")
        table.append(["line one\nline two", "1"])
        table.append(["tab\there", "2"])
        table.append(["\u{1b}[31mred\u{1b}[0m", "3"])
        table.append(["crlf\r\nend", "4"], note: "\u{1b}]0;pwned\u{7}")
        table.append(["\u{202E}reversed", "5"])
        return table
    }

    @Test(arguments: [
        ("a\nb", "a↵b"),
        ("a\r\nb", "a↵b"),
        ("a\rb", "a↵b"),
        ("a\n\nb", "a↵↵b"),
        ("a\tb", "a b"),
        ("\u{1b}[31mred", "\\x1b[31mred"),
        ("bell\u{7}", "bell\\x07"),
        ("nul\u{0}", "nul\\x00"),
        ("del\u{7f}", "del\\x7f"),
        ("nel\u{85}x", "nel↵x"),
        ("csi\u{9b}31m", "csi\\x9b31m"),
        ("\u{202E}abc", "abc"),
        ("para\u{2029}x", "para↵x"),
        ("Интернет 日本 👨‍👩‍👧", "Интернет 日本 👨‍👩‍👧")
    ])
    func displaySafe(_ text: String, expected: String) {
        #expect(TextTable.displaySafe(text) == expected)
    }

    @Test func hostileCellsCannotBreakLinesOrReachTheTerminal() {
        let text = Self.hostileTable().render()
        // title + header + rule + five rows
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 9)
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(!text.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) })
        #expect(text.contains("\\x1b[31mred\\x1b[0m"))
        #expect(text.contains("line one↵line two"))
    }

    // MARK: - Golden files

    /// Compares `text` byte for byte with `Golden/text/<name>.txt`; with `METRIKA_RECORD_GOLDEN=1` it
    /// (re)writes the file first.
    private func expectGolden(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Golden/text/\(name).txt")
        try Golden.expect(text, matches: url, describe: "got:\n\(text)", sourceLocation: sourceLocation)
    }
}
