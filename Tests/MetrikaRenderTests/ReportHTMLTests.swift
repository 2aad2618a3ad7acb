import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaSystem

/// The HTML page of `report --format html` and the mail: goldens of the report fixtures (reviewed by
/// eye), and the rules a mail reader needs (inline styles, no script, no external resource, no-break
/// values, escaped server text, accessible tables and charts). The layout at 390 and 1280 px is
/// measured in a real browser by MailBrowserEndToEndTests.
@Suite struct ReportHTMLTests {
    static func html(_ fixture: ReportFixtures.Fixture, comparisonColumns: Bool = false) -> String {
        ReportFixtures.render(fixture) {
            ReportHTMLSink(
                output: $0, comparisonColumns: comparisonColumns, footer: "Made by metrika test",
                madeAt: "Sun 29 Nov 2026 09:00 UTC")
        }
    }

    /// A week with its previous period, as `report --compare` feeds the sink.
    static func compared() -> ReportFixtures.Fixture {
        var fixture = ReportFixtures.daily()
        fixture.layout.compare = true
        return fixture
    }

    static func feedComparing(_ fixture: ReportFixtures.Fixture, previous: [Double?], comparisonColumns: Bool) throws
        -> String
    {
        let out = OutputWriter()
        let sink: any ReportSink = ReportHTMLSink(
            output: out, comparisonColumns: comparisonColumns, footer: "Made by metrika test", madeAt: nil)
        try sink.begin(fixture.layout)
        for section in fixture.sections {
            try sink.beginSection(counter: section.counter, sampling: section.sampling)
            try sink.compareSection(
                Report.Previous(
                    period: ReportFixtures.range("2026-11-16", "2026-11-22"),
                    values: ReportFixtures.values(previous, fixture.layout.metrics)))
            try sink.append(section.rows)
            try sink.endSection(totals: section.totals, missingDays: section.missingDays)
        }
        try sink.end()
        return out.text
    }

    @Test func dailyPage() throws {
        try ReportFixtures.expectGolden(Self.html(ReportFixtures.daily()), named: "daily.html")
    }
    @Test func sourcesPage() throws {
        try ReportFixtures.expectGolden(Self.html(ReportFixtures.sources()), named: "sources.html")
    }

    @Test(arguments: [
        ReportFixtures.daily(), ReportFixtures.sources(), ReportFixtures.twoCounters(), ReportFixtures.empty()
    ])
    func everyPageKeepsTheMailReadersRules(_ fixture: ReportFixtures.Fixture) throws {
        let page = Self.html(fixture)
        #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(page.contains("<title>Metrika: "))
        for forbidden in ["<style", "<script", "<link", "@media", "src=\"http", "href=", "url(", "class=\"", " id=\""] {
            #expect(!page.contains(forbidden), "\(forbidden) in the page")
        }
        // Every <svg> carries its title and description; every table header its scope.
        #expect(
            page.components(separatedBy: "<svg ").count == page.components(separatedBy: "<title>").count - 1,
            "one <title> per chart besides the page's")
        #expect(page.components(separatedBy: "<svg ").count == page.components(separatedBy: "<desc>").count)
        #expect(!page.contains("<th>") && !page.contains("<th style"), "a header cell without scope")
        // The hostile counter's name is text, never markup.
        #expect(!page.contains("<script>alert"))
    }

    @Test func valuesKeepTheFormattersTextWithNoBreakSpacesInHTMLOnly() throws {
        let page = Self.html(ReportFixtures.daily())
        // 1 234 567 pageviews: grouped by U+00A0 in HTML, by plain spaces in the table, not at all in CSV.
        #expect(page.contains(">1\u{00A0}234\u{00A0}567</td>"))
        #expect(!page.contains(">1 234 567<"))
        #expect(ReportFixtures.table(ReportFixtures.daily()).contains("1 234 567"))
        let csv = ReportFixtures.csv(ReportFixtures.daily())
        #expect(csv.contains(",1234567,") && !csv.contains("\u{00A0}"))
        // Compact dates, no-break too; durations and percents as the table writes them.
        #expect(page.contains(">Mon\u{00A0}23\u{00A0}Nov</th>"))
        #expect(page.contains(">03:03</td>") && page.contains(">17.8%</td>"))
        // Every value cell stays on one line even where the reader drops the no-break spaces.
        let cells = page.components(separatedBy: "<td ").dropFirst()
        #expect(!cells.isEmpty && cells.allSatisfy { $0.hasPrefix("align=\"right\" nowrap ") })
    }

    @Test func theSummaryShowsEachTotalAndItsChangeFirst() throws {
        let fixture = Self.compared()
        let previous: [Double?] = [1_000_000, 1_000_000, nil, 2.0, 200, 20.0]
        let page = try Self.feedComparing(fixture, previous: previous, comparisonColumns: false)
        let summary = try #require(page.range(of: "Summary")).lowerBound
        let table = try #require(page.range(of: "By day")).lowerBound
        #expect(summary < table)
        #expect(page.contains("against <span style=\"white-space:nowrap\">16–22\u{00A0}Nov\u{00A0}2026</span>"))
        // Bounce rate down is good news (green), users without a previous total show no change.
        #expect(page.contains("color:#1A7F37\">▼ -"))
        #expect(
            page.contains(
                ">Users</div><div style=\"font-size:22px;font-weight:bold;line-height:1.25;white-space:nowrap\">"))
        #expect(page.contains("—</div>"))
        // Without --compare's columns the table has one column per metric.
        #expect(!page.contains(">before</th>"))
        let withColumns = try Self.feedComparing(fixture, previous: previous, comparisonColumns: true)
        #expect(withColumns.components(separatedBy: ">before</th>").count == 7)
    }

    @Test func theChartsTitleSaysWhatItShows() throws {
        let fixture = Self.compared()
        let page = try Self.feedComparing(
            fixture, previous: [1_000_000, 2_000_000, 10, 2.0, 200, 20.0], comparisonColumns: false)
        // Visits: 2 000 000 → the fixture's total; the chart's title is the sentence.
        let section = try #require(fixture.sections.first)
        let visits = try #require(section.totals[1].value)
        let expected = HTMLText.changeSentence(
            title: "Visits", value: ValueFormatter.format(Quantity(visits, unit: .count), grouping: true, missing: "—"),
            change: Change(from: Quantity(2_000_000, unit: .count), to: Quantity(visits, unit: .count)))
        #expect(expected.hasPrefix("Visits fell "))
        #expect(page.contains("<title>\(expected)</title>"))
        #expect(page.contains("aria-label=\"\(expected)\""))
    }

    @Test(arguments: [
        (Change.relative(-12.04), "3 085", "Visits fell 12.0% to 3 085"),
        (Change.relative(5.25), "3 085", "Visits rose 5.3% to 3 085"),
        (Change.relative(0.04), "3 085", "Visits unchanged at 3 085"),
        (Change.points(0.9), "17.8%", "Visits rose 0.9 pp to 17.8%"),
        (Change.fromZero, "12", "Visits rose from 0 to 12"),
        (Change.missing, "12", "Visits: 12")
    ])
    func changeSentences(_ change: Change, _ value: String, _ sentence: String) {
        #expect(HTMLText.changeSentence(title: "Visits", value: value, change: change) == sentence)
    }

    @Test func wideTablesAreCutIntoBlocksThatFitAPhone() {
        func groups(_ table: HTMLReportPage.Table) -> [[Int]] {
            table.blocks.map { block in
                block.map(\.group).reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
            }
        }
        var table = HTMLReportPage.Table(
            keyTitle: "Date", keysAreValues: true, groups: Metric.everyday.map { [$0.title] }, rows: [])
        #expect(groups(table) == [[0, 1, 2], [3, 4, 5]])
        table.groups = Metric.everyday.map { [$0.title, "before", "change"] }
        #expect(groups(table) == [[0], [1], [2], [3], [4], [5]])
        #expect(table.blocks.allSatisfy { $0.count == 3 }, "a group that fits stays whole")
        table.groups = [["Visits"]]
        #expect(groups(table) == [[0]])
    }

    /// Money with its previous value and change is too wide for a phone beside the date (418 px at 390
    /// was cut off): the group goes on in a second block whose headers say whose columns they are.
    @Test func headingsListDimensionsAsPeopleDo() {
        #expect(HTMLReportSection.list(["source"]) == "source")
        #expect(HTMLReportSection.list(["source", "engine"]) == "source and engine")
        #expect(HTMLReportSection.list(["category", "brand", "product"]) == "category, brand and product")
    }

    @Test func aMoneyGroupTooWideForAPhoneGoesOnInTheNextBlock() {
        let rows = (23...29).map { day in
            HTMLReportPage.Table.Row(
                key: "Mon \(day) Nov",
                groups: [["12", "11", "+9.1%"], ["193\u{A0}456.12\u{A0}₽", "187\u{A0}020.50\u{A0}₽", "+3.4%"]])
        }
        let table = HTMLReportPage.Table(
            keyTitle: "Date", keysAreValues: true,
            groups: [["Purchases", "before", "change"], ["Revenue", "before", "change"]], rows: rows)
        let blocks = table.blocks
        #expect(
            blocks.first == [.init(group: 0, index: 0), .init(group: 0, index: 1), .init(group: 0, index: 2)],
            "purchases fit whole")
        #expect(blocks.count == 3, "\(blocks)")
        #expect(blocks.dropFirst().allSatisfy { $0.allSatisfy { $0.group == 1 } })
        let titles = blocks.dropFirst().map { block in block.map { table.title($0, in: block) } }
        #expect(titles.first?.first == "Revenue")
        #expect(titles.last?.allSatisfy { $0.hasPrefix("Revenue ") } == true, "\(titles)")
        for block in blocks {
            let widths = block.map { column in
                rows.map { ChartTicks.estimatedWidth(of: $0.groups[column.group][column.index], fontSize: 14) }.max()!
                    + 10
            }
            #expect(
                widths.reduce(0, +) + ChartTicks.estimatedWidth(of: "Mon 23 Nov", fontSize: 14)
                    <= HTMLReportPage.Table.phoneWidth)
        }
    }

    @Test func aDimensionReportShowsItsTopRowsAsBars() throws {
        let page = Self.html(ReportFixtures.sources())
        let fixture = ReportFixtures.sources()
        let shown = min(fixture.sections[0].rows.count, HTMLReportSection.barCount)
        // One bar per top row: a 12 px high rect each, besides the background.
        #expect(page.components(separatedBy: "height=\"12\" fill=\"#0072B2\"").count - 1 == shown)
        #expect(page.contains("<th scope=\"row\""))
    }

    @Test func chartsAreDrawnForAPhoneColumnWithTextOfAtLeast12px() throws {
        let fixture = ReportFixtures.daily()
        let section = HTMLReportSection(
            counter: fixture.sections[0].counter, layout: fixture.layout, rows: fixture.sections[0].rows,
            totals: fixture.sections[0].totals, previous: nil, comparisonColumns: false)
        let charts = section.lineCharts(metrics: fixture.layout.metrics)
        #expect(charts.count == 6)
        for chart in charts {
            let svg = chart.document()
            #expect(
                svg.contains("width=\"360\"") && svg.contains("<rect x=\"0\" y=\"0\" width=\"360\""),
                "a white background")
            let sizes = svg.matches(of: /font-size="([0-9.]+)"/).compactMap { Double($0.output.1) }
            #expect(!sizes.isEmpty && sizes.min()! >= CompactLineChart.smallestFontSize)
            #expect(!svg.contains(" id=\""), "several charts share a page")
        }
    }

    /// Money in the mail and the page as `metrika chart` draws it (docs/charts.md): axis labels with the
    /// currency's sign, from 0 (an average order value axis started at 2k and its labels had no ₽).
    @Test func moneyChartsHaveTheirSignOnTheAxisAndStartAtZero() throws {
        let range = ReportFixtures.range("2026-11-16", "2026-11-22")
        let values: [Double] = [3_150.5, 3_020, 2_990.25, 3_300, 3_100, 2_950, 3_050]
        let points = zip(range.days, values).map { (day: $0, value: Optional($1)) }
        let aov = Metric.revenuePerPurchase.inCurrency(Currency(code: "RUB")!)
        let chart = CompactLineChart(
            series: Series(counter: Counter(id: 1001, name: "Shop", site: "s.example"), metric: aov, points: points),
            period: range, connectsAcrossDays: false, heading: "Average order value", message: "m", detail: "d")
        let svg = chart.document()
        let axis = svg.matches(of: /<text x="[0-9.]+" y="[0-9.]+">([^<]*)<\/text>/).map { String($0.output.1) }.filter {
            !$0.hasSuffix(" Nov")
        }
        #expect(axis.contains("0 ₽"), "\(axis)")
        #expect(axis.filter { $0 != "0 ₽" }.allSatisfy { $0.hasSuffix(" ₽") }, "\(axis)")
    }

    @Test(arguments: [
        ("2026-11-24", "Tue 24 Nov"), ("2026-11-30", "Mon 30 Nov"), ("2027-01-03", "Sun 3 Jan")
    ])
    func compactDates(_ iso: String, _ text: String) {
        #expect(CompactDate.day(Day(iso: iso)!) == text)
    }

    @Test func compactRanges() {
        #expect(CompactDate.range(ReportFixtures.range("2026-11-16", "2026-11-22")) == "16–22 Nov 2026")
        #expect(CompactDate.range(ReportFixtures.range("2026-11-28", "2026-12-04")) == "28 Nov – 4 Dec 2026")
        #expect(CompactDate.range(ReportFixtures.range("2025-12-29", "2026-01-04")) == "29 Dec 2025 – 4 Jan 2026")
        #expect(CompactDate.stamp(Date(timeIntervalSince1970: 1_795_597_200)) == "Wed 25 Nov 2026 09:00 UTC")
    }

    /// A counter name with a C1 CSI (U+009B, an escape sequence's start on a terminal) and an ESC:
    /// neither reaches the page, which `report --format html` may print to a terminal.
    @Test func controlCharactersOfServerTextNeverReachThePage() {
        var fixture = ReportFixtures.daily()
        fixture.sections[0].counter = Counter(id: 1001, name: "Shop\u{9B}31m red \u{1B}[2J", site: "shop.example")
        let page = Self.html(fixture)
        #expect(page.contains("Shop31m red [2J"))
        #expect(!page.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) })
    }
}
