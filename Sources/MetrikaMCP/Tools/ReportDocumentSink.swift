import MetrikaModel
import MetrikaRender

/// get_report's document, built once as the value its structured view gives: `report --json`'s
/// members (Render's `ReportJSONSink` builders) without the `query` echo, a row's `"incomplete": false`
/// or a counter's empty `missing_days` (`StructuredView.report` says why). `byteCount` is the size
/// `report --json`'s text of the same rows would have, the measure `ReportWindow`'s byte budget is in.
final class ReportDocumentSink: ReportSink {
    private var layout: ReportLayout?
    private var head: [(String, JSONValue)] = []
    private var rows: [JSONValue] = []
    private var sections: [JSONValue] = []
    private var section: ReportJSONSink.Section?
    /// The bytes `report --json` would have written so far.
    private(set) var byteCount = 0

    /// The length of the member a row over leaves out (`,"incomplete":false`).
    private static let completeFlagBytes = #","incomplete":false"#.utf8.count

    func begin(_ layout: ReportLayout) {
        self.layout = layout
        head = ReportJSONSink.headMembers(layout).filter { $0.0 != "query" }
        byteCount = ReportJSONSink.head(layout).utf8.count
    }

    func beginSection(counter: Counter, sampling: Sampling?) {
        section = ReportJSONSink.Section(counter: counter, sampling: sampling)
    }

    func compareSection(_ previous: Report.Previous) { section?.previous = previous }

    func leftOut(_ rest: Report.LeftOut) { section?.rest = rest }

    func missingMetrics(_ missing: [(metric: Metric, days: [Day])]) { section?.missingMetrics = missing }

    func append(_ rows: [Report.Row]) {
        guard let layout, let counter = section?.counter else { return }
        for row in rows {
            let value = ReportJSONSink.row(row, layout: layout, counter: counter, completeFlag: false)
            // `,\n    ` between rows, `\n    ` before the first, as the text has them.
            byteCount += (self.rows.isEmpty ? 5 : 6) + value.serialized().utf8.count
            if layout.grouping != nil, !row.isIncomplete { byteCount += Self.completeFlagBytes }
            self.rows.append(value)
        }
    }

    func endSection(totals: [Quantity], missingDays: [Day]) {
        guard let layout, let section else { return }
        sections.append(
            ReportJSONSink.section(
                section, totals: totals, missingDays: missingDays, layout: layout, emptyMissingDays: false))
    }

    func end() {}

    /// The document: the head's members, the rows, the counters and whether any was sampled.
    var document: JSONValue {
        .object(
            head + [
                ("rows", .array(rows)), ("counters", .array(sections)),
                ("sampled", .bool(ReportJSONSink.sampled(sections)))
            ])
    }
}
