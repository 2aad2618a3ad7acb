import MetrikaModel
import MetrikaSystem
/// Collects a report and prints it as aligned text: a title per counter, a header, rows with
/// grouped numbers, today's incomplete row marked, a totals row, and for time series one sparkline
/// per metric so the shape of the period is seen at a glance.
public final class ReportTableSink: ReportSink {
    private let out: OutputWriter
    private let maxWidth: Int?
    private var layout: ReportLayout?
    private var counter: Counter?
    private var sampling: Sampling?
    private var previous: Report.Previous?
    private var rows: [Report.Row] = []
    private var sectionCount = 0

    /// Colours a `--compare` change such as `+5.2%` (a colour terminal only), or nil: plain text.
    private let colourChange: (@Sendable (String) -> String)?

    /// `maxWidth`: the terminal width when stdout is a terminal (long text is cut with `…`), else nil.
    /// `colourChange`: given only for a colour terminal.
    public init(output: OutputWriter, maxWidth: Int?, colourChange: (@Sendable (String) -> String)? = nil) {
        self.out = output
        self.maxWidth = maxWidth
        self.colourChange = colourChange
    }

    public func begin(_ layout: ReportLayout) { self.layout = layout }

    public func beginSection(counter: Counter, sampling: Sampling?) {
        self.counter = counter
        self.sampling = sampling
        previous = nil
        rows = []
    }

    public func compareSection(_ previous: Report.Previous) { self.previous = previous }

    public func append(_ rows: [Report.Row]) { self.rows += rows }

    public func endSection(totals: [Quantity], missingDays: [Day]) throws {
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
        // With --compare every metric is followed by its previous value and the change.
        let metricColumns = layout.metrics.flatMap { metric in
            let column = TextTable.Column(Self.header(metric, raw: layout.raw), alignment: .right)
            return layout.compare ? [column, TextTable.Column("before", alignment: .right), TextTable.Column("change", alignment: .right)] : [column]
        }
        var title = Self.title(counter: counter, layout: layout)
        if layout.compare, let previous { title += " · against \(previous.period.from.iso) … \(previous.period.to.iso)" }
        var table = TextTable(columns: keyColumns + metricColumns, title: title)
        var anyIncomplete = false
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
                    index < row.dimensions.count && index < layout.dimensions.count ? (row.dimensions[index].name ?? "(not set)") : ""
                }
            }
            cells += valueCells(row.values, previous: row.previous, layout: layout)
            anyIncomplete = anyIncomplete || row.isIncomplete
            table.append(cells, note: row.isIncomplete ? "*" : nil)
        }
        if !rows.isEmpty {
            table.appendSeparator()
            let label = layout.grouping == nil ? ["Total"] + Array(repeating: "", count: max(0, layout.dimensions.count - 1)) : ["Total"]
            table.append(label + valueCells(totals, previous: previous, layout: layout))
        }
        if layout.compare, let colourChange {
            try out.write(Self.colouringChanges(table.render(maxWidth: maxWidth), with: colourChange))
        } else {
            try table.write(maxWidth: maxWidth, to: out)
        }
        if rows.isEmpty { try out.write("(no data for this period)\n") }
        if anyIncomplete {
            let what = layout.grouping == .week ? "this week" : layout.grouping == .month ? "this month" : "today"
            try out.write("* \(what) is not over yet: its numbers will still change.\n")
        }
        if let sampling, sampling.isSampled {
            try out.write("Sampled: numbers are estimates from \(DecimalText.format(sampling.share * 100, fractionDigits: 1))% of visits.\n")
        }
        // Missing days are reported on stderr by the command (for every format), not here.
        if layout.grouping != nil, rows.count >= 2, rows.contains(where: { $0.values.contains { $0.value != nil } }) {
            try writeSparklines(layout: layout)
        }
    }

    public func end() {}

    /// The rendered table with every change cell (`+5.2%`, `-0.9 pp`, alone between column gaps)
    /// coloured. After rendering: the table measures and sanitizes plain text, never escapes.
    static func colouringChanges(_ text: String, with colour: (String) -> String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var result = ""
            var rest = Substring(line)
            while let match = rest.firstMatch(of: /[+-][0-9]+\.[0-9](%| pp)/) {
                let before = rest[..<match.range.lowerBound]
                let after = rest[match.range.upperBound...]
                let alone = (before.isEmpty || before.last == " ") && (after.isEmpty || after.first == " ")
                result += before + (alone ? colour(String(match.output.0)) : String(match.output.0))
                rest = after
            }
            return result + rest
        }.joined(separator: "\n")
    }

    /// A row's metric cells: the values, or with `--compare` each value, its previous one and the change.
    private func valueCells(_ values: [Quantity], previous: Report.Previous?, layout: ReportLayout) -> [String] {
        guard layout.compare else { return values.map { cell($0, raw: layout.raw) } }
        let changes = previous?.changes(to: values)
        return values.indices.flatMap { index -> [String] in
            let before = previous.flatMap { index < $0.values.count ? $0.values[index] : nil } ?? Quantity(nil, unit: values[index].unit)
            return [cell(values[index], raw: layout.raw), cell(before, raw: layout.raw), changes?[index].text() ?? ValueFormatter.missingInTable]
        }
    }

    /// A cell's text, formatted by the byte path the CSV and JSON sinks use (`ValueBytes`), with
    /// `ValueFormatter` for the rare value it declines.
    private func cell(_ quantity: Quantity, raw: Bool) -> String {
        guard let value = quantity.value else { return ValueFormatter.missingInTable }
        if raw { return ValueBytes.text({ ValueFormatter.raw(value) }) { ValueBytes.shortest(value, into: $0) } }
        guard value.isFinite else { return ValueFormatter.missingInTable }
        return ValueBytes.text({ ValueFormatter.format(quantity, grouping: true, missing: ValueFormatter.missingInTable) }) {
            ValueBytes.normalized(quantity, grouping: true, alwaysHours: false, into: $0)
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
        let shown = rows.filter { row in !row.isIncomplete && !(row.period.map { Self.isCut($0, grouping: grouping) } ?? false) }
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
        let titleWidth = layout.metrics.map { displayWidth(of: $0.title) }.max() ?? 0
        try out.write("\n")
        for (index, metric) in layout.metrics.enumerated() {
            let series = shown.map { index < $0.values.count ? $0.values[index].value : nil }
            let values = Self.fit(series, width: 60)
            let present = series.compactMap { $0 }
            var line = metric.title + String(repeating: " ", count: titleWidth - displayWidth(of: metric.title)) + "  " + Sparkline.render(values)
            if let low = present.min(), let high = present.max() {
                let format = { (value: Double) in ValueFormatter.format(Quantity(value, unit: metric.unit), grouping: true, missing: "") }
                line += "  \(format(low)) … \(format(high))"
            }
            line += note
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
        case .count, .pagesPerVisit, .number: return metric.title
        }
    }

    static func title(counter: Counter, layout: ReportLayout) -> String {
        let named = !counter.name.trimmingSpaces.isEmpty
        var title = "\(named ? counter.name : "(no name)") (\(counter.id)"
        if !counter.site.isEmpty { title += ", \(counter.site)" }
        title += ") · \(layout.period.from.iso) … \(layout.period.to.iso)"
        if let grouping = layout.grouping { title += " · by \(grouping.rawValue)" }
        return title
    }

    /// `2026-11-01 … 2026-11-03, 2026-11-07`: consecutive days folded into ranges.
    public static func describe(days: [Day]) -> String {
        let sorted = days.sorted()
        var parts: [String] = []
        var start = sorted.first
        var previous = sorted.first
        for day in sorted.dropFirst() {
            if let previousDay = previous, day.ordinal == previousDay.ordinal + 1 {
                previous = day
                continue
            }
            if let start, let previous { parts.append(start == previous ? start.iso : "\(start.iso) … \(previous.iso)") }
            start = day
            previous = day
        }
        if let start, let previous { parts.append(start == previous ? start.iso : "\(start.iso) … \(previous.iso)") }
        return parts.joined(separator: ", ")
    }
}
