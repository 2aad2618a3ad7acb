import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaSystem

/// Single rules of the text table, checked line by line (the goldens show the whole picture).
@Suite("Report sinks: table rules")
struct ReportSinkTableTests {
    static func lines(_ fixture: ReportFixtures.Fixture) -> [String] {
        ReportFixtures.table(fixture).components(separatedBy: "\n")
    }

    /// Units as people read them, with the rounding edges: half away from zero on the decimal the API sent.
    @Test func unitsAndRounding() {
        let lines = Self.lines(ReportFixtures.daily())
        #expect(lines[3] == "2026-11-23     29 518     12 345     11 020        2.39         03:03        17.8%")
        #expect(lines[4] == "2026-11-24     31 002     13 001     11 800        2.38         01:00        17.8%")
        #expect(lines[5] == "2026-11-25          0          0          0           —             —            —")
        #expect(lines[6] == "2026-11-26  1 234 567  1 000 000    999 999        1.23       1:00:00         0.1%")
        #expect(lines[9] == "2026-11-29        512        300        280        1.71         00:45        33.3%  *")
        #expect(lines[11] == "Total       1 545 600  1 125 646  1 098 000        1.37         58:40         9.3%")
        #expect(lines[12] == "* today is not over yet: its numbers will still change.")
    }

    /// A report without dimensions (`"dimensions": []`, e.g. a preset over the whole period) has a
    /// label column for its Total row instead of a row one cell wider than the table.
    @Test func aReportWithoutDimensionsHasItsTotalRow() throws {
        let output = OutputWriter()
        let sink = ReportTableSink(output: output, maxWidth: nil)
        let period = DateRange(from: Day(iso: "2014-07-16")!, to: Day(iso: "2014-07-22")!)!
        sink.begin(
            ReportLayout(
                dimensions: [], metrics: [.pageviews], period: period, grouping: nil, multipleCounters: false,
                raw: false))
        sink.beginSection(counter: Counter(id: 2_138_128, name: "", site: "nixsolutions.com"), sampling: nil)
        sink.append([Report.Row(dimensions: [], values: [Quantity(53712, unit: .count)])])
        try sink.endSection(totals: [Quantity(53712, unit: .count)], missingDays: [])
        let lines = output.text.components(separatedBy: "\n")
        #expect(lines[0].hasPrefix("(no name) (2138128, nixsolutions.com)"))
        #expect(lines.contains("Total     53 712"), "\(output.text)")
    }

    /// Cells beyond the last column are dropped, never a trap.
    @Test func extraCellsAreDropped() {
        var table = TextTable(columns: [.init("A")])
        table.append(["a", "b", "c"])
        #expect(table.render() == "A\n─\na\n")
    }

    /// `--raw` shows the API's numbers and says their unit in the header.
    @Test func rawHeadersNameTheUnit() {
        let lines = Self.lines(ReportFixtures.daily(raw: true))
        #expect(ReportFixtures.daily(raw: true).layout.raw)
        #expect(
            lines[1]
                == "Date        Pageviews   Visits    Users          Page depth   Time on site, s     Bounce rate, %")
        #expect(
            lines[3]
                == "2026-11-23      29518    12345    11020               2.385           182.664            17.7786")
        // Zero is `0`, never `0.0`.
        #expect(
            lines[5]
                == "2026-11-25          0        0        0                   —                 —                  —")
    }

    @Test func undefinedNamesAndTheSamplingLine() {
        let lines = Self.lines(ReportFixtures.sources())
        #expect(lines[7].hasPrefix("(not set)                         (not set)  "))
        #expect(lines.contains("Sampled: numbers are estimates from 10.0% of visits."))
        // The hostile cells cannot reach the terminal as control characters.
        #expect(
            !ReportFixtures.table(ReportFixtures.sources()).unicodeScalars.contains {
                $0.value == 0x1B || $0 == "\t" || $0.value == 0x202E
            })
    }

    @Test func oneTitledTablePerCounter() {
        let text = ReportFixtures.table(ReportFixtures.twoCounters())
        let titles = text.components(separatedBy: "\n").filter { $0.contains(" · by week") }
        #expect(
            titles == [
                "Интернет-магазин «Ромашка» (1001, romashka-shop.ru) · 2026-11-01 … 2026-11-29 · by week",
                "<script>alert(\"x\")</script> & Co (1002, xss-and-co.example.com) · 2026-11-01 … 2026-11-29 · by week"
            ])
        #expect(text.contains("* this week is not over yet: its numbers will still change."))
        #expect(!text.contains("counter_id"))
        #expect(text.contains("2026-11-02               —      —            —\n"))
        #expect(text.contains("2026-11-01 (1 day)     340    300        30.0%\n"))
    }

    @Test func emptyPeriodSaysSo() {
        #expect(Self.lines(ReportFixtures.empty())[3] == "(no data for this period)")
    }

    /// Sparklines compare like with like: the cut first week (1 day) and the current week (not over)
    /// would read as drops, so they are left out of the line and its range, and the line says so.
    @Test func sparklinesLeaveOutPartialPeriods() {
        let lines = Self.lines(ReportFixtures.twoCounters())
        let visits = lines.filter { $0.hasPrefix("Visits ") }
        // Shop's full weeks: 17 500, 17 650, 16 980 — not 2 400 (1 day) or 15 010 (this week so far).
        #expect(visits.first == "Visits       ▆█▁  16 980 … 17 650  (partial weeks left out)", "\(visits)")
        let daily = Self.lines(ReportFixtures.daily())
        let dailyVisits = daily.filter { $0.hasPrefix("Visits ") }
        #expect(dailyVisits.first?.hasSuffix("0 … 1 000 000  (today left out)") == true, "\(dailyVisits)")
        #expect(dailyVisits.first?.contains("▁▁▁█▂▁ ") == true, "six full days, not seven: \(dailyVisits)")
    }
}
