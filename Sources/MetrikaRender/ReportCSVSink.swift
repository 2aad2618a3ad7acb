import MetrikaModel
import MetrikaSystem

/// Streams a report as RFC 4180 CSV: a header of snake_case names, then one record per row as it
/// arrives. Normalized values by default (`17.8%`, `0:03:03`), API units with `--raw`. Missing
/// values are empty fields. Totals are not written (CSV holds data rows only); a report cut by
/// `--limit` ends with one `Other (785 rows)` record of what the rows left out add up to (empty
/// fields where no sum is right), so that a column's sum is the report's total. Dimension names are
/// text (defused against formulas unless `--csv-formulas keep`); metric values are numbers.
/// With `--compare`, `previous_date` follows the dates and every metric is followed by its previous
/// value and its change (docs/reports.md, `--compare`).
package final class ReportCSVSink: ReportSink {
    private let out: OutputWriter
    private let writer: CSVWriter
    private var layout: ReportLayout?
    private var counter: Counter?

    /// A sink formatting into `output` with `writer`'s line ends and formula policy.
    package init(output: OutputWriter, writer: CSVWriter = CSVWriter()) {
        self.out = output
        self.writer = writer
    }

    package func begin(_ layout: ReportLayout) throws {
        self.layout = layout
        try writer.write(
            layout.keyColumns + layout.comparisonKeyColumns + layout.metrics.flatMap(layout.csvColumns), to: out)
    }

    package func beginSection(counter: Counter, sampling: Sampling?) { self.counter = counter }

    package func append(_ rows: [Report.Row]) throws {
        guard let layout, let counter else { return }
        let counterID = String(counter.id)
        for row in rows {
            if layout.compare {
                // With --compare each row carries its previous values and changes: the general path.
                let keys = layout.keyCells(row, counter: counter) + layout.comparisonKeyCells(row)
                try writer.write(keys + layout.csvValueCells(row), numbersFrom: keys.count, to: out)
                continue
            }
            // The key cells of `layout.keyCells`, written one by one rather than collected: a
            // dimension report has the counter id (several counters), every dimension name the
            // row has, then empty cells up to the layout's dimensions. Time series are short and
            // take the array.
            let lead = layout.multipleCounters ? 1 : 0
            let keys = layout.grouping == nil ? nil : layout.keyCells(row, counter: counter)
            let keyCount = keys?.count ?? lead + max(row.dimensions.count, layout.dimensions.count)
            // A record of one field has its own rule (an empty one is written `""`): the general path.
            guard keyCount + row.values.count > 1 else {
                let cells = keys ?? layout.keyCells(row, counter: counter)
                try writer.write(cells + row.values.map(layout.csvText), numbersFrom: cells.count, to: out)
                continue
            }
            if let keys {
                for (index, key) in keys.enumerated() {
                    if index > 0 { try out.write(byte: UInt8(ascii: ",")) }
                    try writer.writeField(key, isText: true, to: out)
                }
            } else {
                if lead == 1 { try writer.writeField(counterID, isText: true, to: out) }
                for (index, dimension) in row.dimensions.enumerated() {
                    if index + lead > 0 { try out.write(byte: UInt8(ascii: ",")) }
                    // The name's bytes as the page holds them: no String (docs/performance.md).
                    if let name = dimension.nameText {
                        try name.withUTF8 { try writer.writeField(utf8: $0, isText: true, to: out) }
                    }
                }
                for index in (lead + row.dimensions.count)..<max(keyCount, lead + row.dimensions.count) where index > 0
                {
                    try out.write(byte: UInt8(ascii: ",")) // an empty cell
                }
            }
            // Numbers never need quoting or defusing, so they are formatted straight into the
            // output buffer: no String per cell (docs/performance.md).
            for (index, value) in row.values.enumerated() {
                if index > 0 || keyCount > 0 { try out.write(byte: UInt8(ascii: ",")) }
                try layout.writeCSVValue(value, to: out)
            }
            try writer.endRecord(to: out)
        }
    }

    /// The `Other (785 rows)` record: the label in the first key column after `counter_id`, the
    /// other key cells empty, the rows' sums (empty for metrics that do not add up).
    package func leftOut(_ rest: Report.LeftOut) throws {
        guard let layout, let counter else { return }
        var keys: [String] = layout.multipleCounters ? [String(counter.id)] : []
        let keyCount = layout.keyColumns.count + layout.comparisonKeyColumns.count
        keys.append(rest.label)
        while keys.count < keyCount { keys.append("") }
        let values =
            layout.compare && rest.previous != nil
            ? layout.csvValueCells(Report.Row(dimensions: [], values: rest.values, previous: rest.previous))
            : rest.values.flatMap { value in layout.compare ? [layout.csvText(value), "", ""] : [layout.csvText(value)]
            }
        try writer.write(keys + values, numbersFrom: keys.count, to: out)
    }

    package func endSection(totals: [Quantity], missingDays: [Day]) {}
    package func end() {}
}
