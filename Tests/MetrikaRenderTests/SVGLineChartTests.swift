import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel
@testable import MetrikaRender

@Suite("SVG line charts", .ownThreads)
struct SVGLineChartTests {
    typealias S = ChartTestSupport

    // MARK: - Sample charts (each one is a golden, and each is checked by Python's XML parser)

    static func thirtyDays() -> SVGLineChart {
        let range = S.range("2026-10-31", "2026-11-29")
        var points = S.wave(range, base: 1200, amplitude: 500, trend: 12)
        // Nov 10–11 are unknown (nil) and Nov 20 is absent altogether: both must be gaps.
        for index in points.indices where ["2026-11-10", "2026-11-11"].contains(points[index].day.iso) {
            points[index].value = nil
        }
        points.removeAll { $0.day.iso == "2026-11-20" }
        points[points.count - 1].value = 640 // today, half a day in
        let visits = Series(counter: S.shop, metric: .visits, points: points, incompleteFrom: S.day("2026-11-29"))
        return SVGLineChart(
            series: [visits], period: range, title: "Shop — shop.example", subtitle: "2026-10-31 – 2026-11-29, daily")
    }

    static func threeUnits() -> SVGLineChart {
        let range = S.range("2026-09-01", "2026-11-29")
        var series: [Series] = []
        for (offset, counter) in [S.shop, S.blog].enumerated() {
            series.append(
                Series(
                    counter: counter, metric: .visits,
                    points: S.wave(range, base: 9000 - Double(offset) * 4000, amplitude: 2500, trend: 20, phase: offset)
                ))
            series.append(
                Series(
                    counter: counter, metric: .bounceRate,
                    points: S.wave(range, base: 22 + Double(offset) * 9, amplitude: 6, phase: offset + 2).map {
                        ($0.day, $0.value.map { $0 + 0.37 })
                    }))
            series.append(
                Series(
                    counter: counter, metric: .avgVisitDuration,
                    points: S.wave(range, base: 150 + Double(offset) * 80, amplitude: 60, phase: offset + 4)))
        }
        return SVGLineChart(
            series: series, period: range, title: "Shop and Блог о кофе", subtitle: "2026-09-01 – 2026-11-29",
            sampledShare: 0.1, width: 900, height: 640)
    }

    static let hostileName = "<script>alert(\"x\")</script> & Co"

    static func hostile() -> SVGLineChart {
        let range = S.range("2026-11-16", "2026-11-29")
        let evil = Counter(id: 1, name: hostileName, site: "\"><svg onload=alert(1)>&amp;")
        let other = Counter(id: 2, name: "Tom's \"quoted\" ]]> site\u{1}\u{FFFE}", site: "x.example")
        let series = [
            Series(counter: evil, metric: .visits, points: S.wave(range, base: 300, amplitude: 100)),
            Series(counter: other, metric: .visits, points: S.wave(range, base: 200, amplitude: 80, phase: 3))
        ]
        return SVGLineChart(
            series: series, period: range, title: hostileName + " — \"><svg onload=alert(1)>",
            subtitle: "<b>bold</b> & 'quotes'")
    }

    static func tenYears() -> SVGLineChart {
        let range = S.range("2016-12-01", "2026-11-29")
        var points = S.wave(range, base: 400, amplitude: 90, trend: 1.1)
        // A fortnight lost in 2020: the line must break there even at this density.
        for index in points.indices
        where points[index].day >= S.day("2020-03-01") && points[index].day <= S.day("2020-03-14") {
            points[index].value = nil
        }
        return SVGLineChart(
            series: [Series(counter: S.shop, metric: .visits, points: points)], period: range, title: "Shop",
            subtitle: "ten years, daily")
    }

    static func oneDay() -> SVGLineChart {
        let range = S.range("2026-11-29", "2026-11-29")
        let series = [
            Series(
                counter: S.shop, metric: .pageDepth, points: [(S.day("2026-11-29"), 2.37)],
                incompleteFrom: S.day("2026-11-29")),
            Series(
                counter: S.blog, metric: .pageDepth, points: [(S.day("2026-11-29"), 1.81)],
                incompleteFrom: S.day("2026-11-29"))
        ]
        return SVGLineChart(series: series, period: range, title: "Page depth today", width: 480, height: 300)
    }

    static func noData() -> SVGLineChart {
        let range = S.range("2026-11-01", "2026-11-29")
        let points: [(day: Day, value: Double?)] = range.days.map { ($0, nil) }
        return SVGLineChart(
            series: [Series(counter: S.shop, metric: .users, points: points)], period: range, title: "Shop",
            subtitle: "nothing synced yet")
    }

    static let goldens: [(String, @Sendable () -> SVGLineChart)] = [
        ("thirty_days_gaps_today", thirtyDays), ("three_units_two_counters_sampled", threeUnits),
        ("hostile_names", hostile),
        ("ten_years", tenYears), ("one_day", oneDay), ("no_data", noData),
        ("small_and_large_small_multiples", smallAndLarge)
    ]

    @Test(arguments: goldens.map(\.0))
    func matchesGoldenAndParsesAsSafeSVG(_ name: String) throws {
        let chart = try #require(Self.goldens.first { $0.0 == name }).1()
        let svg = chart.render()
        try S.expectGolden(svg, named: name)
        let report = try S.checkSVG(svg)
        #expect(report.ok, "\(name): \(report.problems)")
        #expect(report.viewBox == "0 0 \(chart.width) \(chart.height)")
        #expect(svg == chart.render(), "rendering twice must give the same bytes")
    }

    // MARK: - Safety

    @Test func hostileNamesStayInertText() throws {
        let svg = Self.hostile().render()
        #expect(!svg.contains("<script"))
        #expect(!svg.contains("<svg onload"))
        #expect(!svg.contains("<b>"))
        #expect(svg.contains("&lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; Co"))
        #expect(!svg.unicodeScalars.contains { $0.value == 1 || $0.value == 0xFFFE })
        let report = try S.checkSVG(svg)
        #expect(report.ok, "\(report.problems)")
        #expect(report.elements?["script"] == nil)
        // After parsing, the name is exactly the original text, in the legend and in the title.
        let texts = try #require(report.texts)
        #expect(texts.contains(Self.hostileName))
        #expect(texts.contains("Tom's \"quoted\" ]]> site"))
        #expect(report.title?.hasPrefix(Self.hostileName) == true)
    }

    // MARK: - Gaps, today, values

    func chart(_ values: [Double?], incompleteFromIndex: Int? = nil, dropIndex: Int? = nil) -> String {
        let range = S.range("2026-11-01", S.day("2026-11-01").adding(days: values.count - 1).iso)
        var points: [(day: Day, value: Double?)] = zip(range.days, values).map { ($0, $1) }
        if let dropIndex { points.remove(at: dropIndex) }
        let incomplete = incompleteFromIndex.map { range.days[$0] }
        return SVGLineChart(
            series: [Series(counter: S.shop, metric: .visits, points: points, incompleteFrom: incomplete)],
            period: range, title: "t"
        ).render()
    }

    func paths(_ svg: String) -> [String] {
        svg.split(separator: "\n").filter { $0.hasPrefix("<path d=\"M") }.map(String.init)
    }

    func pointCount(_ path: String) -> Int { path.filter { $0 == "M" || $0 == "L" }.count }

    @Test func missingDaysBreakTheLineInsteadOfDroppingToZero() {
        let explicitGap = paths(chart([5, 6, nil, nil, 7, 8]))
        #expect(explicitGap.count == 2)
        #expect(explicitGap.map(pointCount) == [2, 2])
        let absentDay = paths(chart([5, 6, 99, 7, 8], dropIndex: 2))
        #expect(absentDay.count == 2, "a day missing from the list is a gap too")
        #expect(absentDay.map(pointCount) == [2, 2])
        let full = paths(chart([5, 6, 6, 7, 8]))
        #expect(full.count == 1 && pointCount(full[0]) == 5)
    }

    @Test func weeklyPointsAreJoinedWhenAskedButDailyOnesAreNot() {
        let range = S.range("2026-11-02", "2026-11-29")
        let weekly: [(day: Day, value: Double?)] = [
            (S.day("2026-11-02"), 700), (S.day("2026-11-09"), 800), (S.day("2026-11-16"), nil),
            (S.day("2026-11-23"), 750)
        ]
        var chart = SVGLineChart(
            series: [Series(counter: S.shop, metric: .visits, points: weekly)], period: range, title: "t")
        #expect(paths(chart.render()).count == 0, "as daily data, days 3–8 are missing: dots only")
        chart.connectsAcrossDays = true
        let joined = paths(chart.render())
        #expect(joined.count == 1 && pointCount(joined[0]) == 2, "joined, but the nil week still breaks the line")
    }

    @Test func aDayAloneBetweenGapsIsADot() {
        let svg = chart([nil, 7, nil, 4, 5])
        #expect(paths(svg).count == 1)
        #expect(svg.contains("<circle") && svg.contains("r=\"2.5\""))
    }

    @Test func theIncompleteDayIsDottedAndSaysSo() {
        let svg = chart([5, 6, 7, 3], incompleteFromIndex: 3)
        let all = paths(svg)
        #expect(all.count == 2)
        let dotted = all.filter { $0.contains("stroke-dasharray=\"\(ChartPalette.incompleteDashArray)\"") }
        #expect(dotted.count == 1)
        #expect(dotted.first.map(pointCount) == 2, "from the last complete day to today")
        #expect(svg.contains("today (incomplete)"))
        #expect(
            svg.contains("fill=\"#FFFFFF\" stroke=\"#0072B2\""), "the last-value marker is hollow for an incomplete day"
        )
    }

    @Test func theLastValueIsLabelled() {
        let svg = chart([1000, 12_345])
        #expect(svg.contains(">12k</text>"))
    }

    @Test func aSampledChartSaysSo() {
        let svg = Self.threeUnits().render()
        #expect(svg.contains("Sampled data: estimates from 10% of visits."))
        #expect(!Self.thirtyDays().render().contains("Sampled"))
    }

    @Test func unitsGetTheirOwnPanelsAndCountersShareOne() {
        let chart = Self.threeUnits()
        let panels = chart.panelGroups()
        #expect(panels.map(\.unit) == [.count, .percent, .seconds])
        #expect(panels.map(\.seriesIndices) == [[0, 3], [1, 4], [2, 5]])
        let svg = chart.render()
        #expect(svg.contains(">Bounce rate (%)</text>"))
        #expect(svg.contains(">Time on site (mm:ss)</text>"))
        #expect(svg.contains(">Shop · Visits</text>"))
        #expect(svg.contains(">Блог о кофе · Bounce rate</text>"))
    }

    // MARK: - Charts that do not mislead

    /// Two counters of very different size: 4 thousand vs 600 thousand visits a day.
    static func smallAndLarge() -> SVGLineChart {
        let range = S.range("2026-11-02", "2026-11-29")
        let series = [
            Series(counter: S.shop, metric: .visits, points: S.wave(range, base: 600_000, amplitude: 60_000)),
            Series(counter: S.blog, metric: .visits, points: S.wave(range, base: 4_000, amplitude: 900, phase: 2))
        ]
        return SVGLineChart(
            series: series, period: range, title: "Shop, Блог о кофе", subtitle: "2026-11-02 – 2026-11-29, daily",
            height: 560)
    }

    @Test func seriesMoreThanTenTimesApartGetTheirOwnPanels() throws {
        let chart = Self.smallAndLarge()
        #expect(
            chart.panelGroups().map(\.seriesIndices) == [[0], [1]], "small multiples: one panel (and axis) per counter")
        #expect(chart.panelCount == 2)
        let svg = chart.render()
        #expect(
            svg.contains(">Visits · Shop</text>") && svg.contains(">Visits · Блог о кофе</text>"),
            "each panel names its counter")
        // The small counter's own axis reaches its thousands instead of lying flat under 100k ticks.
        #expect(svg.contains(">5k</text>") || svg.contains(">4k</text>"))
        let report = try S.checkSVG(svg)
        #expect(report.ok, "\(report.problems)")

        // Within 10× they still share one axis (heights compare directly).
        let close = Self.threeUnits()
        #expect(close.panelGroups().count == 3)
    }

    /// Issue 24 item 16: two counters and two metrics, split by size, titled a panel
    /// "Visits · Интернет-магазин «Ромашка» · Visits". A panel names its metric once.
    @Test func aSplitPanelNamesItsMetricOnce() {
        let range = S.range("2026-11-02", "2026-11-29")
        let shop = Counter(id: 1001, name: "Интернет-магазин «Ромашка»", site: "romashka-shop.ru")
        let series = [
            Series(counter: shop, metric: .visits, points: S.wave(range, base: 600_000, amplitude: 60_000)),
            Series(counter: shop, metric: .bounceRate, points: S.wave(range, base: 30, amplitude: 3)),
            Series(counter: S.blog, metric: .visits, points: S.wave(range, base: 4_000, amplitude: 900, phase: 2)),
            Series(counter: S.blog, metric: .bounceRate, points: S.wave(range, base: 40, amplitude: 3))
        ]
        let chart = SVGLineChart(series: series, period: range, title: "t", height: 700)
        let titles = chart.panelGroups().map(chart.panelTitle)
        #expect(
            titles.contains("Visits · Интернет-магазин «Ромашка»") && titles.contains("Visits · Блог о кофе"),
            "\(titles)")
        #expect(!titles.contains { $0.components(separatedBy: "Visits").count > 2 }, "\(titles)")
    }

    @Test func theCurrentWeekIsDottedAndLabelledSoFar() {
        let range = S.range("2026-11-02", "2026-11-25")
        let weekly: [(day: Day, value: Double?)] = [
            (S.day("2026-11-02"), 71_000), (S.day("2026-11-09"), 72_400), (S.day("2026-11-16"), 70_100),
            (S.day("2026-11-23"), 5_700)
        ]
        var chart = SVGLineChart(
            series: [Series(counter: S.shop, metric: .visits, points: weekly, incompleteFrom: S.day("2026-11-23"))],
            period: range, title: "t")
        chart.connectsAcrossDays = true
        chart.incompleteLabel = "this week so far"
        let svg = chart.render()
        #expect(svg.contains(">this week so far</text>"))
        #expect(!svg.contains("today (incomplete)"))
        #expect(svg.contains(">5.7k so far</text>"), "the cliff's last value says it is partial")
        #expect(svg.contains("fill=\"#FFFFFF\" stroke=\"#0072B2\""), "hollow marker")
        #expect(
            paths(svg).filter { $0.contains("stroke-dasharray=\"\(ChartPalette.incompleteDashArray)\"") }.count == 1)
    }

    @Test func aFootnoteIsPrinted() {
        var chart = Self.thirtyDays()
        chart.footnote = "Left out: the partial week of 2026-10-26 (2 of 7 days)."
        #expect(chart.render().contains(">Left out: the partial week of 2026-10-26 (2 of 7 days).</text>"))
    }

    @Test func stylesDifferInMoreThanColour() {
        let styles = (0..<6).map(ChartPalette.style(at:))
        #expect(Set(styles.map(\.color)).count == 6)
        #expect(Set(styles.map(\.marker)).count == 6)
        #expect(Set(styles.map { $0.dashArray ?? "solid" }).count == 6)
        #expect(!styles.contains { $0.dashArray == ChartPalette.incompleteDashArray })
    }

    // MARK: - Size and speed

    @Test func tenYearsOfDailyPointsStaySmallAndQuick() throws {
        let chart = Self.tenYears()
        let clock = ContinuousClock()
        var svg = ""
        let elapsed = clock.measure { svg = chart.render() }
        #expect(elapsed < .seconds(2), "took \(elapsed)")
        #expect(svg.utf8.count < 48_000, "\(svg.utf8.count) bytes")
        let lines = paths(svg)
        #expect(lines.count == 2, "the fortnight lost in 2020 is still a gap")
        let total = lines.map(pointCount).reduce(0, +)
        // 3651 days on a plot under 800 px: at most two points per pixel column survive.
        #expect(total < 1700 && total > 600, "\(total) points")
    }

    @Test func simplifierKeepsExtremesPerPixelColumn() {
        var points: [(x: Double, y: Double?)] = []
        for index in 0..<1000 {
            let value: Double = index % 10 == 7 ? 50 : Double(index % 10)
            points.append((x: Double(index) / 10, y: value))
        }
        let runs = ChartLineSimplifier.runs(points)
        #expect(runs.count == 1)
        let run = runs[0]
        #expect(run.count == 200)
        #expect(run.filter { $0.y == 50 }.count == 100, "every column's spike survives")
        #expect(run.filter { $0.y == 0 }.count == 100, "and every column's low")
        let short: [(x: Double, y: Double?)] = [(0, 1), (10, 2), (20, nil), (30, 4)]
        #expect(ChartLineSimplifier.runs(short).map(\.count) == [2, 1])
    }

    // MARK: - Formatting

    static let labelCases: [(Double, MetricUnit, String)] = [
        (0.0, MetricUnit.count, "0"), (950, .count, "950"), (999.6, .count, "1k"), (1234, .count, "1.2k"),
        (9960, .count, "10k"),
        (12_345, .count, "12k"), (999_950, .count, "1M"), (1_234_567, .count, "1.2M"), (45_600_000, .count, "46M"),
        (17.777, .percent, "17.8%"), (100, .percent, "100.0%"), (95, .seconds, "01:35"), (3725, .seconds, "1:02:05"),
        (59.6, .seconds, "01:00"), (2.345, .pagesPerVisit, "2.35"), (1.5, .number, "1.50")
    ]

    @Test(arguments: labelCases)
    func valueLabels(_ value: Double, _ unit: MetricUnit, _ expected: String) {
        #expect(ChartValueFormat.label(value, unit: unit) == expected)
    }

    static let fixedCases: [(Double, Int, String)] = [
        (12.345, 1, "12.3"), (12.35, 1, "12.4"), (-0.04, 1, "0.0"), (-1.25, 1, "-1.3"), (0.5, 0, "1"), (7, 2, "7.00"),
        (1e20, 0, "100000000000000000000")
    ]

    /// Charts' figures are `DecimalText`'s, the one rounding rule (no locale, no `printf`).
    @Test(arguments: fixedCases)
    func fixedPrecisionWithoutLocale(_ value: Double, _ decimals: Int, _ expected: String) {
        #expect(DecimalText.format(value, fractionDigits: decimals) == expected)
    }

    @Test func coordinatesDropATrailingZero() {
        #expect(ChartNumber.coordinate(12.0) == "12")
        #expect(ChartNumber.coordinate(12.04) == "12")
        #expect(ChartNumber.coordinate(12.06) == "12.1")
        #expect(ChartNumber.coordinate(-0.01) == "0")
    }

    @Test func xmlEscaping() {
        #expect(XMLEscape.text("a<b>&c\"d'e") == "a&lt;b&gt;&amp;c\"d'e")
        #expect(XMLEscape.attribute("a<b>&c\"d'e\tf\ng") == "a&lt;b&gt;&amp;c&quot;d&apos;e&#9;f&#10;g")
        #expect(XMLEscape.text("x\u{0}\u{8}\u{B}\u{1F}y\u{FFFE}\u{FFFF}z\tw\n") == "xyz\tw\n")
        #expect(XMLEscape.text("cr\rhere") == "cr&#13;here")
        #expect(XMLEscape.text("Кофе 😀") == "Кофе 😀")
    }
}
