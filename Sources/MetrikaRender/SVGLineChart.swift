import MetrikaModel

/// A daily line chart as a self-contained SVG document: title, legend, one stacked panel per metric
/// unit (metrics with the same unit share an axis), nice y ticks, non-overlapping date ticks,
/// gridlines, a label on each line's last value, gaps for missing days, the incomplete current day
/// dotted, and a note when the data is sampled.
///
/// The output is a pure function of the input: no clock, no locale, no randomness, so the same data
/// gives the same bytes. Every piece of outside text is escaped with `XMLEscape`; the document holds no
/// script, no external reference and no style sheet, so it is safe to mail and to open anywhere.
package struct SVGLineChart: Sendable {
    /// The lines; each is one metric of one counter. Lines with the same `metric.unit` share a panel.
    package var series: [Series]
    /// The days shown on the x axis; points outside are ignored.
    package var period: DateRange
    /// The chart's heading (e.g. the counter's name and site).
    package var title: String
    /// A second, smaller heading line (e.g. the period), if any.
    package var subtitle: String?
    /// The share (0…1) of visits the data was computed from when the API sampled it; nil when exact.
    package var sampledShare: Double?
    /// The document's width in pixels.
    package var width: Int
    /// The document's height in pixels.
    package var height: Int
    /// False (daily data): a day absent from a series' points is a gap. True (one point per week or
    /// month, dated by the period's first day): consecutive points are joined; only nil values break.
    package var connectsAcrossDays = false
    /// The legend's name for the dotted, still-changing end of the lines: `today (incomplete)` for days,
    /// `this week so far` / `this month so far` for weeks and months.
    package var incompleteLabel = "today (incomplete)"
    /// A line printed under the chart (e.g. which partial periods were left out), if any.
    package var footnote: String?
    /// Days the counter's owner annotated in Metrika, each marked by a dashed line and its title.
    package var marks: [Mark] = []

    /// A chart annotation to mark: its day and title.
    package struct Mark: Sendable, Equatable {
        package var day: Day
        package var title: String

        package init(day: Day, title: String) {
            self.day = day
            self.title = title
        }
    }

    /// The colour of annotation marks (an amber that none of the palette's lines uses).
    static let markColor = "#9A6700"

    /// How many stacked panels the chart draws (for sizing it: each needs room).
    package var panelCount: Int { max(panelGroups().count, 1) }

    /// The smallest size that still leaves room for a readable plot.
    package static let minimumWidth = 240
    /// See `minimumWidth`.
    package static let minimumHeight = 160

    /// Creates a chart; sizes below the minimum are raised to it.
    package init(
        series: [Series], period: DateRange, title: String, subtitle: String? = nil, sampledShare: Double? = nil,
        width: Int = 800, height: Int = 400
    ) {
        self.series = series
        self.period = period
        self.title = title
        self.subtitle = subtitle
        self.sampledShare = sampledShare
        self.width = max(width, SVGLineChart.minimumWidth)
        self.height = max(height, SVGLineChart.minimumHeight)
    }

    // MARK: - Layout constants

    static let fontStack = "DejaVu Sans, Liberation Sans, Noto Sans CJK JP, Helvetica, Arial, sans-serif"
    static let titleSize = 16.0
    static let subtitleSize = 12.0
    static let legendSize = 12.0
    static let tickSize = 11.0
    static let panelTitleSize = 11.0
    static let legendLabelLimit = 48
    static let textColor = "#222222"
    static let mutedColor = "#555555"
    static let gridColor = "#E3E3E3"
    static let axisColor = "#8A8A8A"

    // MARK: - Rendering

    /// The SVG document, UTF-8 text ending with a newline.
    package func render() -> String {
        var out = ChartSVGWriter()
        let w = Double(width)
        let h = Double(height)
        let styles = series.indices.map(ChartPalette.style(at:))
        let labels = legendLabels()
        let panels = panelGroups()
        let hasIncomplete = series.contains { lineHasIncompletePoint($0) }

        out.line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        out.line(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-labelledby=\"chart-title chart-desc\" font-family=\"\(Self.fontStack)\">"
        )
        out.line("<title id=\"chart-title\">\(XMLEscape.text(titleLine()))</title>")
        out.line("<desc id=\"chart-desc\">\(XMLEscape.text(description(labels: labels)))</desc>")
        out.line("<rect x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#FFFFFF\"/>")

        // Headings.
        var cursor = 26.0
        out.text(
            fitted(title, width: w - 24, fontSize: Self.titleSize), x: 12, y: cursor, size: Self.titleSize,
            fill: Self.textColor, extra: " font-weight=\"bold\"")
        if let subtitle, !subtitle.isEmpty {
            cursor += 19
            out.text(
                fitted(subtitle, width: w - 24, fontSize: Self.subtitleSize), x: 12, y: cursor, size: Self.subtitleSize,
                fill: Self.mutedColor)
        }

        // Legend, wrapped into rows.
        cursor += 12
        var legendItems: [(label: String, style: ChartPalette.Style?)] = zip(labels, styles).map { ($0, $1) }
        if hasIncomplete { legendItems.append((incompleteLabel, nil)) }
        var x = 12.0
        var rowY = cursor + 12
        out.line("<g font-size=\"\(ChartNumber.coordinate(Self.legendSize))\" fill=\"\(Self.textColor)\">")
        for item in legendItems {
            let itemWidth = 30 + ChartTicks.estimatedWidth(of: item.label, fontSize: Self.legendSize) + 18
            if x > 12, x + itemWidth > w - 12 {
                x = 12
                rowY += 18
            }
            let sampleY = rowY - 4
            if let style = item.style {
                out.line(
                    "<line x1=\"\(c(x))\" y1=\"\(c(sampleY))\" x2=\"\(c(x + 24))\" y2=\"\(c(sampleY))\" stroke=\"\(style.color)\" stroke-width=\"2\"\(dashAttribute(style.dashArray))/>"
                )
                out.line(marker(style.marker, x: x + 12, y: sampleY, color: style.color, hollow: false))
            } else {
                out.line(
                    "<line x1=\"\(c(x))\" y1=\"\(c(sampleY))\" x2=\"\(c(x + 24))\" y2=\"\(c(sampleY))\" stroke=\"\(Self.mutedColor)\" stroke-width=\"2\" stroke-linecap=\"round\" stroke-dasharray=\"\(ChartPalette.incompleteDashArray)\"/>"
                )
            }
            out.line("<text x=\"\(c(x + 30))\" y=\"\(c(rowY))\">\(XMLEscape.text(item.label))</text>")
            x += itemWidth
        }
        out.line("</g>")
        cursor = rowY + 10

        // Vertical budget for the panels.
        let bottomLabels = 22.0
        let note = [sampledNote(), footnote].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ").nilIfEmpty
        let bottomMargin = bottomLabels + (note == nil ? 6 : 22)
        let panelTitleBand = 26.0
        let panelGap = 10.0
        let available = max(h - cursor - bottomMargin, 1)
        let panelCount = max(panels.count, 1)
        let plotHeight = max(
            (available - Double(panelCount) * panelTitleBand - Double(panelCount - 1) * panelGap) / Double(panelCount),
            24)
        let maxTicks = max(2, min(6, Int(plotHeight / 28) + 1))

        // Value axes first: their label widths decide the left margin.
        let axes = panels.map { panel in valueAxis(for: panel, maxTicks: maxTicks) }
        var widestTick = 0.0
        for (panel, axis) in zip(panels, axes) {
            for value in axis.values {
                widestTick = max(
                    widestTick,
                    ChartTicks.estimatedWidth(
                        of: ChartValueFormat.axisLabel(
                            value, unit: panel.unit, step: axis.step, currency: panel.currency), fontSize: Self.tickSize
                    ))
            }
        }
        var widestLast = 0.0
        for line in series {
            if let last = lastValue(line) {
                widestLast = max(
                    widestLast, ChartTicks.estimatedWidth(of: lastLabel(line, last), fontSize: Self.tickSize))
            }
        }
        let plotLeft = (max(28, widestTick + 18)).rounded(.up)
        let plotRight = w - (max(20, widestLast + 22)).rounded(.up)
        let plotWidth = max(plotRight - plotLeft, 40)
        let dateTicks = ChartTicks.dateTicks(
            for: period, plotWidth: plotWidth, fontSize: Self.tickSize, edgeAllowance: min(plotLeft, w - plotRight) - 4)

        if panels.isEmpty {
            let top = cursor + panelTitleBand
            out.text(
                "No data to chart", x: w / 2, y: top + plotHeight / 2, size: 14, fill: Self.mutedColor,
                extra: " text-anchor=\"middle\"")
        }

        var panelTop = cursor
        for (panelIndex, panel) in panels.enumerated() {
            let axis = axes[panelIndex]
            let top = panelTop + panelTitleBand
            let bottom = top + plotHeight
            let frame = PlotFrame(
                left: plotLeft, right: plotLeft + plotWidth, top: top, bottom: bottom, lower: axis.lower,
                upper: axis.upper)
            out.line("<g>")
            out.text(
                fitted(panelTitle(panel), width: w - 24, fontSize: Self.panelTitleSize), x: 12, y: top - 12,
                size: Self.panelTitleSize, fill: Self.mutedColor, extra: " font-weight=\"bold\"")

            // Grid and y labels.
            out.line("<g stroke=\"\(Self.gridColor)\" stroke-width=\"1\">")
            for value in axis.values {
                let y = frame.y(value)
                out.line("<line x1=\"\(c(frame.left))\" y1=\"\(c(y))\" x2=\"\(c(frame.right))\" y2=\"\(c(y))\"/>")
            }
            for tick in dateTicks {
                out.line(
                    "<line x1=\"\(c(frame.left + tick.x))\" y1=\"\(c(top))\" x2=\"\(c(frame.left + tick.x))\" y2=\"\(c(bottom))\"/>"
                )
            }
            out.line("</g>")
            out.line(
                "<line x1=\"\(c(frame.left))\" y1=\"\(c(bottom))\" x2=\"\(c(frame.right))\" y2=\"\(c(bottom))\" stroke=\"\(Self.axisColor)\" stroke-width=\"1\"/>"
            )
            out.line("<g font-size=\"\(c(Self.tickSize))\" fill=\"\(Self.mutedColor)\" text-anchor=\"end\">")
            for value in axis.values {
                out.line(
                    "<text x=\"\(c(frame.left - 6))\" y=\"\(c(frame.y(value) + 4))\">\(XMLEscape.text(ChartValueFormat.axisLabel(value, unit: panel.unit, step: axis.step, currency: panel.currency)))</text>"
                )
            }
            out.line("</g>")

            // Annotated days: a dashed line through every panel, the title in the first.
            for mark in marks where period.contains(mark.day) {
                let mx = frame.left + ChartTicks.x(of: mark.day, in: period, plotWidth: plotWidth)
                out.line(
                    "<line x1=\"\(c(mx))\" y1=\"\(c(top))\" x2=\"\(c(mx))\" y2=\"\(c(bottom))\" stroke=\"\(Self.markColor)\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>"
                )
                guard panelIndex == 0 else { continue }
                let leftward = mx > frame.left + plotWidth * 0.6
                let room = leftward ? mx - frame.left - 6 : frame.right - mx - 6
                out.text(
                    fitted(mark.title, width: max(room, 40), fontSize: Self.tickSize), x: leftward ? mx - 4 : mx + 4,
                    y: top + 12, size: Self.tickSize, fill: Self.markColor,
                    extra: leftward ? " text-anchor=\"end\"" : "")
            }

            // Lines.
            var lastLabels: [LastLabel] = []
            for index in panel.seriesIndices {
                let line = series[index]
                let style = styles[index]
                drawLine(line, style: style, frame: frame, into: &out)
                if let last = lastValue(line) {
                    let px = frame.left + ChartTicks.x(of: last.day, in: period, plotWidth: plotWidth)
                    let py = frame.y(last.value)
                    let hollow = line.incompleteFrom.map { last.day >= $0 } ?? false
                    out.line(marker(style.marker, x: px, y: py, color: style.color, hollow: hollow))
                    lastLabels.append(LastLabel(y: py, text: lastLabel(line, last), color: style.color))
                }
            }
            if !panel.hasValues {
                out.text(
                    "No data for this period", x: frame.left + plotWidth / 2, y: top + plotHeight / 2 + 4, size: 12,
                    fill: Self.mutedColor, extra: " text-anchor=\"middle\"")
            }
            out.line("<g font-size=\"\(c(Self.tickSize))\" font-weight=\"bold\">")
            for label in spread(lastLabels, top: top, bottom: bottom) {
                out.line(
                    "<text x=\"\(c(frame.right + 8))\" y=\"\(c(label.y + 4))\" fill=\"\(label.color)\">\(XMLEscape.text(label.text))</text>"
                )
            }
            out.line("</g>")
            out.line("</g>")
            panelTop = bottom + panelGap
        }

        // Date labels under the last panel.
        let axisBottom = panels.isEmpty ? cursor + panelTitleBand + plotHeight : panelTop - panelGap
        out.line("<g font-size=\"\(c(Self.tickSize))\" fill=\"\(Self.mutedColor)\" text-anchor=\"middle\">")
        for tick in dateTicks {
            out.line(
                "<text x=\"\(c(plotLeft + tick.x))\" y=\"\(c(axisBottom + 16))\">\(XMLEscape.text(tick.label))</text>")
        }
        out.line("</g>")
        if let note {
            out.text(
                fitted(note, width: w - 24, fontSize: Self.tickSize), x: 12, y: h - 8, size: Self.tickSize,
                fill: Self.mutedColor, extra: " font-style=\"italic\"")
        }
        out.line("</svg>")
        return out.text
    }

    // MARK: - Panels and axes

    struct Panel {
        let unit: MetricUnit
        /// Money panels: the currency of their lines (revenue in ₽ and in $ never share an axis).
        var currency: Currency? = nil
        var seriesIndices: [Int]
        var metrics: [Metric]
        var lowest: Double?
        var highest: Double?
        /// Set when lines of this unit were split by size: the legend labels of this panel's lines.
        var lineNames: [String]?
        var hasValues: Bool { lowest != nil }
    }

    /// Lines whose peaks differ by more than this factor do not share an axis.
    package static let sharedAxisRatio = 10.0

    /// Series grouped by unit, panels in the order their unit first appears. Within a unit, a line
    /// whose peak is more than 10× below the largest line of a panel gets a panel (and axis) of its
    /// own — small multiples — because on a shared axis it would lie flat at zero: 4 thousand visits
    /// next to 600 thousand.
    func panelGroups() -> [Panel] {
        let labels = legendLabels()
        // One group per unit, and per currency for money.
        var keys: [Quantity] = []
        for line in series {
            let key = Quantity(nil, unit: line.metric.unit, currency: line.metric.currency)
            if !keys.contains(key) { keys.append(key) }
        }
        var panels: [Panel] = []
        for key in keys {
            let unit = key.unit
            let members = series.indices.filter {
                series[$0].metric.unit == unit && series[$0].metric.currency == key.currency
            }
            // Largest peak first, so each cluster is anchored on its biggest line.
            let ranked = members.sorted { (peak(series[$0]) ?? 0, -$0) > (peak(series[$1]) ?? 0, -$1) }
            var clusters: [(top: Double, indices: [Int])] = []
            for index in ranked {
                let value = peak(series[index]) ?? 0
                if let position = clusters.firstIndex(where: { value <= 0 || value * Self.sharedAxisRatio >= $0.top }) {
                    clusters[position].indices.append(index)
                } else {
                    clusters.append((value, [index]))
                }
            }
            let ordered = clusters.map { $0.indices.sorted() }.sorted { $0[0] < $1[0] }
            for indices in ordered {
                var panel = Panel(unit: unit, currency: key.currency, seriesIndices: indices, metrics: [])
                if ordered.count > 1 { panel.lineNames = indices.map { labels[$0] } }
                for index in indices {
                    let line = series[index]
                    if !panel.metrics.contains(line.metric) { panel.metrics.append(line.metric) }
                    for point in line.points where period.contains(point.day) {
                        guard let value = point.value, value.isFinite else { continue }
                        panel.lowest = min(panel.lowest ?? value, value)
                        panel.highest = max(panel.highest ?? value, value)
                    }
                }
                panels.append(panel)
            }
        }
        return panels
    }

    /// The largest absolute finite value of a line within the period.
    func peak(_ line: Series) -> Double? {
        var best: Double?
        for point in line.points where period.contains(point.day) {
            guard let value = point.value, value.isFinite else { continue }
            best = max(best ?? abs(value), abs(value))
        }
        return best
    }

    /// Counts, durations and depths start at zero so that heights compare honestly; percents and other
    /// numbers start at zero too unless the data sits high above it (then zero would flatten the line).
    func valueAxis(for panel: Panel, maxTicks: Int) -> ChartTicks.ValueTicks {
        let lowest = panel.lowest ?? 0
        let highest = panel.highest ?? 0
        let fromZero: Bool
        switch panel.unit {
        case .count, .seconds, .pagesPerVisit, .money: fromZero = true
        case .percent, .number: fromZero = lowest <= 0 || lowest < highest / 2
        }
        return ChartTicks.valueTicks(
            lowest: lowest, highest: highest, unit: panel.unit, fromZero: fromZero, maxTicks: maxTicks)
    }

    func panelTitle(_ panel: Panel) -> String {
        var names = panel.metrics.map(\.title).joined(separator: ", ")
        if let lines = panel.lineNames {
            // Split by size: name the lines, minus the metric the title already says. A panel of one
            // metric names its counters alone ("Visits · Shop", never "Visits · Shop · Visits").
            let metricTitles = Set(panel.metrics.map(\.title))
            var others: [String] = []
            for (position, index) in panel.seriesIndices.enumerated() {
                let name =
                    panel.metrics.count == 1
                    ? Self.truncated(Self.counterLabel(series[index].counter), limit: Self.legendLabelLimit)
                    : lines[position]
                if !metricTitles.contains(name), !others.contains(name) { others.append(name) }
            }
            if !others.isEmpty { names += " · " + others.joined(separator: ", ") }
        }
        switch panel.unit {
        case .count: return names
        case .percent: return names + " (%)"
        case .seconds: return names + " (mm:ss)"
        case .pagesPerVisit: return names + " (pages per visit)"
        case .number: return names
        case .money: return names + (panel.currency.map { " (\($0.code))" } ?? "")
        }
    }

    // MARK: - Lines

    struct PlotFrame {
        let left, right, top, bottom, lower, upper: Double
        func y(_ value: Double) -> Double {
            let span = upper - lower
            guard span > 0 else { return bottom }
            return bottom - (value - lower) / span * (bottom - top)
        }
    }

    /// Draws a series: solid (or its dash) up to the last complete day, dotted into the incomplete
    /// days, broken wherever a day is missing, and a dot for a day that stands alone between gaps.
    func drawLine(_ line: Series, style: ChartPalette.Style, frame: PlotFrame, into out: inout ChartSVGWriter) {
        let plotWidth = frame.right - frame.left
        var complete: [(x: Double, y: Double?)] = []
        var incomplete: [(x: Double, y: Double?)] = []
        var previousDay: Day?
        var lastComplete: (day: Day, value: Double?)?
        for point in line.points.sorted(by: { $0.day < $1.day }) where period.contains(point.day) {
            let isIncomplete = line.incompleteFrom.map { point.day >= $0 } ?? false
            let position = (
                x: frame.left + ChartTicks.x(of: point.day, in: period, plotWidth: plotWidth),
                y: point.value.map(frame.y)
            )
            if isIncomplete {
                if incomplete.isEmpty, let lastComplete, let value = lastComplete.value,
                    lastComplete.day.adding(days: 1) == point.day
                        || (connectsAcrossDays && lastComplete.day == previousDay)
                {
                    // The dotted part starts where the solid part ends, so the line stays continuous.
                    incomplete.append(
                        (
                            x: frame.left + ChartTicks.x(of: lastComplete.day, in: period, plotWidth: plotWidth),
                            y: frame.y(value)
                        ))
                } else if !connectsAcrossDays, let previousDay, previousDay.adding(days: 1) < point.day {
                    incomplete.append((x: position.x, y: nil))
                }
                incomplete.append(position)
            } else {
                // A day absent from the list is a gap just like an explicit nil: never bridged.
                if !connectsAcrossDays, let previousDay, previousDay.adding(days: 1) < point.day {
                    complete.append((x: position.x, y: nil))
                }
                complete.append(position)
                lastComplete = point
            }
            previousDay = point.day
        }
        let dash = dashAttribute(style.dashArray)
        for run in ChartLineSimplifier.runs(complete) {
            drawRun(run, color: style.color, extra: dash, into: &out)
        }
        for run in ChartLineSimplifier.runs(incomplete) {
            drawRun(
                run, color: style.color,
                extra: " stroke-linecap=\"round\" stroke-dasharray=\"\(ChartPalette.incompleteDashArray)\"", into: &out)
        }
    }

    func drawRun(_ run: [ChartLineSimplifier.Point], color: String, extra: String, into out: inout ChartSVGWriter) {
        guard let first = run.first else { return }
        if run.count == 1 {
            out.line("<circle cx=\"\(c(first.x))\" cy=\"\(c(first.y))\" r=\"2.5\" fill=\"\(color)\"/>")
            return
        }
        var path = "M" + c(first.x) + " " + c(first.y)
        for point in run.dropFirst() { path += "L" + c(point.x) + " " + c(point.y) }
        out.line(
            "<path d=\"\(path)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" stroke-linejoin=\"round\"\(extra)/>"
        )
    }

    func lineHasIncompletePoint(_ line: Series) -> Bool {
        guard let from = line.incompleteFrom else { return false }
        return line.points.contains { $0.day >= from && period.contains($0.day) && $0.value != nil }
    }

    /// The last value's label: `5.7k`, or `5.7k so far` when its period is not over.
    func lastLabel(_ line: Series, _ last: (day: Day, value: Double)) -> String {
        let text = ChartValueFormat.label(last.value, unit: line.metric.unit, currency: line.metric.currency)
        let partial = line.incompleteFrom.map { last.day >= $0 } ?? false
        return partial && connectsAcrossDays ? text + " so far" : text
    }

    /// The latest day in the period that has a value.
    func lastValue(_ line: Series) -> (day: Day, value: Double)? {
        var best: (day: Day, value: Double)?
        for point in line.points where period.contains(point.day) {
            guard let value = point.value, value.isFinite else { continue }
            if best == nil || point.day > best!.day { best = (point.day, value) }
        }
        return best
    }

    struct LastLabel {
        var y: Double
        let text: String
        let color: String
    }

    /// Moves last-value labels apart vertically so that none overlaps another, keeping their order.
    func spread(_ labels: [LastLabel], top: Double, bottom: Double) -> [LastLabel] {
        let spacing = Self.tickSize + 2
        var sorted = labels.enumerated().sorted { ($0.element.y, $0.offset) < ($1.element.y, $1.offset) }.map(\.element)
        for index in sorted.indices.dropFirst() where sorted[index].y < sorted[index - 1].y + spacing {
            sorted[index].y = sorted[index - 1].y + spacing
        }
        if let last = sorted.last, last.y > bottom {
            // Pushed below the plot: shift the stack up from the bottom instead.
            sorted[sorted.count - 1].y = bottom
            for index in sorted.indices.dropLast().reversed() where sorted[index].y > sorted[index + 1].y - spacing {
                sorted[index].y = sorted[index + 1].y - spacing
            }
        }
        return sorted
    }

    func marker(_ shape: ChartPalette.Marker, x: Double, y: Double, color: String, hollow: Bool) -> String {
        let fill = hollow ? "#FFFFFF" : color
        let paint = "fill=\"\(fill)\" stroke=\"\(color)\" stroke-width=\"1.5\""
        let r = 4.0
        switch shape {
        case .circle:
            return "<circle cx=\"\(c(x))\" cy=\"\(c(y))\" r=\"\(c(r))\" \(paint)/>"
        case .square:
            return
                "<rect x=\"\(c(x - r + 0.5))\" y=\"\(c(y - r + 0.5))\" width=\"\(c(2 * r - 1))\" height=\"\(c(2 * r - 1))\" \(paint)/>"
        case .triangle:
            return polygon([(x, y - r - 0.5), (x + r, y + r - 1), (x - r, y + r - 1)], paint: paint)
        case .triangleDown:
            return polygon([(x, y + r + 0.5), (x + r, y - r + 1), (x - r, y - r + 1)], paint: paint)
        case .diamond:
            return polygon([(x, y - r - 0.5), (x + r + 0.5, y), (x, y + r + 0.5), (x - r - 0.5, y)], paint: paint)
        case .cross:
            let a = r - 0.5
            return
                "<path d=\"M\(c(x - a)) \(c(y - a))L\(c(x + a)) \(c(y + a))M\(c(x - a)) \(c(y + a))L\(c(x + a)) \(c(y - a))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2.5\"/>"
        }
    }

    func polygon(_ points: [(Double, Double)], paint: String) -> String {
        "<polygon points=\"" + points.map { c($0.0) + "," + c($0.1) }.joined(separator: " ") + "\" \(paint)/>"
    }

    func dashAttribute(_ dash: String?) -> String {
        dash.map { " stroke-dasharray=\"\($0)\"" } ?? ""
    }

    // MARK: - Text

    /// Legend labels name only what differs between lines: the metric for one counter, the counter for
    /// one metric, both otherwise.
    func legendLabels() -> [String] {
        let counterIDs = Set(series.map(\.counter.id))
        let metricNames = Set(series.map(\.metric.apiName))
        return series.map { line in
            let counter = Self.counterLabel(line.counter)
            let label: String
            if counterIDs.count <= 1 {
                label = line.metric.title
            } else if metricNames.count <= 1 {
                label = counter
            } else {
                label = counter + " · " + line.metric.title
            }
            return Self.truncated(label, limit: Self.legendLabelLimit)
        }
    }

    static func counterLabel(_ counter: Counter) -> String {
        let name = counter.name.trimmingSpaces
        if !name.isEmpty { return name }
        if !counter.site.isEmpty { return counter.site }
        return "Counter " + String(counter.id)
    }

    func titleLine() -> String {
        guard let subtitle, !subtitle.isEmpty else { return title }
        return title + " — " + subtitle
    }

    func description(labels: [String]) -> String {
        let metrics = uniqueTitles(series.map(\.metric.title))
        var text =
            "Daily " + (metrics.isEmpty ? "values" : metrics.joined(separator: ", ")) + " from " + period.from.iso
            + " to " + period.to.iso + "."
        var finals: [String] = []
        for (line, label) in zip(series, labels) {
            if let last = lastValue(line) {
                finals.append(
                    label + " "
                        + ChartValueFormat.label(last.value, unit: line.metric.unit, currency: line.metric.currency)
                        + " on " + last.day.iso)
            } else {
                finals.append(label + " no data")
            }
        }
        if !finals.isEmpty { text += " Last values: " + finals.joined(separator: "; ") + "." }
        if series.contains(where: lineHasIncompletePoint) {
            text +=
                connectsAcrossDays
                ? " The current period is not over (\(incompleteLabel)) and drawn dotted."
                : " The current day is incomplete and drawn dotted."
        }
        if let note = sampledNote() { text += " " + note }
        if let footnote, !footnote.isEmpty { text += " " + footnote }
        return text
    }

    func uniqueTitles(_ titles: [String]) -> [String] {
        var seen: Set<String> = []
        return titles.filter { seen.insert($0).inserted }
    }

    func sampledNote() -> String? {
        guard let share = sampledShare, share < 1 else { return nil }
        return "Sampled data: estimates from " + DecimalText.trimmed(max(0, share) * 100, maxFractionDigits: 2)
            + "% of visits."
    }

    /// Text cut with an ellipsis so that its estimated width fits.
    func fitted(_ text: String, width: Double, fontSize: Double) -> String {
        guard ChartTicks.estimatedWidth(of: text, fontSize: fontSize) > width else { return text }
        var characters = Array(text)
        while !characters.isEmpty, ChartTicks.estimatedWidth(of: String(characters) + "…", fontSize: fontSize) > width {
            characters.removeLast()
        }
        return String(characters) + "…"
    }

    static func truncated(_ text: String, limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    func c(_ value: Double) -> String { ChartNumber.coordinate(value) }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
