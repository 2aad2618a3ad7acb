import MetrikaModel

/// One counter's report as the HTML page shows it — summary, charts, table — built from the same rows,
/// totals and previous totals the table sink gets. The mail and `report --format html` both build
/// their sections here; they differ only in how a chart is shown (an inline SVG, a PNG by `cid:`).
package struct HTMLReportSection: Sendable {
    package var counter: Counter
    package var layout: ReportLayout
    package var rows: [Report.Row]
    package var totals: [Quantity]
    /// The previous period and its totals, when changes are known.
    package var previous: Report.Previous?
    /// Show each value's previous value and change in the table too (`--compare`); the summary shows
    /// changes whenever `previous` is known.
    package var comparisonColumns: Bool
    package var missingDays: [Day]
    package var sampling: Sampling?
    /// Rows by day for the charts when the table is grouped coarser (the mail of a long window: a
    /// table by week, charts by day); nil: the charts draw `rows`.
    package var dailyRows: [Report.Row]?
    /// When set, the table is left out and this line stands in its place, saying where the full table
    /// is (the mail's byte budget: Gmail clips an HTML part past 102 KB).
    package var tableLeftOut: String?
    /// The summary as one line instead of cards (`HTMLReportPage.Section.compactSummary`).
    package var compactSummary = false
    /// A report cut by `--limit`: the rows left out, shown as an `Other (785 rows)` row above a
    /// `Total (800 rows)`.
    package var leftOut: Report.LeftOut?
    /// The entry point's words for what fills the history (the note on missing days).
    package var naming = ParameterNaming.neutral

    package init(
        counter: Counter, layout: ReportLayout, rows: [Report.Row], totals: [Quantity], previous: Report.Previous?,
        comparisonColumns: Bool, missingDays: [Day] = [], sampling: Sampling? = nil, dailyRows: [Report.Row]? = nil
    ) {
        self.counter = counter
        self.layout = layout
        self.rows = rows
        self.totals = totals
        self.previous = previous
        self.comparisonColumns = comparisonColumns
        self.missingDays = missingDays
        self.sampling = sampling
        self.dailyRows = dailyRows
    }

    /// How many rows a dimension report's bar chart shows.
    package static let barCount = 10

    // MARK: - Text of values

    /// A value as the table shows it (`ValueFormatter`, money with its sign: `1 250 000.00 ₽`;
    /// `--raw`: the API's number); `—` when missing.
    package func text(_ quantity: Quantity) -> String {
        guard let value = quantity.value, value.isFinite else { return ValueFormatter.missingInTable }
        if layout.raw { return ValueFormatter.raw(value) }
        return ValueFormatter.format(
            quantity, grouping: true, missing: ValueFormatter.missingInTable, currencySign: true)
    }

    var spansYears: Bool { layout.period.from.components.year != layout.period.to.components.year }

    /// The change of each metric's total, when the previous period is known.
    package var changes: [Change]? { previous?.changes(to: totals) }

    /// Whether a change is good news, by the model's one table (`Metric.goodDirection`, which the
    /// terminal's `--compare` colours follow too): more visits good, a higher bounce rate bad, a
    /// metric of no known direction neither.
    package static func tone(of change: Change, metric: Metric) -> HTMLReportPage.Tone {
        guard let number = change.number, DecimalText.format(abs(number), fractionDigits: 1) != "0.0" else {
            return .neutral
        }
        switch metric.goodDirection {
        case .up: return number > 0 ? .good : .bad
        case .down: return number > 0 ? .bad : .good
        case .neither: return .neutral
        }
    }

    /// The sentence of a metric's total and change: `Visits fell 12.0% to 3 085`.
    package func message(metricAt index: Int) -> String {
        let metric = layout.metrics[index]
        let value = index < totals.count ? text(totals[index]) : ValueFormatter.missingInTable
        return HTMLText.changeSentence(
            title: metric.title, value: value, change: changes.map { index < $0.count ? $0[index] : .missing })
    }

    // MARK: - Pieces

    /// The section with the given charts.
    package func section(figures: [HTMLReportPage.Figure]) -> HTMLReportPage.Section {
        var subheading: [String] = []
        if !counter.site.isEmpty { subheading.append(counter.site) }
        subheading.append("counter " + String(counter.id))
        subheading.append(CompactDate.range(layout.period))
        if let grouping = layout.grouping {
            let by = grouping == .day ? "daily" : grouping == .week ? "weekly" : "monthly"
            subheading.append(dailyRows != nil && grouping != .day ? "daily charts, \(by) table" : by)
        }
        // A report by source depends on the model: the heading says which one, as the terminal's does.
        if let attribution = layout.attribution { subheading.append("attribution " + attribution) }
        let changes = self.changes
        let summary = layout.metrics.indices.map { index -> HTMLReportPage.SummaryItem in
            let metric = layout.metrics[index]
            let total = index < totals.count ? totals[index] : Quantity(nil, unit: metric.unit)
            guard let previous, let changes, index < changes.count else {
                return .init(title: metric.title, value: text(total), change: nil, tone: .neutral, previous: nil)
            }
            let before = index < previous.values.count ? previous.values[index] : Quantity(nil, unit: metric.unit)
            return .init(
                title: metric.title, value: text(total), change: changes[index].text(),
                tone: Self.tone(of: changes[index], metric: metric), previous: text(before))
        }
        let named = !counter.name.trimmingSpaces.isEmpty
        var notes = self.notes
        if let tableLeftOut, !rows.isEmpty { notes.insert(tableLeftOut, at: 0) }
        var section = HTMLReportPage.Section(
            heading: named ? counter.name : counter.displayName, subheading: subheading,
            comparedWith: previous.map { CompactDate.range($0.period) }, summary: summary, figures: figures,
            tableTitle: tableTitle, table: rows.isEmpty || tableLeftOut != nil ? nil : table(), notes: notes)
        section.compactSummary = compactSummary
        return section
    }

    var tableTitle: String {
        switch layout.grouping {
        case .day: return "By day"
        case .week: return "By week"
        case .month: return "By month"
        case nil:
            return layout.dimensions.isEmpty
                ? "Totals" : "By " + Self.list(layout.dimensions.map { $0.title.lowercased() })
        }
    }

    /// The table: a row per period or dimension value, and the totals.
    package func table() -> HTMLReportPage.Table {
        let compare = comparisonColumns && previous != nil
        let groups = layout.metrics.map { metric in compare ? [metric.title, "before", "change"] : [metric.title] }
        var tableRows = rows.map { row in
            HTMLReportPage.Table.Row(
                key: key(row, daysInline: false), groups: cells(row.values, previous: row.previous, compare: compare),
                keyNote: cutDays(row))
        }
        if let leftOut {
            let groups = leftOut.values.map { value in compare ? [text(value), "", ""] : [text(value)] }
            tableRows.append(.init(key: leftOut.label(digitSpace: HTMLText.noBreakSpace), groups: groups))
        }
        tableRows.append(
            .init(
                key: leftOut?.totalLabel ?? "Total", groups: cells(totals, previous: previous, compare: compare),
                isTotal: true))
        let keyTitle: String
        switch layout.grouping {
        case .day: keyTitle = "Date"
        case .week: keyTitle = "Week"
        case .month: keyTitle = "Month"
        case nil: keyTitle = layout.dimensions.isEmpty ? "" : layout.dimensions.map(\.title).joined(separator: " · ")
        }
        return HTMLReportPage.Table(
            keyTitle: keyTitle, keysAreValues: layout.grouping != nil, groups: groups, rows: tableRows)
    }

    /// A row's key: its period (`Mon 24 Nov`, `18–24 Nov`, with ` (4 days)` when the period cut
    /// the week or month, unless `daysInline` is false: then `cutDays` says it) or its dimension values.
    func key(_ row: Report.Row, daysInline: Bool = true) -> String {
        if let grouping = layout.grouping {
            let period = rowPeriod(row)
            var label = CompactDate.period(period, grouping: grouping, spansYears: spansYears)
            if daysInline, let days = cutDays(row) { label += " (\(days))" }
            return row.isIncomplete ? label + " *" : label
        }
        let names = row.dimensions.map { $0.name ?? "(not set)" }
        return names.isEmpty ? "(not set)" : names.joined(separator: " · ")
    }

    func rowPeriod(_ row: Report.Row) -> DateRange {
        row.period ?? Day(iso: row.dimensions.first?.name ?? "").map { DateRange(from: $0, to: $0)! } ?? DateRange(
            from: layout.period.from, to: layout.period.from)!
    }

    /// `4 days` for a week or month row the period cuts; nil otherwise.
    func cutDays(_ row: Report.Row) -> String? {
        guard let grouping = layout.grouping, grouping != .day else { return nil }
        let period = rowPeriod(row)
        guard Self.isCut(period, grouping: grouping) else { return nil }
        return "\(period.dayCount) day\(period.dayCount == 1 ? "" : "s")"
    }

    func cells(_ values: [Quantity], previous: Report.Previous?, compare: Bool) -> [[String]] {
        guard compare else { return values.map { [text($0)] } }
        let changes = previous?.changes(to: values)
        return values.indices.map { index in
            let before =
                previous.flatMap { index < $0.values.count ? $0.values[index] : nil }
                ?? Quantity(nil, unit: values[index].unit)
            return [
                text(values[index]), text(before),
                changes.map { index < $0.count ? $0[index].text() : ValueFormatter.missingInTable }
                    ?? ValueFormatter.missingInTable
            ]
        }
    }

    var notes: [String] {
        var notes: [String] = []
        if rows.isEmpty { notes.append("No data for this period.") }
        if let grouping = layout.grouping, grouping != .day, dailyRows != nil, !rows.isEmpty, tableLeftOut == nil {
            let unit = grouping == .week ? "week (Monday to Sunday)" : "calendar month"
            notes.append(
                "A row per \(unit); a first or last one cut by the period says its days. The charts are by day.")
        }
        if rows.contains(where: \.isIncomplete) {
            let what = layout.grouping == .week ? "This week" : layout.grouping == .month ? "This month" : "Today"
            notes.append("* \(what) is not over yet: its numbers will still change.")
        }
        if let sampling, sampling.isSampled {
            notes.append(
                "Sampled: numbers are estimates from \(DecimalText.format(sampling.share * 100, fractionDigits: 1))% of visits."
            )
        }
        if !missingDays.isEmpty {
            notes.append(
                "No history for \(ReportTableSink.describe(days: missingDays)): run `\(naming.action(.fillHistory))` to fetch it."
            )
        }
        return notes
    }

    static func isCut(_ period: DateRange, grouping: Grouping) -> Bool {
        ReportTableSink.isCut(period, grouping: grouping)
    }

    // MARK: - Charts

    /// A line chart per metric (time series), in the order of `metrics`.
    package func lineCharts(metrics: [Metric]) -> [CompactLineChart] {
        guard let tableGrouping = layout.grouping else { return [] }
        let grouping = dailyRows == nil ? tableGrouping : .day
        let rows = dailyRows ?? self.rows
        guard rows.count >= 1 else { return [] }
        let incompleteFrom = rows.first { $0.isIncomplete }?.period?.from
        return metrics.compactMap { metric -> CompactLineChart? in
            // Money asked for in "the counter's currency" is the layout's column in the currency it is in.
            guard
                let index = layout.metrics.firstIndex(where: { $0.apiName == metric.apiName })
                    ?? (metric.needsCurrency
                        ? layout.metrics.firstIndex(where: { $0.unit == .money && $0.shortName == metric.shortName })
                        : nil)
            else { return nil }
            // Cut weeks and months would read as drops: left out, as in the terminal's sparklines.
            let points: [(day: Day, value: Double?)] = rows.compactMap { row in
                guard let period = row.period, !Self.isCut(period, grouping: grouping) || row.isIncomplete else {
                    return nil
                }
                return (period.from, index < row.values.count ? row.values[index].value : nil)
            }
            let shown = layout.metrics[index]
            let series = Series(counter: counter, metric: shown, points: points, incompleteFrom: incompleteFrom)
            let by = grouping == .day ? "daily" : grouping == .week ? "weekly" : "monthly"
            return CompactLineChart(
                series: series, period: layout.period, connectsAcrossDays: grouping != .day,
                heading: shown.title + " · " + by, message: message(metricAt: index),
                detail: detail(points, metric: shown, grouping: grouping))
        }
    }

    /// What a line chart draws, for its `<desc>`: the range and the lowest and highest values.
    func detail(_ points: [(day: Day, value: Double?)], metric: Metric, grouping: Grouping) -> String {
        let by = grouping == .day ? "Daily" : grouping == .week ? "Weekly" : "Monthly"
        var text = "\(by) \(metric.title.lowercased()), \(CompactDate.range(layout.period))."
        let present = points.compactMap { point in point.value.map { (day: point.day, value: $0) } }
        if let low = present.min(by: { $0.value < $1.value }), let high = present.max(by: { $0.value < $1.value }) {
            let label = { (day: Day) in
                CompactDate.period(
                    DateRange(from: day, to: day)!, grouping: grouping == .month ? .month : .day,
                    spansYears: self.spansYears)
            }
            text +=
                " Lowest \(self.text(Quantity(low.value, unit: metric.unit, currency: metric.currency))) (\(label(low.day))), highest \(self.text(Quantity(high.value, unit: metric.unit, currency: metric.currency))) (\(label(high.day)))."
        } else {
            text += " No data."
        }
        return text
    }

    /// The top rows of a dimension report as bars of its first metric (nil for time series).
    package func barChart() -> CompactBarChart? {
        guard layout.grouping == nil, let metric = layout.metrics.first, !rows.isEmpty else { return nil }
        let top = rows.prefix(Self.barCount)
        let bars = top.map { row in
            CompactBarChart.Bar(
                label: key(row), value: row.values.first?.value,
                valueText: row.values.first.map(text) ?? ValueFormatter.missingInTable)
        }
        let what = Self.list(layout.dimensions.map { $0.title.lowercased() })
        let heading = "\(metric.title) · top \(bars.count)" + (what.isEmpty ? "" : " by " + what)
        let listed = bars.map { "\($0.label) \($0.valueText)" }.joined(separator: "; ")
        let first = bars[0]
        let message = "\(metric.title) by \(what.isEmpty ? "row" : what): \(first.label) leads with \(first.valueText)"
        return CompactBarChart(
            bars: Array(bars), heading: heading, message: message,
            detail: "\(heading), \(CompactDate.range(layout.period)): \(listed).")
    }

    /// `a`, `a and b`, `a, b and c`: a heading names three dimensions as people list them.
    static func list(_ words: [String]) -> String {
        guard words.count > 2 else { return words.joined(separator: " and ") }
        return words.dropLast().joined(separator: ", ") + " and " + words[words.count - 1]
    }
}
