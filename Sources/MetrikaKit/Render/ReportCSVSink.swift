/// Streams a report as RFC 4180 CSV: a header of snake_case names, then one record per row as it
/// arrives. Normalized values by default (`17.8%`, `0:03:03`), API units with `--raw`. Missing
/// values are empty fields. Totals are not written (CSV holds data rows only). Dimension names are
/// text (defused against formulas unless `--csv-formulas keep`); metric values are numbers.
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
        try writer.write(layout.keyColumns + layout.metrics.map(\.columnName), to: out)
    }

    public func beginSection(counter: Counter, sampling: Sampling?) { self.counter = counter }

    public func append(_ rows: [Report.Row]) throws {
        guard let layout, let counter else { return }
        for row in rows {
            let keys = layout.keyCells(row, counter: counter)
            // A record of one field has its own rule (an empty one is written `""`): the general path.
            guard keys.count + row.values.count > 1 else {
                try writer.write(keys + row.values.map(layout.csvText), numbersFrom: keys.count, to: out)
                continue
            }
            // Numbers never need quoting or defusing, so they are formatted straight into the
            // output buffer: no String per cell (docs/performance.md).
            for (index, key) in keys.enumerated() {
                if index > 0 { try out.write(byte: UInt8(ascii: ",")) }
                try writer.writeField(key, isText: true, to: out)
            }
            for (index, value) in row.values.enumerated() {
                if index > 0 || !keys.isEmpty { try out.write(byte: UInt8(ascii: ",")) }
                try layout.writeCSVValue(value, to: out)
            }
            try writer.endRecord(to: out)
        }
    }

    public func endSection(totals: [Quantity], missingDays: [Day]) {}
    public func end() {}
}
