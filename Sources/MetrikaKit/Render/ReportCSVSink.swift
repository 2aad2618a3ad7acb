/// Streams a report as RFC 4180 CSV: a header of snake_case names, then one record per row as it
/// arrives. Normalized values by default (`17.8%`, `0:03:03`), API units with `--raw`. Missing
/// values are empty fields. Totals are not written (CSV holds data rows only). Dimension names are
/// text (defused against formulas unless `--csv-formulas keep`); metric values are numbers.
/// With `--compare`, `previous_date` follows the dates and every metric is followed by its previous
/// value and its change (docs/reports.md, `--compare`).
public final class ReportCSVSink: ReportSink {
    private let out: OutputWriter
    private let writer: CSVWriter
    private var layout: ReportLayout?
    private var counter: Counter?

    /// A sink formatting into `output` with `writer`'s line ends and formula policy.
    public init(output: OutputWriter, writer: CSVWriter = CSVWriter()) {
        self.out = output
        self.writer = writer
    }

    public func begin(_ layout: ReportLayout) throws {
        self.layout = layout
        try writer.write(layout.keyColumns + layout.comparisonKeyColumns + layout.metrics.flatMap(layout.csvColumns), to: out)
    }

    public func beginSection(counter: Counter, sampling: Sampling?) { self.counter = counter }

    public func append(_ rows: [Report.Row]) throws {
        guard let layout, let counter else { return }
        for row in rows {
            let keys = layout.keyCells(row, counter: counter) + layout.comparisonKeyCells(row)
            try writer.write(keys + layout.csvValueCells(row), numbersFrom: keys.count, to: out)
        }
    }

    public func endSection(totals: [Quantity], missingDays: [Day]) {}
    public func end() {}
}
