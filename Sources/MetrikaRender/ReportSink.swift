import MetrikaModel
import MetrikaSystem

/// Receives a report as it is fetched, section by section and page by page, so that CSV and JSON
/// can stream (a 100,000-row report is never held whole) while the text table collects its rows.
/// Sinks format into an `OutputWriter`; every method throws its write failure (a full disk, a closed
/// pipe) so that the command stops fetching at once.
package protocol ReportSink: AnyObject {
    /// Called once, before anything else.
    func begin(_ layout: ReportLayout) throws
    /// A counter's section starts.
    func beginSection(counter: Counter, sampling: Sampling?) throws
    /// More rows of the current section, in order.
    func append(_ rows: [Report.Row]) throws
    /// The current section ends with its totals (API totals or correctly weighted ones; nil where
    /// none is correct) and the days no source could supply.
    func endSection(totals: [Quantity], missingDays: [Day]) throws
    /// Called once, at the end.
    func end() throws
    /// With `--compare`, right after `beginSection`: the previous period of this section and its
    /// totals (obtained like the current ones, never summed where a sum is wrong).
    func compareSection(_ previous: Report.Previous) throws
    /// Right before `endSection`, only when the report has more rows than were fetched (`--limit 15`
    /// of 800): how many were left out and what they add up to. The totals are over all the rows.
    func leftOut(_ rest: Report.LeftOut) throws
    /// Right before `endSection`, only when some asked metrics are missing on days that have the
    /// others (an offline report of a metric never synced): each such metric with its days, in the
    /// asked order. Their cells are unknown; the other metrics of those days are shown.
    func missingMetrics(_ missing: [(metric: Metric, days: [Day])]) throws
}

extension ReportSink {
    /// Sinks that show no comparison ignore it.
    package func compareSection(_ previous: Report.Previous) throws {}
    /// Sinks that show no totals ignore it.
    package func leftOut(_ rest: Report.LeftOut) throws {}
    /// Sinks that say nothing per metric ignore it (their cells show the unknown values).
    package func missingMetrics(_ missing: [(metric: Metric, days: [Day])]) throws {}
}

extension Report.LeftOut {
    /// The label of the line of the rows left out: `Other (785 rows)`; `digitSpace` between the
    /// digit groups (`1 989`; a no-break space in HTML, where a number never breaks).
    package func label(digitSpace: String = " ") -> String {
        "Other (\(DigitGroups.group(String(rows)).replacing(" ", with: digitSpace)) row\(rows == 1 ? "" : "s"))"
    }
    package var label: String { label() }
    /// The label of the Total over all the rows: `Total (800 rows)`.
    package var totalLabel: String { "Total (\(DigitGroups.group(String(rowsTotal))) rows)" }
}

/// What a report holds, known before its first row.
package struct ReportLayout: Sendable {
    package var dimensions: [Dimension]
    package var metrics: [Metric]
    package var period: DateRange
    /// Time-series grouping, or nil for a dimension report.
    package var grouping: Grouping?
    /// More than one counter: CSV and JSON get a `counter_id` column.
    package var multipleCounters: Bool
    /// `--raw`: the API's units (seconds, percent numbers) instead of mm:ss and `%`.
    package var raw: Bool
    /// The query as asked, echoed in JSON.
    package var query: [(String, JSONValue)]
    /// `--compare`: rows carry `previous` values, sections get `compareSection`.
    package var compare: Bool
    /// `--attribution`: the model the answer used, for the table's heading; nil when not asked.
    package var attribution: String?

    package init(
        dimensions: [Dimension], metrics: [Metric], period: DateRange, grouping: Grouping?, multipleCounters: Bool,
        raw: Bool, query: [(String, JSONValue)] = [], compare: Bool = false
    ) {
        self.dimensions = dimensions
        self.metrics = metrics
        self.period = period
        self.grouping = grouping
        self.multipleCounters = multipleCounters
        self.raw = raw
        self.query = query
        self.compare = compare
    }

    /// Column names of the leading (non-metric) columns in CSV and JSON.
    var keyColumns: [String] {
        var columns: [String] = multipleCounters ? ["counter_id"] : []
        if let grouping {
            columns.append("date")
            if grouping != .day { columns.append("date_end") }
        } else {
            columns += dimensions.map(\.columnName)
        }
        return columns
    }

    /// The text of a value in CSV: normalized (`17.8%`, durations as `0:03:03`, which spreadsheets
    /// read as a duration) or raw API units.
    func csvText(_ quantity: Quantity) -> String {
        if raw { return ValueFormatter.raw(quantity.value) }
        if quantity.unit == .seconds, let value = quantity.value, value.isFinite {
            return ValueFormatter.duration(value, alwaysHours: true)
        }
        return ValueFormatter.format(quantity, grouping: false, missing: "")
    }

    /// Writes `csvText(quantity)` into `out`: formatted straight into its buffer (`ValueBytes`),
    /// through the String path only for the rare value the fast path declines.
    func writeCSVValue(_ quantity: Quantity, to out: OutputWriter) throws {
        let raw = self.raw
        let done = try out.append(maxCount: ValueBytes.scratchSize) { bytes in
            if raw {
                guard let value = quantity.value, value.isFinite else { return 0 }
                return ValueBytes.shortest(value, into: bytes)
            }
            return ValueBytes.normalized(quantity, grouping: false, alwaysHours: true, into: bytes)
        }
        if !done { try out.write(csvText(quantity)) }
    }

    /// The leading cells of a row: counter id, then dates or dimension names.
    func keyCells(_ row: Report.Row, counter: Counter) -> [String] {
        var cells: [String] = multipleCounters ? [String(counter.id)] : []
        if let grouping {
            let period = row.period
            cells.append(period?.from.iso ?? row.dimensions.first?.name ?? "")
            if grouping != .day { cells.append(period?.to.iso ?? "") }
        } else {
            cells += row.dimensions.map { $0.name ?? "" }
            while cells.count < (multipleCounters ? 1 : 0) + dimensions.count { cells.append("") }
        }
        return cells
    }

    // MARK: - --compare in CSV

    /// The leading columns naming the compared days: `previous_date` (and `previous_date_end` for
    /// weeks and months) in time series; none in dimension reports or without `--compare`.
    /// A compared dimension report: every row's value is matched with the same value in the
    /// previous period, and says whether it had visits in both (`presence`).
    package var comparesRows: Bool { compare && grouping == nil }

    var comparisonKeyColumns: [String] {
        guard compare else { return [] }
        guard let grouping else { return ["presence"] }
        return grouping == .day ? ["previous_date"] : ["previous_date", "previous_date_end"]
    }

    func comparisonKeyCells(_ row: Report.Row) -> [String] {
        guard compare else { return [] }
        guard let grouping else { return [row.presence?.rawValue ?? ""] }
        let period = row.previous?.period
        return grouping == .day ? [period?.from.iso ?? ""] : [period?.from.iso ?? "", period?.to.iso ?? ""]
    }

    /// A metric's CSV columns: its value, and with `--compare` its previous value and its change —
    /// `_change_pct` (relative, in percent) or, for percent metrics, `_change_pp` (percentage points).
    func csvColumns(_ metric: Metric) -> [String] {
        guard compare else { return [metric.columnName] }
        let change = metric.unit == .percent ? "_change_pp" : "_change_pct"
        return [metric.columnName, metric.columnName + "_previous", metric.columnName + change]
    }

    /// A row's metric cells, in `csvColumns` order. A change is a plain number (`5.2`, `-0.9`; every
    /// digit with `--raw`), empty when unknown or when the previous value was zero.
    func csvValueCells(_ row: Report.Row) -> [String] {
        guard compare else { return row.values.map(csvText) }
        let changes = row.previous?.changes(to: row.values)
        var cells: [String] = []
        for (index, value) in row.values.enumerated() {
            let previous =
                row.previous.flatMap { index < $0.values.count ? $0.values[index] : nil }
                ?? Quantity(nil, unit: value.unit)
            let number = changes?[index].number
            cells += [
                csvText(value), csvText(previous),
                number.map { raw ? ValueFormatter.raw($0) : DecimalText.format($0, fractionDigits: 1) } ?? ""
            ]
        }
        return cells
    }
}
