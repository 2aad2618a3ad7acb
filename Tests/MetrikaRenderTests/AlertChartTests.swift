import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender

/// The small chart of an alert mail: deterministic, escaped, the judged day marked.
@Suite struct AlertChartTests {
    func chart(title: String = "visits — Shop") -> AlertChart {
        let last = Day(iso: "2026-11-29")!
        let points = (0..<35).reversed().map { back -> (day: Day, value: Double?) in
            (last.adding(days: -back), back == 10 ? nil : back == 0 ? 0 : 600)
        }
        return AlertChart(
            points: points, expected: 600, title: title, subtitle: "Sun 2026-11-29: 0, expected ~600 (-100%)")
    }

    @Test func theSameDataGivesTheSameBytesAndMarksTheDay() {
        let svg = chart().render()
        #expect(svg == chart().render())
        #expect(svg.contains("fill=\"#D62728\""), "the judged day in red")
        #expect(svg.contains(">2026-11-29</text>"))
        #expect(svg.contains("expected ~600"))
        // A day without history is a gap: the line starts again after it.
        let path = svg.split(separator: "\n").first { $0.hasPrefix("<path") } ?? ""
        #expect(path.components(separatedBy: "M").count - 1 == 2, "\(path)")
        // Four same weekdays before the judged one are the baseline's dots.
        #expect(svg.components(separatedBy: "r=\"3\"").count - 1 == 4)
    }

    @Test func moneyLabelsCarryTheCurrency() {
        let last = Day(iso: "2026-11-29")!
        let points = (0..<35).reversed().map { back -> (day: Day, value: Double?) in
            (last.adding(days: -back), back == 0 ? 77_035.78 : 241_380)
        }
        var money = AlertChart(points: points, expected: 241_380, title: "revenue — Shop", subtitle: "Sun 2026-11-29")
        #expect(!money.render().contains("₽"), "without a currency the labels are counts")
        money.currency = Currency(code: "RUB")
        let svg = money.render()
        #expect(svg.contains(">300k ₽</text>"), "the ceiling, compact with its sign")
        #expect(svg.contains("expected ~241.4k ₽</text>"))
    }

    @Test func outsideTextIsEscaped() {
        let svg = chart(title: "<script>alert(1)</script> & Co").render()
        #expect(!svg.contains("<script"))
        #expect(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co"))
    }

    @Test func theScaleIsANiceNumberAboveTheData() {
        #expect(AlertChart.niceCeiling(2025) == 2500)
        #expect(AlertChart.niceCeiling(40.7) == 50)
        #expect(AlertChart.niceCeiling(0) == 1)
    }
}
