import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaSystem

/// Issue 24 item 2: on a narrow terminal the key column (date, source, phrase) never shrinks to `…`;
/// a table wider than the terminal drops `--compare`'s "before" columns first, then splits the metrics
/// into blocks that each repeat the key. Pipes and files (no width) keep the full table.
@Suite("Report sinks: narrow terminals")
struct NarrowTableTests {
    /// The default report, one week by day, with `--compare`: every value beside the one a week before.
    static func compared(metrics: [Metric] = Metric.everyday) -> ReportFixtures.Fixture {
        let period = ReportFixtures.range("2026-11-23", "2026-11-29")
        let layout = ReportLayout(
            dimensions: [], metrics: metrics, period: period, grouping: .day, multipleCounters: false, raw: false,
            compare: true)
        let now: [Double] = [11_777, 4_669, 3_978, 2.52, 176, 30.9]
        let before: [Double] = [10_474, 3_972, 3_431, 2.64, 190, 26.7]
        let pick = metrics.map { metric in Metric.everyday.firstIndex(of: metric)! }
        let rows = period.days.enumerated().map { index, day in
            let scale = 1 + Double(index) / 10
            return Report.Row(
                dimensions: [DimensionValue(name: day.iso)],
                values: ReportFixtures.values(pick.map { now[$0] * ($0 < 3 ? scale : 1) }, metrics),
                isIncomplete: index == 6, period: DateRange(from: day, to: day),
                previous: Report.Previous(
                    period: DateRange(from: day.adding(days: -7), to: day.adding(days: -7))!,
                    values: ReportFixtures.values(pick.map { before[$0] }, metrics)))
        }
        let previous = Report.Previous(
            period: ReportFixtures.range("2026-11-16", "2026-11-22"),
            values: ReportFixtures.values(pick.map { before[$0] }, metrics))
        let totals = ReportFixtures.values(pick.map { now[$0] }, metrics)
        return ReportFixtures.Fixture(
            layout: layout,
            sections: [
                ReportFixtures.Section(counter: ReportFixtures.shop, rows: rows, totals: totals, previous: previous)
            ])
    }

    static func lines(_ text: String) -> [String] { text.components(separatedBy: "\n").filter { !$0.isEmpty } }

    /// Every line fits, and every body line (a date or Total) starts with its whole key.
    static func expectKeysWhole(
        _ text: String, width: Int, keys: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for line in lines(text) {
            #expect(
                displayWidth(of: line) <= width, "\(displayWidth(of: line)) > \(width): \(line)",
                sourceLocation: sourceLocation)
        }
        #expect(!text.contains("\n…"), "a key cut to …:\n\(text)", sourceLocation: sourceLocation)
        for key in keys {
            #expect(
                text.contains("\n" + key + " "), "no line starts with \(key):\n\(text)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [60, 80])
    func theDailyReportKeepsItsDates(width: Int) throws {
        let text = ReportFixtures.table(ReportFixtures.daily(), maxWidth: width)
        Self.expectKeysWhole(text, width: width, keys: ["2026-11-23", "2026-11-29", "Total"])
        // Every metric is still there, each once per block header.
        for title in ["Pageviews", "Visits", "Users", "Page depth", "Time on site", "Bounce rate"] {
            #expect(
                text.components(separatedBy: title).count - 1 == 2, "\(title): in its header and its sparkline\n\(text)"
            )
        }
        try ReportFixtures.expectGolden(text, named: "daily_width\(width).txt")
    }

    @Test(arguments: [60, 80])
    func compareDropsTheBeforeColumnsFirst(width: Int) throws {
        let text = ReportFixtures.table(Self.compared(), maxWidth: width)
        Self.expectKeysWhole(text, width: width, keys: ["2026-11-23", "2026-11-29", "Total"])
        #expect(!text.contains("before  "), "\(text)")
        #expect(text.contains("\"before\" values left out to fit; --csv and --json keep them."))
        // Below the edge the sink names no option: without its caller's words the note says only that.
        let plain = ReportFixtures.render(Self.compared()) { ReportTableSink(output: $0, maxWidth: width) }
        #expect(plain.contains("\"before\" values left out to fit.\n"), "\(plain)")
        #expect(!plain.contains("--"), "\(plain)")
        // The title's period is broken onto a line of its own, not cut.
        #expect(text.contains("2026-11-23 … 2026-11-29"), "\(text)")
        #expect(text.contains("against 2026-11-16 … 2026-11-22"), "\(text)")
        try ReportFixtures.expectGolden(text, named: "compare_width\(width).txt")
    }

    /// A comparison that fits keeps its "before" columns: they go only when needed.
    @Test func aComparisonThatFitsKeepsEverything() {
        let text = ReportFixtures.table(Self.compared(metrics: [.visits, .bounceRate]), maxWidth: 80)
        #expect(text.contains("before") && !text.contains("values left out"), "\(text)")
        // The same table as in a pipe; only the title is broken into lines.
        let table = { (text: String) in text.components(separatedBy: "\n").drop { !$0.hasPrefix("Date") } }
        #expect(
            table(text) == table(ReportFixtures.table(Self.compared(metrics: [.visits, .bounceRate]), maxWidth: nil)))
    }

    /// Cyrillic and CJK keys keep their width and alignment at 60 columns.
    @Test func multilingualSourcesAt60() throws {
        let text = ReportFixtures.table(ReportFixtures.sources(), maxWidth: 60)
        for line in Self.lines(text) { #expect(displayWidth(of: line) <= 60, "\(line)") }
        #expect(!text.contains("\n…"), "\(text)")
        try ReportFixtures.expectGolden(text, named: "sources_width60.txt")
    }

    /// A pipe or a file (no width) gets the table unchanged, however wide.
    @Test func withoutAWidthNothingChanges() {
        let text = ReportFixtures.table(Self.compared(), maxWidth: nil)
        #expect(text.contains("before") && !text.contains("values left out"))
        #expect(Self.lines(text).contains { displayWidth(of: $0) > 120 })
    }

    /// Blocks share the metrics out evenly and keep a change beside its value.
    @Test func blocksAreEvenAndKeepChangesWithTheirValues() {
        var table = TextTable(
            columns: [.init("Date")] + (1...6).map { TextTable.Column("metric\($0)", alignment: .right) })
        table.keyColumnCount = 1
        table.append(["2026-11-23"] + (1...6).map { "\($0)00000" })
        let lines = Self.lines(table.render(maxWidth: 60))
        let headers = lines.filter { $0.hasPrefix("Date") }
        #expect(
            headers == ["Date        metric1  metric2  metric3", "Date        metric4  metric5  metric6"], "\(lines)")

        var pairs = TextTable(
            columns: [.init("Source")]
                + (1...3).flatMap {
                    [
                        TextTable.Column("value\($0)", alignment: .right),
                        TextTable.Column("change", alignment: .right, staysWithPrevious: true)
                    ]
                })
        pairs.keyColumnCount = 1
        pairs.append(["Search engines", "1 000 000", "+5.0%", "2 000 000", "-1.0%", "3 000 000", "+0.5%"])
        let split = Self.lines(pairs.render(maxWidth: 50))
        for header in split.filter({ $0.hasPrefix("Source") }) {
            #expect(header.hasSuffix("change"), "a value left without its change: \(split)")
        }
    }

    /// A key too wide to stand beside even one metric is cut, but only as far as needed.
    @Test func anOverlongKeyIsCutOnlyAsFarAsNeeded() {
        var table = TextTable(columns: [.init("Search phrase"), .init("Visits", alignment: .right)])
        table.keyColumnCount = 1
        table.append([String(repeating: "очень длинная фраза ", count: 6), "12"])
        let lines = Self.lines(table.render(maxWidth: 40))
        #expect(lines.allSatisfy { displayWidth(of: $0) <= 40 }, "\(lines)")
        // 40 columns less the gap and "Visits": the key keeps 32.
        #expect(lines[2].hasPrefix("очень длинная фраза очень длинн…      12"), "\(lines)")
    }
}

/// Issue 24 item 8: `--compare` colours by meaning: a rising bounce rate is bad news (red).
@Suite("Report sinks: changes coloured by meaning")
struct ChangeColourTests {
    /// Marks instead of escapes: `[good +5.2%]`, `[bad +1.5 pp]`.
    static func table(_ fixture: ReportFixtures.Fixture, maxWidth: Int? = nil) -> String {
        ReportFixtures.render(fixture) { out in
            ReportTableSink(output: out, maxWidth: maxWidth) { text, good in
                guard let sign = text.first, sign == "+" || sign == "-", good != .neither else { return text }
                return ((sign == "+") == (good == .up) ? "[good " : "[bad ") + text + "]"
            }
        }
    }

    @Test func aRisingBounceRateIsBadNewsAndMoreVisitsGood() {
        let text = Self.table(NarrowTableTests.compared(metrics: [.visits, .bounceRate]))
        let total = text.components(separatedBy: "\n").first { $0.hasPrefix("Total") } ?? ""
        // Visits 3 972 → 4 669 (+17.5%, good); bounce rate 26.7% → 30.9% (+4.2 pp, bad).
        #expect(total.contains("[good +17.5%]") && total.contains("[bad +4.2 pp]"), "\(text)")
        // Only the change cells: values and previous values stay plain.
        #expect(!text.contains("[good 4") && !text.contains("[bad 3"), "\(text)")
    }

    @Test func directionsByMetric() {
        #expect(Metric.bounceRate.goodDirection == .down)
        #expect(Metric.robotPercentage.goodDirection == .down)
        #expect(Metric.visits.goodDirection == .up)
        #expect(Metric.avgVisitDuration.goodDirection == .up)
        #expect(Metric.percentNewVisitors.goodDirection == .neither)
        #expect(Metric.named("ym:pv:bounceRate")?.goodDirection == .down)
        #expect(Metric.named("goal7reaches")?.goodDirection == .up)
        #expect(Metric.named("ym:s:somethingNew")?.goodDirection == .neither)
    }

    /// Colour survives the split of a narrow terminal: each change keeps its metric's meaning.
    @Test func coloursFollowTheirColumnsIntoBlocks() {
        let text = Self.table(NarrowTableTests.compared(), maxWidth: 60)
        let total = text.components(separatedBy: "\n").filter { $0.hasPrefix("Total") }.joined(separator: "\n")
        #expect(total.contains("[bad +4.2 pp]") && total.contains("[good +17.5%]"), "\(text)")
    }
}
