import Foundation
import MetrikaModel
import MetrikaSystem

/// The mail of `metrika mail` rendered: its plain-text part, its HTML part (the page `report --format
/// html` shares), the CSV attached for a table the HTML leaves out, its subject and file names — all
/// from sections the use case (`MailComposer`) gathered. Pure: values in, text and bytes out.
package enum MailReport {
    /// One counter's part of the mail, as gathered: the window's rows and totals, the previous
    /// window's totals, the days by day for the charts, the full chart's SVG.
    package struct Section {
        package var counter: Counter
        package var current: DateRange
        package var previous: DateRange
        /// The table's metrics, money in the section's currency.
        package var metrics: [Metric]
        /// How the table's rows are grouped.
        package var grouping: Grouping
        package var rows: [Report.Row]
        /// The rows by day, which the charts draw.
        package var dailyRows: [Report.Row]
        package var totals: [Quantity]
        package var previousTotals: [Quantity]
        package var missingDays: [Day]
        package var svg: Data
        /// The HTML leaves the table out (the byte budget); the CSV attachment holds it.
        package var tableLeftOut = false
        /// The HTML shows the summary as one line (the byte budget, once every table gave way).
        package var compactSummary = false
        /// The counter's chart annotations in the window, marked on its charts (none when unread).
        package var marks: [SVGLineChart.Mark] = []

        package init(
            counter: Counter, current: DateRange, previous: DateRange, metrics: [Metric], grouping: Grouping,
            rows: [Report.Row],
            dailyRows: [Report.Row], totals: [Quantity], previousTotals: [Quantity], missingDays: [Day], svg: Data
        ) {
            self.counter = counter
            self.current = current
            self.previous = previous
            self.metrics = metrics
            self.grouping = grouping
            self.rows = rows
            self.dailyRows = dailyRows
            self.totals = totals
            self.previousTotals = previousTotals
            self.missingDays = missingDays
            self.svg = svg
        }
    }

    /// A section's table as CSV (the file attached when the HTML leaves it out): what
    /// `metrika report --group … --csv` writes for the same days.
    package static func csv(_ section: Section) throws -> Data {
        let memory = OutputWriter()
        let sink = ReportCSVSink(output: memory)
        try sink.begin(layout(section, metrics: section.metrics))
        sink.beginSection(counter: section.counter, sampling: nil)
        try sink.append(section.rows)
        sink.endSection(totals: section.totals, missingDays: section.missingDays)
        sink.end()
        return Data(memory.text.utf8)
    }

    /// The layout of a section's table, as `metrika report` has it for the same days. Money still in
    /// "the counter's currency" is in the section's (`revenue_rub`): its labels carry the sign (`400k ₽`).
    package static func layout(_ section: Section, metrics: [Metric]) -> ReportLayout {
        let currency = section.metrics.lazy.compactMap(\.currency).first
        let shown = metrics.map { metric in metric.needsCurrency ? currency.map(metric.inCurrency) ?? metric : metric }
        return ReportLayout(
            dimensions: [], metrics: shown, period: section.current, grouping: section.grouping,
            multipleCounters: false, raw: false)
    }

    /// The `metrika report` that prints a left-out table: its days and grouping, and its metrics and
    /// currency when they are not the defaults (the CSV attached holds `purchases,revenue_usd`, so
    /// must the command).
    package static func reportCommand(_ section: Section) -> String {
        var command =
            "metrika report --counter \(section.counter.id) --from \(section.current.from.iso) --to \(section.current.to.iso) --group \(section.grouping)"
        if section.metrics.map(\.apiName) != Metric.everyday.map(\.apiName) {
            command += " --metrics " + section.metrics.map(\.shortName).joined(separator: ",")
        }
        if let currency = section.metrics.compactMap(\.currency).first { command += " --currency \(currency.code)" }
        return command
    }

    // MARK: - Content

    /// The name of a section's files (`metrika-1001-2026-11-23_2026-11-29`, then `.svg`, `.csv`).
    package static func chartName(_ section: Section) -> String {
        "metrika-\(section.counter.id)-\(section.current.from.iso)_\(section.current.to.iso)"
    }

    /// A counter's part of the HTML, as `report --format html` builds it: the same summary, charts and
    /// table, compared with the previous window.
    package static func htmlSection(_ section: Section, metrics: [Metric], naming: ParameterNaming = .neutral)
        -> HTMLReportSection
    {
        var report = HTMLReportSection(
            counter: section.counter, layout: layout(section, metrics: metrics), rows: section.rows,
            totals: section.totals,
            previous: Report.Previous(period: section.previous, values: section.previousTotals),
            comparisonColumns: false, missingDays: section.missingDays, dailyRows: section.dailyRows)
        report.compactSummary = section.compactSummary
        report.naming = naming
        if section.tableLeftOut {
            let by = section.grouping == .day ? "day" : section.grouping == .week ? "week" : "month"
            // Short: this line is what a mail of many counters is made of.
            report.tableLeftOut =
                "Table by \(by) left out so that Gmail does not clip this mail: attached as \(chartName(section)).csv; \(reportCommand(section)) shows it."
        }
        return report
    }

    /// `Metrika: Shop, Blog, 2026-11-23 – 2026-11-29` when `--subject` is not given.
    package static func defaultSubject(_ sections: [Section]) -> String {
        let names = sections.map { $0.counter.displayName }.joined(separator: ", ")
        guard let first = sections.first else { return "Metrika" }
        return "Metrika: \(names), \(first.current.from.iso) – \(first.current.to.iso)"
    }

    /// The change from `before` to `now`, as `report --compare` shows it (MetrikaModel's `Change`):
    /// relative for counts and durations, percentage points for percentages.
    package static func change(from before: Quantity, to now: Quantity) -> String {
        Change(from: before, to: now).text()
    }

    /// A total as the table shows it: the one number text (`ValueFormatter`), grouped, money with
    /// its sign (`1 250 000.00 ₽`), `—` when missing.
    package static func format(_ quantity: Quantity) -> String {
        ValueFormatter.format(quantity, grouping: true, missing: ValueFormatter.missingInTable, currencySign: true)
    }

    /// The text part's comparison: each metric's total over the window, the window before and the change.
    package static func changeTable(_ section: Section, metrics: [Metric]) -> TextTable {
        var table = TextTable(columns: [
            .init("Metric"), .init(section.current.from.iso + " – " + section.current.to.iso, alignment: .right),
            .init(section.previous.from.iso + " – " + section.previous.to.iso, alignment: .right),
            .init("Change", alignment: .right)
        ])
        for (index, metric) in metrics.enumerated()
        where index < section.totals.count && index < section.previousTotals.count {
            table.append([
                metric.title, format(section.totals[index]), format(section.previousTotals[index]),
                change(from: section.previousTotals[index], to: section.totals[index])
            ])
        }
        return table
    }

    /// The text part: each counter's table (as `metrika report` prints it), its comparison, and the
    /// name of its attached chart.
    package static func plainText(
        _ sections: [Section], metrics: [Metric], files: [String], naming: ParameterNaming = .neutral
    ) throws -> String {
        var text = ""
        for (section, file) in zip(sections, files) {
            let memory = OutputWriter()
            let sink = ReportTableSink(output: memory, maxWidth: nil)
            sink.begin(layout(section, metrics: metrics))
            sink.beginSection(counter: section.counter, sampling: nil)
            sink.append(section.rows)
            try sink.endSection(totals: section.totals, missingDays: section.missingDays)
            sink.end()
            text += memory.text
            text += "\nChange against the previous \(section.current.dayCount) days:\n\n"
            text += changeTable(section, metrics: metrics).render()
            if !section.missingDays.isEmpty {
                text +=
                    "\nNo history for \(section.missingDays.count) day(s): run `\(naming.action(.fillHistory))` before mailing.\n"
            }
            text += "\nChart: \(file) (attached).\n\n"
        }
        text += "-- \nSent by metrika \(MetrikaVersion.current).\n"
        return text
    }

    /// The HTML part: the shared report page (`HTMLReportPage`), each chart an `<img>` of its inline
    /// image, whose alt text is the chart's message (`Visits fell 12.0% to 3 085`).
    package static func htmlText(_ reports: [HTMLReportSection], charts: [[CompactLineChart]], images: [MIMEPart.Image])
        -> String
    {
        var remaining = images[...]
        let sections = zip(reports, charts).map { report, sectionCharts in
            let figures = sectionCharts.map { chart -> HTMLReportPage.Figure in
                let image = remaining.popFirst()
                return .image(
                    source: "cid:" + (image?.contentID ?? ""), alt: chart.message, width: CompactLineChart.width,
                    height: chart.height)
            }
            return report.section(figures: figures)
        }
        let title = "Metrika: " + reports.map { $0.counter.displayName }.joined(separator: ", ")
        return HTMLReportPage(
            title: title, sections: sections, footer: "Sent by metrika \(MetrikaVersion.current)", maxWidth: mailWidth
        ).render()
    }

    /// The widest the mail grows on a desktop: two 360 px charts, or two blocks of the table, side by side.
    package static let mailWidth = 760
}
