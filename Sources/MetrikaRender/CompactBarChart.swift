import MetrikaModel

/// The top rows of a dimension report as horizontal bars, composed like `CompactLineChart` for a
/// phone's column (360 px, text ≥ 12 px): each row's name on a line of its own (cut with `…` when it
/// would not fit), its bar under it, the value at the bar's end.
package struct CompactBarChart: Sendable {
    /// One bar.
    package struct Bar: Sendable {
        package var label: String
        package var value: Double?
        /// The value as the table shows it.
        package var valueText: String

        package init(label: String, value: Double?, valueText: String) {
            self.label = label
            self.value = value
            self.valueText = valueText
        }
    }

    package var bars: [Bar]
    package var heading: String
    package var message: String
    package var detail: String

    package init(bars: [Bar], heading: String, message: String, detail: String) {
        self.bars = bars
        self.heading = heading
        self.message = message
        self.detail = detail
    }

    static let rowHeight = 36.0
    static let top = 34.0

    package var height: Int { Int(Self.top + Double(max(bars.count, 1)) * Self.rowHeight + 6) }

    /// The `<svg>` element for inline HTML (see `CompactLineChart.element`).
    package func element(xmlns: Bool = false) -> String {
        var out = ChartSVGWriter()
        let width = CompactLineChart.width
        let w = Double(width)
        let size = CompactLineChart.smallestFontSize
        let namespace = xmlns ? " xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"" : ""
        let measure = SVGLineChart(
            series: [], period: DateRange(from: Day(ordinal: 0), to: Day(ordinal: 0))!, title: "")
        out.line(
            "<svg\(namespace) width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"\(XMLEscape.attribute(message))\" font-family=\"\(SVGLineChart.fontStack)\" style=\"display:block;max-width:100%;height:auto;background:#FFFFFF\">"
        )
        out.line("<title>\(XMLEscape.text(message))</title>")
        out.line("<desc>\(XMLEscape.text(detail))</desc>")
        out.line("<rect x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#FFFFFF\"/>")
        out.text(
            measure.fitted(heading, width: w - 16, fontSize: 14), x: 8, y: 20, size: 14, fill: SVGLineChart.textColor,
            extra: " font-weight=\"bold\"")
        let largest = bars.compactMap(\.value).filter(\.isFinite).map { abs($0) }.max() ?? 0
        let widestValue = bars.map { ChartTicks.estimatedWidth(of: $0.valueText, fontSize: size) }.max() ?? 0
        let barSpace = max(w - 16 - widestValue - 8, 40)
        if bars.isEmpty {
            out.text(
                "No data for this period", x: w / 2, y: Self.top + 20, size: size, fill: SVGLineChart.mutedColor,
                extra: " text-anchor=\"middle\"")
        }
        for (index, bar) in bars.enumerated() {
            let y = Self.top + Double(index) * Self.rowHeight
            out.text(
                measure.fitted(bar.label, width: w - 16, fontSize: size), x: 8, y: y + 12, size: size,
                fill: SVGLineChart.textColor)
            let share = largest > 0 ? abs(bar.value ?? 0) / largest : 0
            let length = max(share * barSpace, bar.value == nil ? 0 : 1)
            out.line(
                "<rect x=\"8\" y=\"\(c(y + 17))\" width=\"\(c(length))\" height=\"12\" fill=\"\(CompactLineChart.color)\"/>"
            )
            out.text(
                bar.valueText, x: 8 + length + 6, y: y + 27, size: size, fill: SVGLineChart.textColor,
                extra: " font-weight=\"bold\"")
        }
        out.line("</svg>")
        return out.text
    }

    private func c(_ value: Double) -> String { ChartNumber.coordinate(value) }
}
