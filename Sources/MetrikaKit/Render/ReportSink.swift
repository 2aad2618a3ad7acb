/// Receives a report as it is fetched, section by section and page by page, so that CSV and JSON
/// can stream (a 100,000-row report is never held whole) while the text table collects its rows.
/// Sinks format into an `OutputWriter`; every method throws its write failure (a full disk, a closed
/// pipe) so that the command stops fetching at once.
public protocol ReportSink: AnyObject {
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
}

/// What a report holds, known before its first row.
public struct ReportLayout: Sendable {
    public var dimensions: [Dimension]
    public var metrics: [Metric]
    public var period: DateRange
    /// Time-series grouping, or nil for a dimension report.
    public var grouping: Grouping?
    /// More than one counter: CSV and JSON get a `counter_id` column.
    public var multipleCounters: Bool
    /// `--raw`: the API's units (seconds, percent numbers) instead of mm:ss and `%`.
    public var raw: Bool
    /// The query as asked, echoed in JSON.
    public var query: [(String, JSONValue)]

    public init(dimensions: [Dimension], metrics: [Metric], period: DateRange, grouping: Grouping?, multipleCounters: Bool, raw: Bool, query: [(String, JSONValue)] = []) {
        self.dimensions = dimensions
        self.metrics = metrics
        self.period = period
        self.grouping = grouping
        self.multipleCounters = multipleCounters
        self.raw = raw
        self.query = query
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
}
