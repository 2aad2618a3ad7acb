import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel
@testable import MetrikaRender

@Suite("Chart ticks", .ownThreads)
struct ChartTicksTests {
    // MARK: - Value axis

    struct ValueCase: CustomTestStringConvertible, Sendable {
        let lowest: Double
        let highest: Double
        let unit: MetricUnit
        let fromZero: Bool
        let expected: [Double]
        var testDescription: String { "\(unit) \(lowest)…\(highest)" }
    }

    // Worked by hand: step = the first of 1-2-5×10ⁿ (clock steps for seconds) that covers the span in
    // at most five intervals.
    static let valueCases: [ValueCase] = [
        ValueCase(lowest: 0, highest: 1234, unit: .count, fromZero: true, expected: [0, 500, 1000, 1500]),
        ValueCase(lowest: 3, highest: 87, unit: .count, fromZero: true, expected: [0, 20, 40, 60, 80, 100]),
        ValueCase(lowest: 0, highest: 3, unit: .count, fromZero: true, expected: [0, 1, 2, 3]),
        ValueCase(lowest: 0, highest: 0, unit: .count, fromZero: true, expected: [0, 1]),
        ValueCase(lowest: 0, highest: 100, unit: .count, fromZero: true, expected: [0, 20, 40, 60, 80, 100]),
        ValueCase(lowest: 17.2, highest: 24.9, unit: .percent, fromZero: false, expected: [16, 18, 20, 22, 24, 26]),
        ValueCase(lowest: 0, highest: 250, unit: .seconds, fromZero: true, expected: [0, 60, 120, 180, 240, 300]),
        ValueCase(lowest: 0, highest: 2.37, unit: .pagesPerVisit, fromZero: true, expected: [0, 0.5, 1, 1.5, 2, 2.5]),
        ValueCase(
            lowest: 0, highest: 4_200_000, unit: .count, fromZero: true,
            expected: [0, 1_000_000, 2_000_000, 3_000_000, 4_000_000, 5_000_000])
    ]

    @Test(arguments: valueCases)
    func niceValueTicks(_ c: ValueCase) {
        let ticks = ChartTicks.valueTicks(lowest: c.lowest, highest: c.highest, unit: c.unit, fromZero: c.fromZero)
        #expect(ticks.values == c.expected)
        #expect(ticks.lower <= c.lowest && ticks.upper >= c.highest)
    }

    @Test func countAxesStartAtZeroAndUseWholeSteps() {
        let ticks = ChartTicks.valueTicks(lowest: 900, highest: 960, unit: .count, fromZero: true)
        #expect(ticks.values.first == 0)
        #expect(ticks.step == ticks.step.rounded())
        for value in ticks.values { #expect(value == value.rounded()) }
    }

    @Test func axisLabelsPrintInTheMetricsUnitWithoutDuplicates() {
        #expect(ChartValueFormat.axisLabel(1500, unit: .count, step: 500) == "1.5k")
        #expect(ChartValueFormat.axisLabel(1000, unit: .count, step: 500) == "1k")
        #expect(ChartValueFormat.axisLabel(2_500_000, unit: .count, step: 500_000) == "2.5M")
        #expect(ChartValueFormat.axisLabel(80, unit: .count, step: 20) == "80")
        #expect(ChartValueFormat.axisLabel(17.5, unit: .percent, step: 0.5) == "17.5%")
        #expect(ChartValueFormat.axisLabel(18, unit: .percent, step: 2) == "18%")
        #expect(ChartValueFormat.axisLabel(180, unit: .seconds, step: 60) == "03:00")
        #expect(ChartValueFormat.axisLabel(3600, unit: .seconds, step: 900) == "1:00:00")
        #expect(ChartValueFormat.axisLabel(1.5, unit: .pagesPerVisit, step: 0.5) == "1.5")
        for c in Self.valueCases {
            let ticks = ChartTicks.valueTicks(lowest: c.lowest, highest: c.highest, unit: c.unit, fromZero: c.fromZero)
            let labels = ticks.values.map { ChartValueFormat.axisLabel($0, unit: c.unit, step: ticks.step) }
            #expect(Set(labels).count == labels.count, "duplicate labels \(labels)")
        }
    }

    // MARK: - Date axis

    struct SpanCase: CustomTestStringConvertible, Sendable {
        let name: String
        let from: String
        let to: String
        let expectedLabels: [String]?
        let expectedKind: String
        var testDescription: String { name }
    }

    /// The five spans of the issue, ending on 2026-11-29, with what a person would label them with.
    static let spans: [SpanCase] = [
        SpanCase(
            name: "1 day", from: "2026-11-29", to: "2026-11-29", expectedLabels: ["2026-11-29"], expectedKind: "single"),
        SpanCase(name: "2 weeks", from: "2026-11-16", to: "2026-11-29", expectedLabels: nil, expectedKind: "days"),
        SpanCase(name: "3 months", from: "2026-09-01", to: "2026-11-29", expectedLabels: nil, expectedKind: "weeks"),
        SpanCase(name: "2 years", from: "2024-12-01", to: "2026-11-29", expectedLabels: nil, expectedKind: "months"),
        SpanCase(
            name: "10 years", from: "2016-12-01", to: "2026-11-29",
            expectedLabels: ["2017", "2018", "2019", "2020", "2021", "2022", "2023", "2024", "2025", "2026"],
            expectedKind: "years")
    ]

    static let plotWidths: [Double] = [680, 420, 200]

    @Test(arguments: spans, plotWidths)
    func dateLabelsNeverOverlap(_ span: SpanCase, plotWidth: Double) throws {
        let range = ChartTestSupport.range(span.from, span.to)
        let ticks = ChartTicks.dateTicks(
            for: range, plotWidth: plotWidth, fontSize: 11, minimumGap: 10, edgeAllowance: 30)
        try #require(!ticks.isEmpty)
        for (left, right) in zip(ticks, ticks.dropFirst()) {
            // Recomputed here from the labels, not taken from the tick's own width field.
            let leftEdge = right.x - ChartTicks.estimatedWidth(of: right.label, fontSize: 11) / 2
            let rightEdge = left.x + ChartTicks.estimatedWidth(of: left.label, fontSize: 11) / 2
            #expect(leftEdge - rightEdge >= 10, "\(left.label) and \(right.label) overlap at width \(plotWidth)")
            #expect(left.day < right.day)
        }
        for tick in ticks {
            #expect(range.contains(tick.day))
            #expect(tick.x >= 0 && tick.x <= plotWidth)
            #expect(tick.x - tick.labelWidth / 2 >= -30 && tick.x + tick.labelWidth / 2 <= plotWidth + 30)
        }
        if plotWidth == 680 {
            if let labels = span.expectedLabels { #expect(ticks.map(\.label) == labels) }
            switch span.expectedKind {
            case "days": #expect(ticks.count >= 7 && ticks.allSatisfy { $0.label.hasPrefix("Nov ") })
            case "weeks": #expect(ticks.allSatisfy { $0.day.weekday == 1 } && ticks.count >= 6)
            case "months": #expect(ticks.allSatisfy { $0.day.components.day == 1 } && ticks.count >= 6)
            case "years": #expect(ticks.allSatisfy { $0.day.components.month == 1 && $0.day.components.day == 1 })
            default: #expect(ticks.count == 1)
            }
        }
    }

    @Test func twoWeeksAtFullWidthAreLabelledEveryDay() {
        let range = ChartTestSupport.range("2026-11-16", "2026-11-29")
        let ticks = ChartTicks.dateTicks(for: range, plotWidth: 680, fontSize: 11)
        #expect(ticks.map(\.label) == (16...29).map { "Nov \($0)" })
        // 680 px over 13 intervals.
        #expect(abs(ticks[1].x - 680.0 / 13) < 1e-9)
    }

    @Test func monthLabelsCarryTheYearWhereItChanges() {
        // Half a year on a narrow plot: fortnightly labels would crowd, monthly ones fit.
        let range = ChartTestSupport.range("2025-10-01", "2026-03-31")
        let ticks = ChartTicks.dateTicks(for: range, plotWidth: 420, fontSize: 11, edgeAllowance: 40)
        #expect(ticks.map(\.label) == ["Oct 2025", "Nov", "Dec", "Jan 2026", "Feb", "Mar"])
    }

    @Test func aOneDayRangeSitsInTheMiddle() {
        let range = ChartTestSupport.range("2026-11-29", "2026-11-29")
        #expect(ChartTicks.x(of: range.from, in: range, plotWidth: 500) == 250)
    }

    /// The label-width estimate must not be smaller than what the real font renders, or labels that
    /// "fit" by the estimate could still touch on screen: every tick label of the five spans is drawn
    /// by rsvg-convert and its inked width measured.
    @Test func estimatedWidthsCoverTheRenderedText() throws {
        try ToolCheck.require("rsvg-convert", package: "librsvg2-bin")
        try ToolCheck.requireFont("DejaVu Sans", package: "fonts-dejavu-core")
        var labels: Set<String> = ["Jan 2026", "Mmm 2026", "Wed 30", "12.5k", "17.8%", "1:05:09"]
        for span in Self.spans {
            let range = ChartTestSupport.range(span.from, span.to)
            for width in Self.plotWidths {
                for tick in ChartTicks.dateTicks(for: range, plotWidth: width, fontSize: 11) {
                    labels.insert(tick.label)
                }
            }
        }
        let sorted = labels.sorted()
        let directory = try ChartTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("labels.json")
        try JSONSerialization.data(withJSONObject: ["font": SVGLineChart.fontStack, "size": 11, "texts": sorted]).write(
            to: input)
        let result = try ChartTestSupport.runPython("measure_text.py", [input.path, directory.path])
        try #require(result.status == 0, "measure_text.py: \(result.stderr)")
        let measured = try JSONDecoder().decode([String: Double].self, from: result.stdout)
        #expect(measured.count == sorted.count)
        for label in sorted {
            let real = try #require(measured[label])
            #expect(real > 0, "\(label) drew nothing")
            #expect(
                ChartTicks.estimatedWidth(of: label, fontSize: 11) >= real,
                "\(label): estimated \(ChartTicks.estimatedWidth(of: label, fontSize: 11)) < rendered \(real)")
        }
    }
}

/// Axes over the largest numbers an API answer can hold end with finite ticks, never a trap.
@Test func ticksOverTheWholeDoubleRangeAreFinite() {
    for unit in [MetricUnit.count, .seconds, .percent, .number] {
        let ticks = ChartTicks.valueTicks(lowest: -1e308, highest: 1e308, unit: unit, fromZero: true)
        #expect(ticks.values.count >= 2)
        #expect(ticks.values.allSatisfy { $0.isFinite })
    }
}
