/// Streams a report as versioned JSON (docs/json.md): rows are written as they arrive, the totals
/// and sampling of every counter at the end. Values are numbers in the API's units (seconds,
/// percent 0–100), whatever `--raw` says; each column's unit is declared in `columns`.
public final class ReportJSONSink: ReportSink {
    /// The document format version; bump on incompatible changes.
    public static var version: Int { 1 }

    private let out: OutputWriter
    private var layout: ReportLayout?
    private var counter: Counter?
    private var sampling: Sampling?
    private var previous: Report.Previous?
    private var wroteRow = false
    private var sections: [JSONValue] = []

    /// A sink formatting into `output`.
    public init(output: OutputWriter) { self.out = output }

    public func begin(_ layout: ReportLayout) throws {
        self.layout = layout
        var columns: [JSONValue] = []
        if layout.multipleCounters { columns.append(.object([("name", .string("counter_id")), ("kind", .string("counter"))])) }
        if let grouping = layout.grouping {
            columns.append(.object([("name", .string("date")), ("kind", .string("period_start")), ("grouping", .string(grouping.rawValue))]))
            if grouping != .day { columns.append(.object([("name", .string("date_end")), ("kind", .string("period_end"))])) }
        } else {
            for dimension in layout.dimensions {
                columns.append(.object([("name", .string(dimension.columnName)), ("kind", .string("dimension")), ("api_name", .string(dimension.apiName))]))
            }
        }
        for metric in layout.metrics {
            columns.append(.object([("name", .string(metric.columnName)), ("kind", .string("metric")), ("api_name", .string(metric.apiName)), ("unit", .string(metric.unit.rawValue)), ("title", .string(metric.title))]))
        }
        try out.write("{\n  \"version\": \(Self.version),\n  \"query\": ")
        try write(JSONValue.object(layout.query), pretty: true, indent: 1)
        try out.write(",\n  \"period\": ")
        try write(JSONValue.object([("from", .string(layout.period.from.iso)), ("to", .string(layout.period.to.iso))]), pretty: true, indent: 1)
        try out.write(",\n  \"grouping\": ")
        try write(JSONValue.string(layout.grouping?.rawValue), pretty: true, indent: 1)
        try out.write(",\n  \"columns\": ")
        try write(JSONValue.array(columns), pretty: true, indent: 1)
        try out.write(",\n  \"rows\": [")
    }

    public func beginSection(counter: Counter, sampling: Sampling?) {
        self.counter = counter
        self.sampling = sampling
        previous = nil
    }

    public func compareSection(_ previous: Report.Previous) { self.previous = previous }

    /// `--compare`'s members: `previous` (the compared days and their values in the API's units)
    /// and `change` (percent, or percentage points for percent metrics; null when unknown).
    private func comparison(_ previous: Report.Previous?, current: [Quantity], dates: [(String, JSONValue)], layout: ReportLayout) -> [(String, JSONValue)] {
        let changes = previous?.changes(to: current) ?? current.map { _ in Change.missing }
        var values = dates
        var changeMembers: [(String, JSONValue)] = []
        for (index, metric) in layout.metrics.enumerated() {
            let value = previous.flatMap { index < $0.values.count ? $0.values[index].value : nil }
            values.append((metric.columnName, .number(value)))
            changeMembers.append((metric.columnName, .number(index < changes.count ? changes[index].number : nil)))
        }
        return [("previous", .object(values)), ("change", .object(changeMembers))]
    }

    public func append(_ rows: [Report.Row]) throws {
        guard let layout, let counter else { return }
        for row in rows {
            var members: [(String, JSONValue)] = []
            if layout.multipleCounters { members.append(("counter_id", .number(Double(counter.id)))) }
            if layout.grouping != nil {
                members.append(("date", .string(row.period?.from.iso ?? row.dimensions.first?.name)))
                if layout.grouping != .day { members.append(("date_end", .string(row.period?.to.iso))) }
            } else {
                for (index, dimension) in layout.dimensions.enumerated() {
                    let value = index < row.dimensions.count ? row.dimensions[index] : DimensionValue(name: nil)
                    members.append((dimension.columnName, .string(value.name)))
                    if let id = value.id { members.append((dimension.columnName + "_id", .string(id))) }
                }
            }
            for (metric, quantity) in zip(layout.metrics, row.values) {
                members.append((metric.columnName, .number(quantity.value)))
            }
            if layout.grouping != nil { members.append(("incomplete", .bool(row.isIncomplete))) }
            if layout.compare {
                var dates: [(String, JSONValue)] = []
                if layout.grouping != nil {
                    dates.append(("date", .string(row.previous?.period.from.iso)))
                    if layout.grouping != .day { dates.append(("date_end", .string(row.previous?.period.to.iso))) }
                }
                members += comparison(row.previous, current: row.values, dates: dates, layout: layout)
            }
            try out.write(wroteRow ? ",\n    " : "\n    ")
            try write(JSONValue.object(members), pretty: false, indent: 2)
            wroteRow = true
        }
    }

    public func endSection(totals: [Quantity], missingDays: [Day]) {
        guard let layout, let counter else { return }
        var totalMembers: [(String, JSONValue)] = []
        for (metric, quantity) in zip(layout.metrics, totals) {
            totalMembers.append((metric.columnName, .number(quantity.value)))
        }
        var members: [(String, JSONValue)] = [
            ("counter_id", .number(Double(counter.id))),
            ("name", .string(counter.name)),
            ("site", .string(counter.site)),
            ("time_zone", .string(counter.timeZoneName)),
            ("sampled", .bool(sampling?.isSampled ?? false)),
        ]
        if let sampling, sampling.isSampled {
            members.append(("sample_share", .number(sampling.share)))
        }
        members.append(("totals", .object(totalMembers)))
        members.append(("missing_days", .array(missingDays.map { .string($0.iso) })))
        if layout.compare, let previous {
            let parts = comparison(previous, current: totals, dates: [], layout: layout)
            members.append(("previous", .object([("from", .string(previous.period.from.iso)), ("to", .string(previous.period.to.iso)),
                                                  ("totals", parts[0].1), ("change", parts[1].1)])))
        }
        sections.append(.object(members))
    }

    /// A JSONValue through the writer's text stream; its failure, if any, thrown right after.
    private func write(_ value: JSONValue, pretty: Bool, indent: Int) throws {
        var stream = out.textStream
        value.write(to: &stream, pretty: pretty, indent: indent)
        try out.check()
    }

    public func end() throws {
        try out.write(wroteRow ? "\n  ],\n  \"counters\": " : "],\n  \"counters\": ")
        try write(JSONValue.array(sections), pretty: true, indent: 1)
        let sampled = sections.contains { section in
            if case .object(let members) = section, let flag = members.first(where: { $0.0 == "sampled" })?.1, flag == .bool(true) { return true }
            return false
        }
        try out.write(",\n  \"sampled\": \(sampled)\n}\n")
    }
}
