import MetrikaModel

/// One metric's line over a report's periods, composed for a phone's column: 360 px wide, text of at
/// least 12 px, so that shown at 390 px (an iPhone; the column is ≥ 360 px) nothing is smaller than
/// 12 px, and at 320 px (the narrowest phones) still 10.7 px. Used inline in `report --format html`
/// and, rasterized at 2×, as the mail's PNG charts.
///
/// Readable by itself: the metric's title in the picture, a white background (kept when a mail
/// reader darkens the page around it), and `<title>`/`<desc>` for screen readers — the title is the
/// message (`Visits fell 12.0% to 3 085`), the description the data's range. No ids, no script, no
/// style sheet: several can sit in one page.
package struct CompactLineChart: Sendable {
    /// The width every compact chart is drawn at (user units = CSS px at 1×).
    package static let width = 360
    /// The smallest font size used anywhere in the chart.
    package static let smallestFontSize = 12.0

    /// The line: its metric gives the title and unit.
    package var series: Series
    /// The periods shown (their first days are the points' days).
    package var period: DateRange
    /// Days: a missing day is a gap. Weeks or months: neighbouring points are joined.
    package var connectsAcrossDays: Bool
    /// The heading inside the picture (the metric's title and, e.g., `daily`).
    package var heading: String
    /// The accessible name: what the chart says (`Visits fell 12.0% to 3 085`).
    package var message: String
    /// The longer description: what is drawn.
    package var detail: String
    package var height = 190
    /// Days the counter's owner annotated in Metrika: a dashed line and the title, as `metrika chart`.
    package var marks: [SVGLineChart.Mark] = []

    package init(
        series: Series, period: DateRange, connectsAcrossDays: Bool, heading: String, message: String, detail: String
    ) {
        self.series = series
        self.period = period
        self.connectsAcrossDays = connectsAcrossDays
        self.heading = heading
        self.message = message
        self.detail = detail
    }

    static let titleSize = 14.0
    static let labelSize = 12.0
    static let color = "#0072B2"

    /// A standalone SVG document (to rasterize or attach).
    package func document() -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + element(xmlns: true)
    }

    /// The `<svg>` element for inline use in HTML: shown at its width, shrunk with the column when the
    /// column is narrower (`max-width:100%`), never wider than drawn.
    package func element(xmlns: Bool = false) -> String {
        var out = ChartSVGWriter()
        let w = Double(Self.width)
        let h = Double(height)
        let namespace = xmlns ? " xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"" : ""
        out.line(
            "<svg\(namespace) width=\"\(Self.width)\" height=\"\(height)\" viewBox=\"0 0 \(Self.width) \(height)\" role=\"img\" aria-label=\"\(XMLEscape.attribute(message))\" font-family=\"\(SVGLineChart.fontStack)\" style=\"display:block;max-width:100%;height:auto;background:#FFFFFF\">"
        )
        out.line("<title>\(XMLEscape.text(message))</title>")
        out.line("<desc>\(XMLEscape.text(detail))</desc>")
        out.line("<rect x=\"0\" y=\"0\" width=\"\(Self.width)\" height=\"\(height)\" fill=\"#FFFFFF\"/>")
        let chart = lineChart
        out.text(
            chart.fitted(heading, width: w - 16, fontSize: Self.titleSize), x: 8, y: 20, size: Self.titleSize,
            fill: SVGLineChart.textColor, extra: " font-weight=\"bold\"")

        let values = series.points.filter { period.contains($0.day) }.compactMap { $0.value }.filter(\.isFinite)
        let unit = series.metric.unit
        // As `metrika chart` draws them (docs/charts.md): counts, durations, depth and money from 0.
        let fromZero =
            unit == .count || unit == .seconds || unit == .pagesPerVisit || unit == .money || (values.min() ?? 0) <= 0
            || (values.min() ?? 0) < (values.max() ?? 0) / 2
        let axis = ChartTicks.valueTicks(
            lowest: values.min() ?? 0, highest: values.max() ?? 0, unit: unit, fromZero: fromZero, maxTicks: 4)
        let axisLabels = axis.values.map {
            ChartValueFormat.axisLabel($0, unit: unit, step: axis.step, currency: series.metric.currency)
        }
        let widestTick = axisLabels.map { ChartTicks.estimatedWidth(of: $0, fontSize: Self.labelSize) }.max() ?? 0
        let last = chart.lastValue(series)
        let lastText = last.map { chart.lastLabel(series, $0) }
        let widestLast = lastText.map { ChartTicks.estimatedWidth(of: $0, fontSize: Self.labelSize) } ?? 0
        let left = (max(24, widestTick + 12)).rounded(.up)
        let right = w - (max(12, widestLast + 14)).rounded(.up)
        let top = 38.0
        let bottom = h - 26
        let frame = SVGLineChart.PlotFrame(
            left: left, right: right, top: top, bottom: bottom, lower: axis.lower, upper: axis.upper)
        let plotWidth = right - left

        out.line("<g stroke=\"\(SVGLineChart.gridColor)\" stroke-width=\"1\">")
        for value in axis.values {
            out.line(
                "<line x1=\"\(c(left))\" y1=\"\(c(frame.y(value)))\" x2=\"\(c(right))\" y2=\"\(c(frame.y(value)))\"/>")
        }
        out.line("</g>")
        out.line(
            "<line x1=\"\(c(left))\" y1=\"\(c(bottom))\" x2=\"\(c(right))\" y2=\"\(c(bottom))\" stroke=\"\(SVGLineChart.axisColor)\" stroke-width=\"1\"/>"
        )
        out.line("<g font-size=\"\(c(Self.labelSize))\" fill=\"\(SVGLineChart.mutedColor)\" text-anchor=\"end\">")
        for (value, label) in zip(axis.values, axisLabels) {
            out.line("<text x=\"\(c(left - 5))\" y=\"\(c(frame.y(value) + 4))\">\(XMLEscape.text(label))</text>")
        }
        out.line("</g>")

        if values.isEmpty {
            out.text(
                "No data for this period", x: left + plotWidth / 2, y: (top + bottom) / 2 + 4, size: Self.labelSize,
                fill: SVGLineChart.mutedColor, extra: " text-anchor=\"middle\"")
        }
        for mark in marks where period.contains(mark.day) {
            let x = left + ChartTicks.x(of: mark.day, in: period, plotWidth: plotWidth)
            out.line(
                "<line x1=\"\(c(x))\" y1=\"\(c(top))\" x2=\"\(c(x))\" y2=\"\(c(bottom))\" stroke=\"\(SVGLineChart.markColor)\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>"
            )
            let leftward = x > left + plotWidth * 0.6
            let room = leftward ? x - left - 6 : right - x - 6
            out.text(
                chart.fitted(mark.title, width: max(room, 40), fontSize: Self.labelSize), x: leftward ? x - 4 : x + 4,
                y: top + 12, size: Self.labelSize, fill: SVGLineChart.markColor,
                extra: leftward ? " text-anchor=\"end\"" : "")
        }
        let style = ChartPalette.Style(color: Self.color, dashArray: nil, marker: .circle)
        chart.drawLine(series, style: style, frame: frame, into: &out)
        if let last, let lastText {
            let x = left + ChartTicks.x(of: last.day, in: period, plotWidth: plotWidth)
            let hollow = series.incompleteFrom.map { last.day >= $0 } ?? false
            out.line(chart.marker(.circle, x: x, y: frame.y(last.value), color: Self.color, hollow: hollow))
            out.line(
                "<text x=\"\(c(right + 7))\" y=\"\(c(frame.y(last.value) + 4))\" font-size=\"\(c(Self.labelSize))\" font-weight=\"bold\" fill=\"\(Self.color)\">\(XMLEscape.text(lastText))</text>"
            )
        }

        let ticks = ChartTicks.dateTicks(
            for: period, plotWidth: plotWidth, fontSize: Self.labelSize, minimumGap: 14,
            edgeAllowance: min(left, w - right) - 2)
        out.line("<g font-size=\"\(c(Self.labelSize))\" fill=\"\(SVGLineChart.mutedColor)\" text-anchor=\"middle\">")
        for tick in ticks {
            out.line(
                "<text x=\"\(c(left + tick.x))\" y=\"\(c(bottom + 17))\">\(XMLEscape.text(Self.label(tick)))</text>")
        }
        out.line("</g>")
        out.line("</svg>")
        return out.text
    }

    /// A date tick as the table writes dates, day first (`16 Nov`); month and year ticks as they are.
    static func label(_ tick: ChartTicks.DateTick) -> String {
        let (_, month, day) = tick.day.components
        return tick.label == ChartTicks.monthNames[month - 1] + " " + String(day)
            ? CompactDate.dayOfMonth(tick.day) : tick.label
    }

    /// The full chart's drawing rules (gaps, the dotted incomplete end, last-value labels), reused.
    private var lineChart: SVGLineChart {
        var chart = SVGLineChart(series: [series], period: period, title: heading, width: Self.width, height: height)
        chart.connectsAcrossDays = connectsAcrossDays
        return chart
    }

    private func c(_ value: Double) -> String { ChartNumber.coordinate(value) }
}
