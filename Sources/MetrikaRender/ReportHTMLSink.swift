import MetrikaModel
import MetrikaSystem

/// `report --format html`: the report as one self-contained HTML page (`HTMLReportPage`) — per counter
/// a summary with changes, inline SVG charts (a line per metric for time series, bars of the top rows
/// for dimension reports) and the table. Collects the rows like the table sink and writes the page at
/// the end, so a failure half-way leaves nothing written.
package final class ReportHTMLSink: ReportSink {
    private let out: OutputWriter
    private let comparisonColumns: Bool
    private let footer: String
    private let madeAt: String?
    private let naming: ParameterNaming
    private var layout: ReportLayout?
    private var counter: Counter?
    private var sampling: Sampling?
    private var previous: Report.Previous?
    private var rows: [Report.Row] = []
    private var rest: Report.LeftOut?
    private var sections: [HTMLReportSection] = []

    /// The widest the page grows: three 360 px charts side by side.
    package static let maxWidth = 1128

    /// `comparisonColumns`: the table shows each value's previous value and change (`--compare`);
    /// whenever the previous period is given (`compareSection`) the summary shows the changes.
    /// `footer` and `madeAt`: the page's last line (`Made by metrika 1.2.0`, `Wed 25 Nov 2026 09:00 UTC`);
    /// `naming`: the entry point's words in the notes (what fills the history).
    package init(
        output: OutputWriter, comparisonColumns: Bool, footer: String, madeAt: String?,
        naming: ParameterNaming = .neutral
    ) {
        self.out = output
        self.naming = naming
        self.comparisonColumns = comparisonColumns
        self.footer = footer
        self.madeAt = madeAt
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

    package func endSection(totals: [Quantity], missingDays: [Day]) {
        guard let layout, let counter else { return }
        var section = HTMLReportSection(
            counter: counter, layout: layout, rows: rows, totals: totals, previous: previous,
            comparisonColumns: comparisonColumns, missingDays: missingDays, sampling: sampling)
        section.leftOut = rest
        section.naming = naming
        sections.append(section)
        rows = []
        rest = nil
    }

    package func end() throws {
        guard let layout else { return }
        try out.write(Self.page(sections, layout: layout, footer: footer, madeAt: madeAt).render())
    }

    /// The page of some sections: charts inline as SVG.
    package static func page(_ sections: [HTMLReportSection], layout: ReportLayout, footer: String, madeAt: String?)
        -> HTMLReportPage
    {
        let pageSections = sections.map { section -> HTMLReportPage.Section in
            var figures = section.lineCharts(metrics: layout.metrics).map { HTMLReportPage.Figure.inline($0.element()) }
            if let bars = section.barChart() { figures.append(.inline(bars.element())) }
            return section.section(figures: figures)
        }
        let names = sections.map { $0.counter.displayName }.joined(separator: ", ")
        let title = "Metrika: " + (names.isEmpty ? "report" : names) + ", " + CompactDate.range(layout.period)
        return HTMLReportPage(title: title, sections: pageSections, footer: footer, madeAt: madeAt, maxWidth: maxWidth)
    }
}
