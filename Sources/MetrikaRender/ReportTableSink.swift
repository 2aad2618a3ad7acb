import MetrikaModel
import MetrikaSystem

/// Collects a report and prints it as aligned text: a title per counter, a header, rows with
/// grouped numbers, today's incomplete row marked, a totals row, and for time series one sparkline
/// per metric so the shape of the period is seen at a glance.
package final class ReportTableSink: ReportSink {
    private let out: OutputWriter
    private let maxWidth: Int?
    private var layout: ReportLayout?
    private var counter: Counter?
    private var sampling: Sampling?
    private var previous: Report.Previous?
    private var rows: [Report.Row] = []
    private var rest: Report.LeftOut?
    private var sectionCount = 0

    /// Colours a `--compare` change such as `+5.2%` by what it means for its metric (a rising bounce
    /// rate is bad news; a colour terminal only), or nil: plain text.
    private let colourChange: (@Sendable (String, GoodDirection) -> String)?
    /// Where the "before" values a narrow table left out can be seen, in the entry point's words
    /// (nil: the note says only that they were left out).
    private let beforeElsewhere: String?

    /// `maxWidth`: the terminal width when stdout is a terminal, else nil. A table wider than it keeps
    /// its key column (date, source…) whole: `--compare` first leaves out its "before" columns, then
    /// the metrics are split into blocks that each repeat the key (see `TextTable.keyColumnCount`).
    /// `colourChange`: given only for a colour terminal.
    /// `beforeElsewhere`: where the left-out "before" values are kept, as the caller words it (the CLI
    /// names its options, MCP the structured content).
    package init(
        output: OutputWriter, maxWidth: Int?, colourChange: (@Sendable (String, GoodDirection) -> String)? = nil,
        beforeElsewhere: String? = nil
    ) {
        self.out = output
        self.maxWidth = maxWidth
        self.colourChange = colourChange
        self.beforeElsewhere = beforeElsewhere
    }

    package func begin(_ layout: ReportLayout) { self.layout = layout }

    package func beginSection(counter: Counter, sampling: Sampling?) {
        self.counter = counter
        self.sampling = sampling
        previous = nil
        rows = []
        rest = nil
    }

    package func compareSection(_ previous: Report.Previous) { self.previous = previous }

    package func leftOut(_ rest: Report.LeftOut) { self.rest = rest }

    package func append(_ rows: [Report.Row]) { self.rows += rows }

    package func endSection(totals: [Quantity], missingDays: [Day]) throws {
        guard let layout, let counter else { return }
        if sectionCount > 0 { try out.write("\n") }
        sectionCount += 1
        var keyColumns: [TextTable.Column] = []
        if let grouping = layout.grouping {
            keyColumns.append(.init(grouping == .day ? "Date" : grouping == .week ? "Week of" : "Month"))
        } else {
            keyColumns = layout.dimensions.map { .init($0.title) }
        }
        // A report without dimensions (`"dimensions": []`) still needs a column for the Total label.
        let labelColumn = keyColumns.isEmpty
        if labelColumn { keyColumns = [.init("")] }
        var title = Self.title(counter: counter, layout: layout)
        if layout.compare, let previous {
            title += " · " + previous.comparedText(current: layout.period)
        }
        var table = makeTable(
            layout: layout, keyColumns: keyColumns, labelColumn: labelColumn, totals: totals, before: true)
        // Too wide for the terminal: the previous values go first (the change still says how they
        // compare), and a note says where to see them.
        var beforeLeftOut = false
        if layout.compare, let maxWidth, table.naturalWidth > maxWidth {
            table = makeTable(
                layout: layout, keyColumns: keyColumns, labelColumn: labelColumn, totals: totals, before: false)
            beforeLeftOut = true
        }
        for line in Self.titleLines(title, maxWidth: maxWidth) { try out.write(line + "\n") }
        try table.write(maxWidth: maxWidth, to: out)
        let anyIncomplete = rows.contains { $0.isIncomplete }
        if beforeLeftOut {
            try out.write("\"before\" values left out to fit\(beforeElsewhere.map { "; \($0)" } ?? "").\n")
        }
        if rows.isEmpty { try out.write("(no data for this period)\n") }
        if anyIncomplete {
            let what = layout.grouping == .week ? "this week" : layout.grouping == .month ? "this month" : "today"
            try out.write("* \(what) is not over yet: its numbers will still change.\n")
        }
        if let sampling, sampling.isSampled {
            try out.write(
                "Sampled: numbers are estimates from \(DecimalText.format(sampling.share * 100, fractionDigits: 1))% of visits.\n"
            )
        }
        // Missing days are reported on stderr by the command (for every format), not here.
        if layout.grouping != nil, rows.count >= 2, rows.contains(where: { $0.values.contains { $0.value != nil } }) {
            try writeSparklines(layout: layout)
        }
    }

    package func end() {}

    /// The section's table: one row per period or dimension value, then the totals. With `--compare`
    /// each metric is followed by its previous value (unless `before` is false) and the change,
    /// coloured by what it means for that metric.
    private func makeTable(
        layout: ReportLayout, keyColumns: [TextTable.Column], labelColumn: Bool, totals: [Quantity], before: Bool
    ) -> TextTable {
        let colourChange = self.colourChange
        let metricColumns = layout.metrics.flatMap { metric -> [TextTable.Column] in
            let column = TextTable.Column(Self.header(metric, raw: layout.raw), alignment: .right)
            guard layout.compare else { return [column] }
            let direction = metric.goodDirection
            let style = colourChange.map { colour in { @Sendable (text: String) in colour(text, direction) } }
            let change = TextTable.Column("change", alignment: .right, staysWithPrevious: true, style: style)
            return before
                ? [column, TextTable.Column("before", alignment: .right, staysWithPrevious: true), change]
                : [column, change]
        }
        var table = TextTable(columns: keyColumns + metricColumns)
        table.keyColumnCount = keyColumns.count
        for row in rows {
            var cells: [String]
            if let grouping = layout.grouping {
                let start = row.period?.from ?? Day(iso: row.dimensions.first?.name ?? "") ?? layout.period.from
                var label = grouping == .month ? String(start.iso.prefix(7)) : start.iso
                // A week or month cut by the report's range says so: its numbers cover fewer days.
                if let period = row.period, Self.isCut(period, grouping: grouping) {
                    label += " (\(period.dayCount) day\(period.dayCount == 1 ? "" : "s"))"
                }
                cells = [label]
            } else {
                cells = (0..<max(layout.dimensions.count, labelColumn ? 1 : 0)).map { index in
                    index < row.dimensions.count && index < layout.dimensions.count
                        ? (row.dimensions[index].name ?? "(not set)") : ""
                }
            }
            cells += valueCells(
                row.values, previous: row.previous, layout: layout, before: before, presence: row.presence)
            table.append(cells, note: row.isIncomplete ? "*" : nil)
        }
        if !rows.isEmpty {
            let padding = Array(repeating: "", count: layout.grouping == nil ? max(0, layout.dimensions.count - 1) : 0)
            // A limited report: the rows left out, and the Total said to be over all of them.
            if let rest {
                let values: [String]
                if layout.compare, let previous = rest.previous {
                    values = valueCells(rest.values, previous: previous, layout: layout, before: before)
                } else {
                    values =
                        layout.compare
                        ? rest.values.flatMap { value in
                            before ? [cell(value, raw: layout.raw), "", ""] : [cell(value, raw: layout.raw), ""]
                        }
                        : rest.values.map { cell($0, raw: layout.raw) }
                }
                table.append([rest.label] + padding + values)
            }
            table.appendSeparator()
            table.append(
                [rest?.totalLabel ?? "Total"] + padding
                    + valueCells(totals, previous: previous, layout: layout, before: before))
        }
        return table
    }

    /// The title as lines no wider than `maxWidth`: broken at its ` · ` separators (the counter, the
    /// period, the grouping) rather than cut, so a narrow terminal still shows the dates; a part
    /// wider than the terminal is cut with `…`. Each line passes the one sanitizer.
    static func titleLines(_ title: String, maxWidth: Int?) -> [String] {
        let safe = TextTable.displaySafe(title)
        guard let maxWidth, displayWidth(of: safe) > maxWidth else { return [trimmed(safe)] }
        var lines: [String] = []
        var current = ""
        for whole in safe.components(separatedBy: " · ") {
            let part = keepingCounterID(whole, maxWidth: maxWidth)
            let joined = current.isEmpty ? part : current + " · " + part
            if current.isEmpty || displayWidth(of: joined) <= maxWidth {
                current = joined
            } else {
                lines.append(current)
                current = part
            }
        }
        lines.append(current)
        return lines.map { trimmed(TextTable.truncate($0, toWidth: maxWidth)) }
    }

    /// A title part too wide for `maxWidth` that ends with the counter's `(id, site)`: its name is cut,
    /// never the id (a phone showed `Very long shop's (3…`); the site goes first when room is short.
    static func keepingCounterID(_ part: String, maxWidth: Int) -> String {
        guard displayWidth(of: part) > maxWidth, let open = part.range(of: " (", options: .backwards) else {
            return part
        }
        var suffix = String(part[open.lowerBound...])
        let digits = suffix.dropFirst(2).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, suffix.hasSuffix(")") else { return part }
        if displayWidth(of: suffix) > maxWidth / 2 { suffix = " (\(digits))" }
        let room = maxWidth - displayWidth(of: suffix)
        guard room >= 2 else { return String(suffix.dropFirst()) }
        return trimmed(TextTable.truncate(String(part[..<open.lowerBound]), toWidth: room)) + suffix
    }

    private static func trimmed(_ text: String) -> String {
        var text = text
        while text.last == " " { text.removeLast() }
        return text
    }

    /// A row's metric cells: the values, or with `--compare` each value, its previous one (unless
    /// `before` is false) and the change.
    /// A row found in one period only (`presence` new or gone) says so in its change cells.
    private func valueCells(
        _ values: [Quantity], previous: Report.Previous?, layout: ReportLayout, before: Bool = true,
        presence: Report.Presence? = nil
    ) -> [String] {
        guard layout.compare else { return values.map { cell($0, raw: layout.raw) } }
        let changes = previous?.changes(to: values)
        return values.indices.flatMap { index -> [String] in
            let old =
                previous.flatMap { index < $0.values.count ? $0.values[index] : nil }
                ?? Quantity(nil, unit: values[index].unit)
            var change = changes?[index].text() ?? ValueFormatter.missingInTable
            if let presence, presence != .both { change = presence.rawValue }
            return before
                ? [cell(values[index], raw: layout.raw), cell(old, raw: layout.raw), change]
                : [cell(values[index], raw: layout.raw), change]
        }
    }

    /// A cell's text, formatted by the byte path the CSV and JSON sinks use (`ValueBytes`), with
    /// `ValueFormatter` for the rare value it declines.
    private func cell(_ quantity: Quantity, raw: Bool) -> String {
        guard let value = quantity.value else { return ValueFormatter.missingInTable }
        if raw { return ValueBytes.text({ ValueFormatter.raw(value) }) { ValueBytes.shortest(value, into: $0) } }
        guard value.isFinite else { return ValueFormatter.missingInTable }
        return ValueBytes.text({
            ValueFormatter.format(quantity, grouping: true, missing: ValueFormatter.missingInTable, currencySign: true)
        }) {
            ValueBytes.normalized(quantity, grouping: true, alwaysHours: false, currencySign: true, into: $0)
        }
    }

    /// A week or month shorter than a whole one because the report's range cuts it.
    static func isCut(_ period: DateRange, grouping: Grouping) -> Bool {
        switch grouping {
        case .day: return false
        case .week: return !(period.from.weekday == 1 && period.to == period.from.adding(days: 6))
        case .month: return !(period.from == period.from.startOfMonth && period.to == period.from.endOfMonth)
        }
    }

    /// One line per metric: its title, the sparkline of the rows, and the range it spans.
    /// Partial periods — today or this week/month (not over), a week or month cut by the range — are
    /// left out, with a note: drawn beside full ones they would read as drops.
    private func writeSparklines(layout: ReportLayout) throws {
        let grouping = layout.grouping ?? .day
        let shown = rows.filter { row in
            !row.isIncomplete && !(row.period.map { Self.isCut($0, grouping: grouping) } ?? false)
        }
        guard shown.count >= 2 else { return }
        var note = ""
        if shown.count < rows.count {
            let cut = rows.contains { row in row.period.map { Self.isCut($0, grouping: grouping) } ?? false }
            switch grouping {
            case .day: note = "  (today left out)"
            case .week: note = cut ? "  (partial weeks left out)" : "  (this week left out)"
            case .month: note = cut ? "  (partial months left out)" : "  (this month left out)"
            }
        }
        // Goal metrics are titled with the server's goal names: through the one sanitizer.
        let titles = layout.metrics.map { TextTable.displaySafe($0.title) }
        let titleWidth = titles.map { displayWidth(of: $0) }.max() ?? 0
        let series = layout.metrics.indices.map { index in
            shown.map { index < $0.values.count ? $0.values[index].value : nil }
        }
        let ranges = layout.metrics.enumerated().map { index, metric -> String in
            let present = series[index].compactMap { $0 }
            guard let low = present.min(), let high = present.max() else { return "" }
            let format = { (value: Double) in
                ValueFormatter.format(
                    Quantity(value, unit: metric.unit, currency: metric.currency), grouping: true, missing: "",
                    currencySign: true)
            }
            return "  \(format(low)) … \(format(high))"
        }
        // 60 characters of sparkline, fewer on a narrow terminal (at least 10); a note that would
        // not fit beside them is said once, above them.
        var width = 60
        try out.write("\n")
        if let maxWidth {
            let fixed = titleWidth + 2 + (ranges.map { displayWidth(of: $0) }.max() ?? 0)
            if !note.isEmpty, maxWidth - fixed - displayWidth(of: note) < 20 {
                try out.write(String(note.drop { $0 == " " }) + "\n")
                note = ""
            }
            width = max(10, min(60, maxWidth - fixed - displayWidth(of: note)))
        }
        for index in layout.metrics.indices {
            let values = Self.fit(series[index], width: width)
            let line =
                titles[index] + String(repeating: " ", count: titleWidth - displayWidth(of: titles[index])) + "  "
                + Sparkline.render(values) + ranges[index] + note
            try out.write(line + "\n")
        }
    }

    /// Averages neighbouring values so a long series fits `width` characters; gaps stay gaps.
    static func fit(_ values: [Double?], width: Int) -> [Double?] {
        guard values.count > width else { return values }
        return (0..<width).map { bucket in
            let start = bucket * values.count / width
            let end = (bucket + 1) * values.count / width
            let present = values[start..<end].compactMap { $0 }
            return present.isEmpty ? nil : present.reduce(0, +) / Double(present.count)
        }
    }

    /// A metric's column header; with `--raw` it names the API unit, since `182.664` alone does not
    /// say seconds and `17.7786` does not say percent.
    static func header(_ metric: Metric, raw: Bool) -> String {
        guard raw else { return metric.title }
        switch metric.unit {
        case .seconds: return metric.title + ", s"
        case .percent: return metric.title + ", %"
        case .money: return metric.title + (metric.currency.map { ", " + $0.code } ?? "")
        case .count, .pagesPerVisit, .number: return metric.title
        }
    }

    static func title(counter: Counter, layout: ReportLayout) -> String {
        let named = !counter.name.trimmingSpaces.isEmpty
        var title = "\(named ? counter.name : "(no name)") (\(counter.id)"
        if !counter.site.isEmpty { title += ", \(counter.site)" }
        title += ") · \(layout.period.from.iso) … \(layout.period.to.iso)"
        if let grouping = layout.grouping { title += " · by \(grouping.rawValue)" }
        if let attribution = layout.attribution { title += " · attribution \(attribution)" }
        return title
    }

    /// `2026-11-01 … 2026-11-03, 2026-11-07`: consecutive days folded into ranges.
    package static func describe(days: [Day]) -> String {
        let sorted = days.sorted()
        var parts: [String] = []
        var start = sorted.first
        var previous = sorted.first
        for day in sorted.dropFirst() {
            if let previousDay = previous, day.ordinal == previousDay.ordinal + 1 {
                previous = day
                continue
            }
            if let start, let previous {
                parts.append(start == previous ? start.iso : "\(start.iso) … \(previous.iso)")
            }
            start = day
            previous = day
        }
        if let start, let previous { parts.append(start == previous ? start.iso : "\(start.iso) … \(previous.iso)") }
        return parts.joined(separator: ", ")
    }
}
