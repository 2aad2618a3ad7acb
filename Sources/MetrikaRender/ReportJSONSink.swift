import MetrikaModel
import MetrikaSystem

/// Streams a report as versioned JSON (docs/json.md): rows are written as they arrive, the totals
/// and sampling of every counter at the end. Values are numbers in the API's units (seconds,
/// percent 0–100), whatever `--raw` says; each column's unit is declared in `columns`.
package final class ReportJSONSink: ReportSink {
    /// The document format version; bump on incompatible changes.
    package static var version: Int { 1 }

    private let out: OutputWriter
    private var layout: ReportLayout?
    private var counter: Counter?
    private var sampling: Sampling?
    private var previous: Report.Previous?
    private var rest: Report.LeftOut?
    /// The section's metrics missing on days that have the others (offline), for `missing`.
    private var missingMetrics: [(metric: Metric, days: [Day])] = []
    private var wroteRow = false
    private var sections: [JSONValue] = []

    /// A sink formatting into `output`.
    package init(output: OutputWriter) { self.out = output }

    package func begin(_ layout: ReportLayout) throws {
        self.layout = layout
        try out.write(Self.head(layout))
    }

    /// The document's columns: each one's name, kind, and a metric's unit (and currency) and title.
    package static func columns(_ layout: ReportLayout) -> [JSONValue] {
        var columns: [JSONValue] = []
        if layout.multipleCounters {
            columns.append(.object([("name", .string("counter_id")), ("kind", .string("counter"))]))
        }
        if let grouping = layout.grouping {
            columns.append(
                .object([
                    ("name", .string("date")), ("kind", .string("period_start")),
                    ("grouping", .string(grouping.rawValue))
                ]))
            if grouping != .day {
                columns.append(.object([("name", .string("date_end")), ("kind", .string("period_end"))]))
            }
        } else {
            for dimension in layout.dimensions {
                columns.append(
                    .object([
                        ("name", .string(dimension.columnName)), ("kind", .string("dimension")),
                        ("api_name", .string(dimension.apiName))
                    ]))
            }
        }
        for metric in layout.metrics {
            var members: [(String, JSONValue)] = [
                ("name", .string(metric.columnName)), ("kind", .string("metric")),
                ("api_name", .string(metric.apiName)), ("unit", .string(metric.unit.rawValue))
            ]
            if metric.unit == .money, let currency = metric.currency {
                members.append(("currency", .string(currency.code)))
            }
            members.append(("title", .string(metric.title)))
            columns.append(.object(members))
        }
        return columns
    }

    /// The members before the rows, in the document's order: version, query, period, grouping, columns.
    package static func headMembers(_ layout: ReportLayout) -> [(String, JSONValue)] {
        [
            ("version", .number(Double(version))), ("query", .object(layout.query)),
            ("period", .object([("from", .string(layout.period.from.iso)), ("to", .string(layout.period.to.iso))])),
            ("grouping", .string(layout.grouping?.rawValue)), ("columns", .array(columns(layout)))
        ]
    }

    /// The document's text up to its first row: `headMembers`, then `"rows": [`.
    package static func head(_ layout: ReportLayout) -> String {
        var text = "{"
        for (index, member) in headMembers(layout).enumerated() {
            text += (index == 0 ? "\n  " : ",\n  ")
            JSONValue.writeString(member.0, to: &text)
            text += ": "
            member.1.write(to: &text, pretty: true, indent: 1)
        }
        return text + ",\n  \"rows\": ["
    }

    package func beginSection(counter: Counter, sampling: Sampling?) {
        self.counter = counter
        self.sampling = sampling
        previous = nil
        rest = nil
        missingMetrics = []
    }

    package func leftOut(_ rest: Report.LeftOut) { self.rest = rest }

    package func missingMetrics(_ missing: [(metric: Metric, days: [Day])]) { missingMetrics = missing }

    package func compareSection(_ previous: Report.Previous) { self.previous = previous }

    /// `--compare`'s members: `previous` (the compared days and their values in the API's units)
    /// and `change` (percent, or percentage points for percent metrics; null when unknown).
    private static func comparison(
        _ previous: Report.Previous?, current: [Quantity], dates: [(String, JSONValue)], layout: ReportLayout
    ) -> [(String, JSONValue)] {
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

    package func append(_ rows: [Report.Row]) throws {
        guard let layout, let counter else { return }
        // Written member by member straight into the output buffer — the bytes `JSONValue.object`
        // would give (the differential tests hold it to that), without a JSONValue and a String per
        // cell (docs/performance.md).
        for row in rows {
            try out.write(wroteRow ? ",\n    " : "\n    ")
            try writeRow(row, layout: layout, counter: counter)
            wroteRow = true
        }
    }

    /// One row as a compact JSON object.
    func writeRow(_ row: Report.Row, layout: ReportLayout, counter: Counter) throws {
        try out.write(byte: UInt8(ascii: "{"))
        var separator = false
        func key(_ name: String) throws {
            if separator { try out.write(byte: UInt8(ascii: ",")) }
            separator = true
            try writeString(name)
            try out.write(byte: UInt8(ascii: ":"))
        }
        func string(_ value: String?) throws {
            if let value { try writeString(value) } else { try out.write("null") }
        }
        if layout.multipleCounters {
            try key("counter_id")
            try writeNumber(Double(counter.id))
        }
        if layout.grouping != nil {
            try key("date")
            try string(row.period?.from.iso ?? row.dimensions.first?.name)
            if layout.grouping != .day {
                try key("date_end")
                try string(row.period?.to.iso)
            }
        } else {
            for (index, dimension) in layout.dimensions.enumerated() {
                let value = index < row.dimensions.count ? row.dimensions[index] : DimensionValue(name: nil)
                try key(dimension.columnName)
                if let name = value.nameText { try writeString(name) } else { try out.write("null") }
                if let id = value.id {
                    try key(dimension.columnName + "_id")
                    try writeString(id)
                }
            }
        }
        for (metric, quantity) in zip(layout.metrics, row.values) {
            try key(metric.columnName)
            try writeNumber(quantity.value)
        }
        if layout.grouping != nil {
            try key("incomplete")
            try out.write(row.isIncomplete ? "true" : "false")
        }
        if layout.compare {
            var dates: [(String, JSONValue)] = []
            if layout.grouping != nil {
                dates.append(("date", .string(row.previous?.period.from.iso)))
                if layout.grouping != .day { dates.append(("date_end", .string(row.previous?.period.to.iso))) }
            }
            for (name, value) in Self.comparison(row.previous, current: row.values, dates: dates, layout: layout) {
                try key(name)
                try write(value, pretty: false, indent: 2)
            }
            if layout.comparesRows {
                try key("presence")
                try string(row.presence?.rawValue)
            }
        }
        try out.write(byte: UInt8(ascii: "}"))
    }

    /// One row as a value: the members `writeRow` writes, in its order (its bytes are this value's
    /// compact text). `completeFlag: false` leaves out a row's `"incomplete": false` (a period over).
    package static func row(
        _ row: Report.Row, layout: ReportLayout, counter: Counter, completeFlag: Bool = true
    ) -> JSONValue {
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
        if layout.grouping != nil, row.isIncomplete || completeFlag {
            members.append(("incomplete", .bool(row.isIncomplete)))
        }
        if layout.compare {
            var dates: [(String, JSONValue)] = []
            if layout.grouping != nil {
                dates.append(("date", .string(row.previous?.period.from.iso)))
                if layout.grouping != .day { dates.append(("date_end", .string(row.previous?.period.to.iso))) }
            }
            members += comparison(row.previous, current: row.values, dates: dates, layout: layout)
            if layout.comparesRows { members.append(("presence", .string(row.presence?.rawValue))) }
        }
        return .object(members)
    }

    /// `JSONValue.number(value)`'s text: whole numbers formatted into the buffer, the rest through
    /// `DecimalText.shortest`; null when missing or not finite.
    private func writeNumber(_ value: Double?) throws {
        guard let value, value.isFinite else { return try out.write("null") }
        let done = try out.append(maxCount: ValueBytes.scratchSize) { ValueBytes.shortest(value, into: $0) }
        if !done { try out.write(DecimalText.shortest(value)) }
    }

    /// `JSONValue.writeString`'s text: copied as it is when no byte can need an escape (ASCII
    /// printables other than `"` and `\`, and UTF-8 lead bytes of scripts with nothing escaped —
    /// Cyrillic, emoji), else through `JSONValue.writeString`, the one escaper.
    private func writeString(_ value: String) throws {
        try writeString(SharedText(value))
    }

    /// The same for `SharedText` (a name in a page's buffer): its bytes copied as they are when
    /// none can need an escape, with no `String` made; else its `String` through the escaper.
    private func writeString(_ value: SharedText) throws {
        let done = try value.withUTF8 { bytes -> Bool in
            guard bytes.allSatisfy(Self.isVerbatim) else { return false }
            try out.write(byte: UInt8(ascii: "\""))
            try out.write(contentsOf: UnsafeRawBufferPointer(bytes))
            try out.write(byte: UInt8(ascii: "\""))
            return true
        }
        if !done {
            var stream = out.textStream
            JSONValue.writeString(value.string, to: &stream)
            try out.check()
        }
    }

    /// A byte that `JSONValue.writeString` never escapes, whatever surrounds it: printable ASCII but
    /// `"` and `\`; UTF-8 continuation bytes; lead bytes other than those of the escaped scalars
    /// (C2: U+0080–U+009F, D8: U+061C, E2: U+200E…U+2069).
    private static func isVerbatim(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20...0x7E: return byte != 0x22 && byte != 0x5C
        case 0x80...0xBF: return true
        case 0xC2, 0xD8, 0xE2: return false
        case 0xC3...0xF4: return true
        default: return false
        }
    }

    package func endSection(totals: [Quantity], missingDays: [Day]) {
        guard let layout, let counter else { return }
        sections.append(
            Self.section(
                Section(
                    counter: counter, sampling: sampling, previous: previous, rest: rest, missingMetrics: missingMetrics
                ),
                totals: totals, missingDays: missingDays, layout: layout))
    }

    /// What a counter's section says besides its rows: its counter, sampling, comparison, the rows a
    /// limit left out and the metrics missing on days that have the others.
    package struct Section {
        package var counter: Counter
        package var sampling: Sampling?
        package var previous: Report.Previous?
        package var rest: Report.LeftOut?
        package var missingMetrics: [(metric: Metric, days: [Day])]

        package init(
            counter: Counter, sampling: Sampling?, previous: Report.Previous? = nil, rest: Report.LeftOut? = nil,
            missingMetrics: [(metric: Metric, days: [Day])] = []
        ) {
            self.counter = counter
            self.sampling = sampling
            self.previous = previous
            self.rest = rest
            self.missingMetrics = missingMetrics
        }
    }

    /// A counter's entry of `counters`. `emptyMissingDays: false` leaves out `"missing_days": []`.
    package static func section(
        _ section: Section, totals: [Quantity], missingDays: [Day], layout: ReportLayout,
        emptyMissingDays: Bool = true
    ) -> JSONValue {
        let counter = section.counter
        var totalMembers: [(String, JSONValue)] = []
        for (metric, quantity) in zip(layout.metrics, totals) {
            totalMembers.append((metric.columnName, .number(quantity.value)))
        }
        var members: [(String, JSONValue)] = [
            ("counter_id", .number(Double(counter.id))),
            ("name", .string(counter.name)),
            ("site", .string(counter.site)),
            ("time_zone", .string(counter.timeZoneName)),
            ("sampled", .bool(section.sampling?.isSampled ?? false))
        ]
        if let sampling = section.sampling, sampling.isSampled {
            members.append(("sample_share", .number(sampling.share)))
        }
        members.append(("totals", .object(totalMembers)))
        // A report cut by --limit: the totals are over `rows_total` rows; `other` is what the rows
        // left out add up to (null for metrics that do not add up).
        if let rest = section.rest {
            members.append(("rows_total", .number(Double(rest.rowsTotal))))
            let values = zip(layout.metrics, rest.values).map { metric, quantity in
                (metric.columnName, JSONValue.number(quantity.value))
            }
            var other: [(String, JSONValue)] = [("rows", .number(Double(rest.rows))), ("values", .object(values))]
            // A compared report's Other: its previous values and change, as a row's.
            if layout.compare, let before = rest.previous {
                other += comparison(before, current: rest.values, dates: [], layout: layout)
            }
            members.append(("other", .object(other)))
        }
        if emptyMissingDays || !missingDays.isEmpty {
            members.append(("missing_days", .array(missingDays.map { .string($0.iso) })))
        }
        // Only when a metric is missing on days that have the others: its column name → those days.
        if !section.missingMetrics.isEmpty {
            let missing = section.missingMetrics.map { missing in
                (missing.metric.columnName, JSONValue.array(missing.days.map { .string($0.iso) }))
            }
            members.append(("missing", .object(missing)))
        }
        if layout.compare, let previous = section.previous {
            let parts = comparison(previous, current: totals, dates: [], layout: layout)
            var compared: [(String, JSONValue)] = [
                ("from", .string(previous.period.from.iso)), ("to", .string(previous.period.to.iso))
            ]
            if let hours = previous.hoursText { compared.append(("last_day_hours", .string(hours))) }
            compared += [("totals", parts[0].1), ("change", parts[1].1)]
            members.append(("previous", .object(compared)))
        }
        return .object(members)
    }

    /// Whether any section was estimated from a sample (the document's `sampled`).
    package static func sampled(_ sections: [JSONValue]) -> Bool {
        sections.contains { section in
            guard case .object(let members) = section else { return false }
            return members.first(where: { $0.0 == "sampled" })?.1 == .bool(true)
        }
    }

    /// A JSONValue through the writer's text stream; its failure, if any, thrown right after.
    private func write(_ value: JSONValue, pretty: Bool, indent: Int) throws {
        var stream = out.textStream
        value.write(to: &stream, pretty: pretty, indent: indent)
        try out.check()
    }

    package func end() throws {
        try out.write(wroteRow ? "\n  ],\n  \"counters\": " : "],\n  \"counters\": ")
        try write(JSONValue.array(sections), pretty: true, indent: 1)
        try out.write(",\n  \"sampled\": \(Self.sampled(sections))\n}\n")
    }
}
