/// Streams a report as RFC 4180 CSV: a header of snake_case names, then one record per row as it
/// arrives. Normalized values by default (`17.8%`, `03:03`), API units with `--raw`. Missing
/// values are empty fields. Totals are not written (CSV holds data rows only).
public final class ReportCSVSink<Out: TextOutputStream>: ReportSink {
    private var out: Out
    private let writer = CSVWriter()
    private var layout: ReportLayout?
    private var counter: Counter?

    public init(output: Out) { self.out = output }

    /// The stream written to (for in-memory outputs in tests).
    public var output: Out { out }

    public func begin(_ layout: ReportLayout) {
        self.layout = layout
        writer.write(layout.keyColumns + layout.metrics.map(\.columnName), to: &out)
    }

    public func beginSection(counter: Counter, sampling: Sampling?) { self.counter = counter }

    public func append(_ rows: [Report.Row]) {
        guard let layout, let counter else { return }
        for row in rows {
            writer.write(layout.keyCells(row, counter: counter) + row.values.map(layout.csvText), to: &out)
        }
    }

    public func endSection(totals: [Quantity], missingDays: [Day]) {}
    public func end() {}
}
