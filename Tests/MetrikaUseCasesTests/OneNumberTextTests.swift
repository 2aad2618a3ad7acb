import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaSystem
@testable import MetrikaUseCases

/// One value reads the same in every renderer: the report table, CSV, JSON, the charts' labels and
/// alt text, the HTML page, the mail's text part and the alert line. One rounding rule (the shortest
/// decimal, half away from zero: `DecimalText`) and one grouper (`DigitGroups`); CSV keeps its
/// documented machine form (no grouping, no currency sign, `h:mm:ss`), JSON the API's number.
///
/// The values sit where binary rounding and decimal rounding part: 2.385 is 2.38499999… as a double
/// (`2.38` by `printf`), 17.45 is 17.4499999… (`17.4%`), 86 187.635 is 86 187.634999… (`86 187.63`).
@Suite struct OneNumberTextTests {
    struct Case: Sendable, CustomStringConvertible {
        var metric: Metric
        var value: Double
        /// The table's text, and every other renderer's for people.
        var text: String
        var csv: String
        var json: String
        var description: String { metric.shortName }
    }

    static let cases: [Case] = [
        Case(metric: .pageDepth, value: 2.385, text: "2.39", csv: "2.39", json: "2.385"),
        Case(
            metric: Metric.revenue.inCurrency(.rub), value: 86_187.635, text: "86 187.64 ₽", csv: "86187.64",
            json: "86187.635"),
        Case(metric: .avgVisitDuration, value: 182.5, text: "03:03", csv: "0:03:03", json: "182.5"),
        Case(metric: .bounceRate, value: 17.45, text: "17.5%", csv: "17.5%", json: "17.45"),
        Case(metric: .visits, value: 3085, text: "3 085", csv: "3085", json: "3085")
    ]

    static let shop = Counter(id: 1001, name: "Shop", site: "shop.example")
    static let week = days("2026-11-23", "2026-11-29")
    static let before = days("2026-11-16", "2026-11-22")

    /// The week's rows: the case's value on the last day, smaller ones before (so it is the last value
    /// of every chart and the highest of its description).
    static func rows(_ item: Case) -> [Report.Row] {
        let quantity = { (value: Double) in Quantity(value, unit: item.metric.unit, currency: item.metric.currency) }
        return week.days.map { day in
            let value = day == week.to ? item.value : item.value / 2
            return Report.Row(
                dimensions: [DimensionValue(name: day.iso)], values: [quantity(value)],
                period: DateRange(from: day, to: day))
        }
    }

    static func layout(_ item: Case) -> ReportLayout {
        ReportLayout(
            dimensions: [], metrics: [item.metric], period: week, grouping: .day, multipleCounters: false, raw: false)
    }

    /// The value as the total too: every renderer shows it at least there.
    static func total(_ item: Case) -> Quantity {
        Quantity(item.value, unit: item.metric.unit, currency: item.metric.currency)
    }

    static func render(_ item: Case, _ makeSink: (OutputWriter) -> any ReportSink) throws -> String {
        let out = OutputWriter()
        let sink = makeSink(out)
        try sink.begin(layout(item))
        try sink.beginSection(counter: shop, sampling: nil)
        try sink.append(rows(item))
        try sink.endSection(totals: [total(item)], missingDays: [])
        try sink.end()
        return out.text
    }

    static func section(_ item: Case) -> MailReport.Section {
        MailReport.Section(
            counter: shop, current: week, previous: before, metrics: [item.metric], grouping: .day, rows: rows(item),
            dailyRows: rows(item), totals: [total(item)],
            previousTotals: [Quantity(item.value / 2, unit: item.metric.unit, currency: item.metric.currency)],
            missingDays: [], svg: Data())
    }

    @Test(arguments: cases)
    func theTableCSVAndJSONWriteTheSameDigits(_ item: Case) throws {
        let table = try Self.render(item) { ReportTableSink(output: $0, maxWidth: nil) }
        let totalLine = try #require(table.split(separator: "\n").first { $0.hasPrefix("Total") })
        #expect(totalLine.hasSuffix(" " + item.text), "\(table)")
        let csv = try Self.render(item) { ReportCSVSink(output: $0) }
        let lastRow = try #require(csv.split(separator: "\n").first { $0.hasPrefix(Self.week.to.iso) })
        #expect(lastRow == Substring(Self.week.to.iso + "," + item.csv), "\(csv)")
        let json = try Self.render(item) { ReportJSONSink(output: $0) }
        #expect(json.contains(item.json), "\(json)")
        #expect(Double(item.json) == item.value, "JSON carries the API's number itself")
    }

    @Test(arguments: cases)
    func chartsLabelAndDescribeTheValueAsTheTableWritesIt(_ item: Case) throws {
        let label = ChartValueFormat.label(item.value, unit: item.metric.unit, currency: item.metric.currency)
        // Counts alone are compact on a chart's label, as dashboards write them; their alt text is the table's.
        #expect(label == (item.metric.unit == .count ? "3.1k" : item.text))
        let series = Series(
            counter: Self.shop, metric: item.metric,
            points: Self.rows(item).map { ($0.period!.from, $0.values[0].value) })
        let svg = SVGLineChart(series: [series], period: Self.week, title: "Shop").render()
        #expect(svg.contains(">" + XMLEscape.text(label) + "</text>"), "the last-value label")
        #expect(svg.contains(label + " on " + Self.week.to.iso), "the description")
        let html = HTMLReportSection(
            counter: Self.shop, layout: Self.layout(item), rows: Self.rows(item), totals: [Self.total(item)],
            previous: nil, comparisonColumns: false)
        let chart = try #require(html.lineCharts(metrics: [item.metric]).first)
        #expect(chart.message == item.metric.title + ": " + item.text, "the alt text")
        #expect(chart.detail.contains("highest " + item.text + " ("), "\(chart.detail)")
    }

    @Test(arguments: cases)
    func theHTMLPageAndTheMailWriteTheTablesText(_ item: Case) throws {
        let page = try Self.render(item) {
            ReportHTMLSink(output: $0, comparisonColumns: false, footer: "test", madeAt: nil)
        }
        #expect(page.contains(">" + HTMLText.unbroken(item.text) + "<"), "a value in HTML: its spaces no-break")
        // Outside the inline charts (SVG text never wraps) a value never has a breakable space.
        let prose = page.replacingOccurrences(of: #"<svg[\s\S]*?</svg>"#, with: "", options: .regularExpression)
        #expect(!item.text.contains(" ") || !prose.contains(item.text), "never with breakable spaces")
        let section = Self.section(item)
        let text = try MailReport.plainText([section], metrics: [item.metric], files: ["chart.svg"])
        // The comparison table's row (the last line that starts with the metric's title; the first is the sparkline's).
        let change = try #require(text.split(separator: "\n").last { $0.hasPrefix(item.metric.title + " ") })
        #expect(change.contains(" " + item.text + " "), "the mail's comparison: \(change)")
        #expect(MailReport.format(Self.total(item)) == item.text)
        let mailHTML = MailReport.htmlSection(section, metrics: [item.metric]).section(figures: [])
        let rendered = HTMLReportPage(title: "t", sections: [mailHTML], footer: "f", maxWidth: MailReport.mailWidth)
            .render()
        #expect(rendered.contains(HTMLText.unbroken(item.text)), "the mail's HTML part")
    }

    /// Alerts judge counts and money: their lines write the day's value as the table does.
    @Test(arguments: cases.filter { $0.metric.unit == .count || $0.metric.unit == .money })
    func anAlertLineWritesTheTablesText(_ item: Case) async throws {
        let judgement = AlertJudgement(
            day: Self.week.to, value: item.value, expected: item.value * 3, baselineDays: 4, score: -9, kind: .drop,
            since: nil)
        let finding = AlertCheck.Finding(
            counter: Self.shop, metric: item.metric, goalName: nil, judgement: judgement, notice: .alert(.drop),
            recent: [(Self.week.to, item.value)], provisional: false)
        let line = AlertText.line(finding)
        #expect(line.contains(": \(item.metric.shortName) \(item.text) on Sun 2026-11-29, expected ~"), "\(line)")
        #expect(AlertText.chartDescription(finding).contains(" \(item.text) on "))
        // The alert mail's HTML: the line's values kept whole (no-break spaces), its words free to wrap.
        let message = try await AlertMail.compose(
            [finding], sender: try MIMEAddress("m@example.com"), recipients: [try MIMEAddress("o@example.com")],
            rasterizer: AlertTextTests.FakeRasterizer(), activity: RecordedActivity())
        let html = try #require(Self.htmlPart(message.body))
        // The date whole too (it broke at 390 px as `Sun 2026-` / `11-29`).
        #expect(
            html.contains(
                " \(item.metric.shortName) \(HTMLText.unbroken(item.text)) on <span style=\"white-space:nowrap\">Sun\u{00A0}2026-11-29</span>"
            ), "\(html)")
    }

    static func htmlPart(_ part: MIMEPart) -> String? {
        switch part.content {
        case .text(let text, let subtype): return subtype == "html" ? text : nil
        case .binary: return nil
        case .multipart(_, let parts): return parts.lazy.compactMap(htmlPart).first
        }
    }

    /// An alert line in HTML wraps at its words, never inside a value; server text stays escaped.
    @Test func proseKeepsNumbersWholeAndWordsFree() {
        let line = "520007 Shop <1>: revenue 77 035.78 ₽ on Sun 2026-11-29, expected ~240 000 ₽ (-68%)"
        #expect(
            HTMLText.prose(line)
                == "520007 Shop &lt;1&gt;: revenue 77\u{00A0}035.78\u{00A0}₽ on <span style=\"white-space:nowrap\">Sun\u{00A0}2026-11-29</span>, expected ~240\u{00A0}000\u{00A0}₽ (-68%)"
        )
        #expect(HTMLText.prose("visits 200 on Sun") == "visits 200 on Sun")
    }

    /// The one grouper, from both of its paths (String and bytes).
    @Test(arguments: [
        ("0", "0"), ("999", "999"), ("1000", "1 000"), ("-1234567.891", "-1 234 567.891"), ("123456", "123 456"),
        ("12.5%", "12.5%"), ("n/a", "n/a")
    ])
    func digitsAreGroupedInThreesFromTheRight(_ plain: String, _ grouped: String) {
        #expect(DigitGroups.group(plain) == grouped)
        guard let value = Double(plain) else { return }
        let digits = plain.firstIndex(of: ".").map { plain.distance(from: $0, to: plain.endIndex) - 1 } ?? 0
        let bytes = ValueBytes.text({ "declined" }) {
            ValueBytes.fixed(value, fractionDigits: digits, grouping: true, into: $0)
        }
        #expect(bytes == grouped)
    }
}
