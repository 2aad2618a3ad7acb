import MetrikaModel

/// The small chart of an alert mail: one metric's last weeks by day, the expected value as a dashed
/// line, the same weekdays as dots and the judged day marked in red with its value, so the reader sees
/// at a glance what was unusual. A self-contained SVG like `SVGLineChart`'s: no script, no external
/// reference, every outside text escaped; the same input gives the same bytes.
package struct AlertChart: Sendable {
    /// The days in order, the judged one last; nil = no history for the day (a gap).
    package var points: [(day: Day, value: Double?)]
    /// The expected value of the judged day.
    package var expected: Double
    /// The heading: the metric and the counter.
    package var title: String
    /// The line under it: the day, the value, the expectation.
    package var subtitle: String
    /// Phone first: 360 px wide is shown at its own size in a phone's mail (390 px less the margins),
    /// so the 10 px labels stay 10 px there (at least 9 px, readable on a phone); PNGs are drawn at 2×.
    package var width = 360
    package var height = 190
    /// The expected value as the alert's line says it (`~880`, `~240000 ₽`); nil: the chart's own label.
    package var expectedText: String?
    /// Money: labels in this currency, compact like counts (`80k ₽`); nil for counts.
    package var currency: Currency?

    package init(points: [(day: Day, value: Double?)], expected: Double, title: String, subtitle: String) {
        self.points = points
        self.expected = expected
        self.title = title
        self.subtitle = subtitle
    }

    static let lineColor = "#1F77B4"
    static let markColor = "#D62728"
    static let mutedColor = "#555555"

    /// The SVG document.
    package func render() -> String {
        // A title too long for one line goes on two, broken after the metric (`Visits —` /
        // `Интернет-магазин «Ромашка»`): cut on one line, it lost the counter's name.
        let titleLines = Self.titleLines(title)
        let extra = 18 * (titleLines.count - 1)
        let height = self.height + extra
        let w = Double(width)
        let h = Double(height)
        let left = 48.0
        let right = 16.0
        let top = 52.0 + Double(extra)
        let bottom = 24.0
        let plotWidth = w - left - right
        let plotHeight = h - top - bottom
        let values = points.compactMap(\.value)
        let top0 = max(values.max() ?? 0, expected, 1)
        let ceiling = Self.niceCeiling(top0 * 1.1)
        let count = max(points.count - 1, 1)
        func x(_ index: Int) -> Double { left + plotWidth * Double(index) / Double(count) }
        func y(_ value: Double) -> Double { top + plotHeight * (1 - value / ceiling) }
        func n(_ value: Double) -> String { ChartNumber.coordinate(value) }

        var svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        svg +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" font-family=\"\(SVGLineChart.fontStack)\">\n"
        svg += "<title>\(XMLEscape.text(title + ": " + subtitle))</title>\n"
        svg +=
            "<desc>\(XMLEscape.text("The last \(points.count) days by day; the dashed line is the expected value, the dots the same weekdays."))</desc>\n"
        svg += "<rect x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#FFFFFF\"/>\n"
        for (index, line) in titleLines.enumerated() {
            svg +=
                "<text x=\"12\" y=\"\(22 + 18 * index)\" font-size=\"14\" font-weight=\"bold\" fill=\"#222222\">\(XMLEscape.text(line))</text>\n"
        }
        svg +=
            "<text x=\"12\" y=\"\(40 + extra)\" font-size=\"11\" fill=\"\(Self.mutedColor)\">\(XMLEscape.text(Self.fitted(subtitle, characters: 54)))</text>\n"
        // Axis: zero and the ceiling, labelled.
        svg +=
            "<line x1=\"\(n(left))\" y1=\"\(n(y(0)))\" x2=\"\(n(w - right))\" y2=\"\(n(y(0)))\" stroke=\"#BBBBBB\" stroke-width=\"1\"/>\n"
        svg +=
            "<line x1=\"\(n(left))\" y1=\"\(n(y(ceiling)))\" x2=\"\(n(w - right))\" y2=\"\(n(y(ceiling)))\" stroke=\"#E3E3E3\" stroke-width=\"1\"/>\n"
        svg +=
            "<text x=\"\(n(left - 6))\" y=\"\(n(y(0) + 4))\" font-size=\"10\" text-anchor=\"end\" fill=\"\(Self.mutedColor)\">0</text>\n"
        svg +=
            "<text x=\"\(n(left - 6))\" y=\"\(n(y(ceiling) + 4))\" font-size=\"10\" text-anchor=\"end\" fill=\"\(Self.mutedColor)\">\(XMLEscape.text(label(ceiling)))</text>\n"
        // Expected: a dashed line across.
        svg +=
            "<line x1=\"\(n(left))\" y1=\"\(n(y(expected)))\" x2=\"\(n(w - right))\" y2=\"\(n(y(expected)))\" stroke=\"\(Self.mutedColor)\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>\n"
        // The line, broken at unknown days.
        var path = ""
        var pen = false
        for (index, point) in points.enumerated() {
            guard let value = point.value else {
                pen = false
                continue
            }
            path += (pen ? " L" : (path.isEmpty ? "M" : " M")) + "\(n(x(index))) \(n(y(value)))"
            pen = true
        }
        if !path.isEmpty {
            svg +=
                "<path d=\"\(path)\" fill=\"none\" stroke=\"\(Self.lineColor)\" stroke-width=\"2\" stroke-linejoin=\"round\"/>\n"
        }
        // The same weekdays as the judged day: the baseline, as dots.
        if let last = points.last {
            for (index, point) in points.enumerated().dropLast() where point.day.weekday == last.day.weekday {
                guard let value = point.value else { continue }
                svg += "<circle cx=\"\(n(x(index)))\" cy=\"\(n(y(value)))\" r=\"3\" fill=\"\(Self.lineColor)\"/>\n"
            }
            let lastX = x(points.count - 1)
            svg +=
                "<line x1=\"\(n(lastX))\" y1=\"\(n(top))\" x2=\"\(n(lastX))\" y2=\"\(n(y(0)))\" stroke=\"\(Self.markColor)\" stroke-width=\"1\" stroke-dasharray=\"2 2\"/>\n"
            if let value = last.value {
                svg += "<circle cx=\"\(n(lastX))\" cy=\"\(n(y(value)))\" r=\"5\" fill=\"\(Self.markColor)\"/>\n"
            }
            // The expected line's name where the data line does not run through it (above or below
            // the dashed line, at the right or the left), haloed in case no place is free.
            let name = "expected " + (expectedText ?? "~" + label(expected))
            var marks: [(x: Double, y: Double, r: Double)] = []
            var segments: [((Double, Double), (Double, Double))] = []
            var previous: (Double, Double)?
            for (index, point) in points.enumerated() {
                guard let value = point.value else {
                    previous = nil
                    continue
                }
                let here = (x(index), y(value))
                if let previous { segments.append((previous, here)) }
                previous = here
                if point.day.weekday == last.day.weekday {
                    marks.append((here.0, here.1, index == points.count - 1 ? 5 : 3))
                }
            }
            let place = Self.labelPlace(
                width: Self.estimatedWidth(name), expectedY: y(expected), lastX: lastX, left: left, top: top,
                bottom: y(0),
                segments: segments, marks: marks)
            svg +=
                "<text x=\"\(n(place.x))\" y=\"\(n(place.y))\" font-size=\"10\" text-anchor=\"\(place.anchor)\" fill=\"\(Self.mutedColor)\" stroke=\"#FFFFFF\" stroke-width=\"3\" paint-order=\"stroke\">\(XMLEscape.text(name))</text>\n"
            svg +=
                "<text x=\"\(n(lastX - 6))\" y=\"\(n(h - 8))\" font-size=\"10\" text-anchor=\"end\" fill=\"\(Self.markColor)\">\(XMLEscape.text(last.day.iso))</text>\n"
            if let first = points.first {
                svg +=
                    "<text x=\"\(n(left))\" y=\"\(n(h - 8))\" font-size=\"10\" fill=\"\(Self.mutedColor)\">\(XMLEscape.text(first.day.iso))</text>\n"
            }
        }
        svg += "</svg>\n"
        return svg
    }

    /// The title as one line, or two broken after the metric (` — `) when one would be cut; each line
    /// cut with `…` only when it alone is too long.
    static func titleLines(_ title: String, characters: Int = 38) -> [String] {
        guard title.count > characters, let dash = title.range(of: " — ") else {
            return [fitted(title, characters: characters)]
        }
        let metric = String(title[..<dash.lowerBound]) + " —"
        let rest = String(title[dash.upperBound...])
        return [fitted(metric, characters: characters), fitted(rest, characters: characters)]
    }

    /// The width of a 10 px label, generously (wide glyphs, digits and the currency sign).
    static func estimatedWidth(_ text: String) -> Double { Double(text.count) * 6 + 2 }

    /// Where the expected value's label goes: the place nearest the dashed line — just above or below
    /// it, then further out, at the right, the left or the middle of the plot — whose box (a 10 px line
    /// of `width`, with 2 px to spare) no data segment crosses and no dot touches, inside the plot;
    /// just above at the right when none is free (the label is haloed).
    static func labelPlace(
        width: Double, expectedY: Double, lastX: Double, left: Double, top: Double, bottom: Double,
        segments: [((Double, Double), (Double, Double))], marks: [(x: Double, y: Double, r: Double)]
    ) -> (x: Double, y: Double, anchor: String) {
        var candidates: [(x: Double, y: Double, anchor: String, from: Double, to: Double)] = []
        let middle = (left + lastX) / 2
        for step in 0..<24 {
            // -5, +13, -17, +25, -29, …: baselines above and below the line, 12 px further out each time.
            let dy = step % 2 == 0 ? -5 - 12 * Double(step / 2) : 13 + 12 * Double(step / 2)
            let y = expectedY + dy
            candidates.append((lastX - 10, y, "end", lastX - 10 - width, lastX - 10))
            candidates.append((left + 4, y, "start", left + 4, left + 4 + width))
            candidates.append((middle, y, "middle", middle - width / 2, middle + width / 2))
        }
        func free(_ box: (x0: Double, x1: Double, y0: Double, y1: Double)) -> Bool {
            guard box.y0 >= top - 8, box.y1 <= bottom - 1 else { return false }
            func inside(_ x: Double, _ y: Double, margin: Double) -> Bool {
                x >= box.x0 - margin && x <= box.x1 + margin && y >= box.y0 - margin && y <= box.y1 + margin
            }
            for (a, b) in segments {
                for step in 0...16 {
                    let t = Double(step) / 16
                    if inside(a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t, margin: 2) { return false }
                }
            }
            return !marks.contains { inside($0.x, $0.y, margin: $0.r + 1) }
        }
        for candidate in candidates where free((candidate.from, candidate.to, candidate.y - 9, candidate.y + 2)) {
            return (candidate.x, candidate.y, candidate.anchor)
        }
        return (candidates[0].x, candidates[0].y, candidates[0].anchor)
    }

    /// 1, 2 or 5 times a power of ten, at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        var step = 1.0
        while step * 10 <= value { step *= 10 }
        while step > value { step /= 10 }
        for factor in [1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0] where step * factor >= value {
            return step * factor
        }
        return step * 10
    }

    /// `text` cut to `characters` with an ellipsis: a long counter name must not run off the chart.
    static func fitted(_ text: String, characters: Int) -> String {
        text.count <= characters ? text : String(text.prefix(characters - 1)) + "…"
    }

    /// An axis or expected-value label: money with its currency's sign, compact (`1.5M ₽`).
    func label(_ value: Double) -> String {
        guard let currency else { return Self.label(value) }
        return ChartValueFormat.axisLabel(value, unit: .money, step: value >= 1000 ? 100 : 1, currency: currency)
    }

    /// A count: whole and grouped as the table writes it (`12 000`), one decimal below 1 (`0.5`).
    static func label(_ value: Double) -> String {
        guard value >= 1 else { return DecimalText.format(value, fractionDigits: 1) }
        return ValueFormatter.format(Quantity(value, unit: .count), grouping: true, missing: "0")
    }
}
