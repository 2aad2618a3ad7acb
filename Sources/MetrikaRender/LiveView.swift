import MetrikaModel

/// The live screen for one counter, rendered to text for a given size: a header (the
/// counter, the date and time, visits so far against expected by now with the verdict, the goals), a
/// bar chart of today's visits by hour over the band of the same hours in earlier weeks, an hour axis,
/// a legend and a footer (last data, requests spent today, the refresh interval, the keys). Pure: the
/// same snapshot and size give the same bytes; colour (SGR) only when asked, so NO_COLOR and a pipe
/// get plain text. Every line fits the width in terminal columns (`displayWidth`: Cyrillic 1, CJK 2).
package struct LiveView: Sendable {
    package var width: Int
    package var height: Int
    package var colour: Bool
    /// This counter's place among those shown (`[2/3]` in the header when there are several).
    package var index: Int = 0
    package var count: Int = 1
    /// The refresh interval in minutes, shown in the footer.
    package var every: Int = 5
    /// A full-screen view: the footer names the keys.
    package var interactive: Bool = false
    /// The key list instead of the chart (`?`).
    package var showKeys: Bool = false
    /// One line in place of the legend: a failed refresh, say (already sanitized by the caller).
    package var message: String?

    /// What shows the view, in its entry point's words (`metrika live` at the shell): the line that
    /// says the terminal is too small names it.
    package var shownBy: String

    package init(width: Int, height: Int, colour: Bool, shownBy: String) {
        self.width = width
        self.height = height
        self.colour = colour
        self.shownBy = shownBy
    }

    /// The smallest screen the view is drawn on; below it a single line says so. The width holds the
    /// chart whole: the value labels, the axis and 24 hours of two columns (7 + 1 + 48).
    package static let minimumWidth = 56
    package static let minimumHeight = 12
    /// Lines of a plain snapshot (no terminal): the chart gets 10 rows.
    package static let snapshotHeight = 18
    /// Lines around the chart: three of header, a blank, the axis, the hour labels, the legend, the footer.
    static let fixedLines = 8

    /// The screen as `height` lines joined by `\n` (no trailing newline), each at most `width` columns.
    package func render(_ snapshot: LiveSnapshot) -> String {
        lines(snapshot).joined(separator: "\n")
    }

    /// The screen's lines (at most `height`), each at most `width` columns, trailing spaces trimmed.
    package func lines(_ snapshot: LiveSnapshot) -> [String] {
        guard width >= Self.minimumWidth, height >= Self.minimumHeight else {
            // Wrapped, never cut: the size it needs is the point of the message.
            let text =
                "Terminal too small: \(shownBy) needs \(Self.minimumWidth)×\(Self.minimumHeight) (this one is \(width)×\(height))."
            return Array(Self.wrap(text, width).prefix(max(1, height)))
        }
        var out: [Line] = []
        out.append(header(snapshot))
        out.append(totals(snapshot))
        out.append(goals(snapshot))
        out.append(Line())
        let rows = height - Self.fixedLines
        if showKeys {
            var keys = Self.keyLines.map { Line($0) }
            while keys.count < rows + 2 { keys.append(Line()) }
            out += keys.prefix(rows + 2)
        } else {
            out += chart(snapshot, rows: rows)
        }
        if let message {
            out.append(Line(message, .bad))
        } else {
            out.append(legend)
        }
        out.append(footer(snapshot))
        return out.prefix(height).map { $0.text(width: width, colour: colour) }
    }

    /// The keys `?` shows.
    package static let keyLines = [
        "Keys",
        "  q, Ctrl-C          quit",
        "  r                  refresh now",
        "  Tab, →             next counter",
        "  Shift-Tab, ←       previous counter",
        "  ?                  show or hide this list"
    ]

    // MARK: - Header

    private func header(_ snapshot: LiveSnapshot) -> Line {
        var right = CompactDate.day(snapshot.day) + " " + snapshot.clock
        if count > 1 { right += "  [\(index + 1)/\(count)]" }
        let id = " · " + String(snapshot.counterID)
        let room = width - displayWidth(of: right) - displayWidth(of: id) - 2
        let name = Self.fit(TerminalText.sanitize(snapshot.counterName), max(1, room))
        var line = Line(name, .bold)
        line.add(id)
        line.add(String(repeating: " ", count: max(1, width - line.width - displayWidth(of: right))))
        line.add(right)
        return line
    }

    /// The totals, shortened until they fit: the verdict is kept whole (`−100% since 14:00`), the
    /// words around the numbers go first.
    private func totals(_ snapshot: LiveSnapshot) -> Line {
        let forms: [(label: String, expected: String?)] = [
            ("Visits so far ", " · expected by now ~"), ("Visits so far ", " · expected ~"), ("Visits ", " · ~"),
            ("Visits ", nil)
        ]
        for form in forms.dropLast() {
            let line = totals(snapshot, label: form.label, expected: form.expected)
            if line.width <= width { return line }
        }
        return totals(snapshot, label: "Visits ", expected: nil)
    }

    private func totals(_ snapshot: LiveSnapshot, label: String, expected expectedLabel: String?) -> Line {
        var line = Line(label)
        line.add(Self.count(snapshot.visitsSoFar), .bold)
        if let expected = snapshot.expectedByNow, let expectedLabel {
            line.add(expectedLabel + Self.count(expected))
        }
        line.add(" · ")
        let style: Style
        switch snapshot.verdict {
        case .onTrack: style = .good
        case .off(let percent, _): style = percent < 0 ? .bad : .good
        case .noBaseline, .noData: style = .dim
        }
        line.add(snapshot.verdict.text, style)
        return line
    }

    private func goals(_ snapshot: LiveSnapshot) -> Line {
        guard !snapshot.goals.isEmpty else { return Line("Goals: none", .dim) }
        let parts = snapshot.goals.map { goal in
            TerminalText.sanitize(goal.name) + " " + Self.count(goal.reaches)
                + (goal.expected.map { " (~" + Self.count($0) + ")" } ?? "")
        }
        return Line("Goals: " + parts.joined(separator: " · "))
    }

    // MARK: - Chart

    /// The columns of one hour (its bar and a gap) for this width.
    var slot: Int { max(2, min(5, (width - labelWidth - 1) / 24)) }

    /// The width of the value labels on the left.
    var labelWidth: Int { 7 }

    private func chart(_ snapshot: LiveSnapshot, rows: Int) -> [Line] {
        let top = Self.niceCeiling(snapshot.hours.reduce(1) { max($0, $1.visits ?? 0, $1.band?.high ?? 0) })
        let bar = slot - 1
        var lines: [Line] = []
        for row in 0..<rows {
            let fromBottom = rows - 1 - row
            let lower = top * Double(fromBottom) / Double(rows)
            let upper = top * Double(fromBottom + 1) / Double(rows)
            var label = ""
            if row == 0 {
                label = Self.count(top)
            } else if row == rows / 2, rows >= 6 {
                label = Self.count(top * Double(fromBottom + 1) / Double(rows))
            }
            var line = Line(
                String(repeating: " ", count: max(0, labelWidth - 1 - displayWidth(of: label))) + label + " ", .dim)
            line.add(label.isEmpty ? "│" : "┤", .dim)
            for hour in snapshot.hours {
                let (glyph, style) = cell(
                    hour, lower: lower, upper: upper, rows: rows, top: top, fromBottom: fromBottom)
                line.add(String(repeating: glyph, count: bar), style)
                line.add(" ")
            }
            lines.append(line)
        }
        // The axis: a mark under the running hour.
        var axis = Line(String(repeating: " ", count: labelWidth - 1) + "0", .dim)
        axis.add("┴", .dim)
        for hour in snapshot.hours {
            if hour.running {
                axis.add(String(repeating: "▲", count: bar), .running)
                axis.add("─", .dim)
            } else {
                axis.add(String(repeating: "─", count: slot), .dim)
            }
        }
        lines.append(axis)
        let step = slot >= 4 ? 2 : 3
        var labels = String(repeating: " ", count: labelWidth)
        for hour in stride(from: 0, to: 24, by: step) {
            let text = (hour < 10 ? "0" : "") + String(hour)
            let column = labelWidth + 1 + hour * slot
            if labels.count < column { labels += String(repeating: " ", count: column - labels.count) }
            labels += text
        }
        lines.append(Line(labels, .dim))
        return lines
    }

    /// One cell of an hour's column: the bar (eighth blocks at its top), else the band (`░`, its median `─`).
    private func cell(_ hour: LiveSnapshot.Hour, lower: Double, upper: Double, rows: Int, top: Double, fromBottom: Int)
        -> (String, Style?)
    {
        if let visits = hour.visits, visits > 0 {
            let fill = min(1, max(0, visits / top * Double(rows) - Double(fromBottom)))
            let eighths = Int((fill * 8).rounded())
            if eighths > 0 { return (Self.blocks[eighths], hour.running ? .running : .bar) }
        }
        if let band = hour.band, band.high > 0, band.high >= lower, band.low <= upper {
            if band.median >= lower, band.median < upper { return ("─", .median) }
            return ("░", .band)
        }
        return (" ", nil)
    }

    private static let blocks = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    private var legend: Line {
        var line = Line("█", .bar)
        line.add(" today  ")
        line.add("░", .band)
        line.add(" usual range  ")
        line.add("─", .median)
        line.add(" usual (same hours, same weekday, earlier weeks)")
        return line
    }

    private func footer(_ snapshot: LiveSnapshot) -> Line {
        var parts = [
            "Last data " + (snapshot.lastData ?? "—"),
            "\(snapshot.requestsToday) request\(snapshot.requestsToday == 1 ? "" : "s") today"
        ]
        if interactive {
            parts.append("every \(every) min")
            parts.append("q quit · ? keys")
        }
        var text = parts.joined(separator: " · ")
        while displayWidth(of: text) > width, parts.count > 2 {
            parts.removeLast()
            text = parts.joined(separator: " · ")
        }
        return Line(text, .dim)
    }

    // MARK: - Text

    /// A count as the one number text (`12 345`).
    static func count(_ value: Double) -> String {
        ValueFormatter.format(Quantity(value, unit: .count), grouping: true, missing: ValueFormatter.missingInTable)
    }

    /// The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10ⁿ at or above `value` (so the top label is a
    /// round number, and the chart uses most of its height).
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 1 else { return 1 }
        var power = 1.0
        while power * 10 < value { power *= 10 }
        for step in [1.0, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10] where step * power >= value { return step * power }
        return value
    }

    /// `text` in lines of at most `columns` terminal columns, broken between words (a word longer than
    /// a line is cut with `…`).
    package static func wrap(_ text: String, _ columns: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ").map(String.init) {
            let candidate = current.isEmpty ? word : current + " " + word
            if displayWidth(of: candidate) <= columns {
                current = candidate
            } else {
                if !current.isEmpty { lines.append(current) }
                current = fit(word, columns)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// `text` cut to `columns` terminal columns, ending in `…` when cut.
    package static func fit(_ text: String, _ columns: Int) -> String {
        guard displayWidth(of: text) > columns else { return text }
        guard columns > 0 else { return "" }
        var out = ""
        var used = 0
        for character in text {
            let wide = displayWidth(of: character)
            if used + wide > columns - 1 { break }
            out.append(character)
            used += wide
        }
        return out + "…"
    }

    enum Style {
        case bold, dim, good, bad, bar, running, band, median

        var code: String {
            switch self {
            case .bold: return "1"
            case .dim: return "2"
            case .good: return "32"
            case .bad: return "31"
            case .bar: return "36"
            case .running: return "33"
            case .band: return "90"
            case .median: return "37"
            }
        }
    }

    /// A line as styled spans, measured in terminal columns before any escape is added.
    struct Line {
        var spans: [(text: String, style: Style?)] = []

        init() {}

        init(_ text: String, _ style: Style? = nil) {
            spans = [(text, style)]
        }

        mutating func add(_ text: String, _ style: Style? = nil) {
            spans.append((text, style))
        }

        var width: Int { spans.reduce(0) { $0 + displayWidth(of: $1.text) } }

        /// The text cut to `width` columns, trailing spaces trimmed, with SGR codes when `colour`.
        func text(width: Int, colour: Bool) -> String {
            var kept: [(text: String, style: Style?)] = []
            var used = 0
            for span in spans {
                let spanWidth = displayWidth(of: span.text)
                if used + spanWidth <= width {
                    kept.append(span)
                    used += spanWidth
                } else {
                    kept.append((LiveView.fit(span.text, width - used), span.style))
                    break
                }
            }
            while let last = kept.last {
                let trimmed = String(last.text.reversed().drop { $0 == " " }.reversed())
                if trimmed.isEmpty {
                    kept.removeLast()
                    continue
                }
                kept[kept.count - 1].text = trimmed
                break
            }
            return kept.map { span in
                guard colour, let style = span.style, !span.text.isEmpty else { return span.text }
                return "\u{1B}[" + style.code + "m" + span.text + "\u{1B}[0m"
            }.joined()
        }
    }
}
