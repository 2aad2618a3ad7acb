import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaSystem

/// A report cut by `--limit` says so in every format (issue 32, item 6): `Other (N rows)` with what
/// the left-out rows add up to where a sum is right, and the Total over all the rows.
@Suite("Report sinks: a limited report")
struct LimitedReportTests {
    static let revenue = Metric.revenue.inCurrency(.rub)
    static let metrics = [Metric.visits, Metric.users, revenue, Metric.bounceRate]
    static let source = Dimension.named("trafficSource")!

    static func row(_ name: String, _ visits: Double, _ users: Double, _ money: Double, _ bounce: Double) -> Report.Row
    {
        Report.Row(
            dimensions: [DimensionValue(name: name)],
            values: [
                Quantity(visits, unit: .count), Quantity(users, unit: .count),
                Quantity(money, unit: .money, currency: .rub), Quantity(bounce, unit: .percent)
            ])
    }

    static let rows = [row("Search", 700, 500, 1000.1, 20), row("Direct", 200, 150, 0.2, 30)]
    static let totals = [
        Quantity(1000, unit: .count), Quantity(800, unit: .count), Quantity(1000.6, unit: .money, currency: .rub),
        Quantity(25, unit: .percent)
    ]

    static func leftOut() throws -> Report.LeftOut {
        var shown = Report.ShownRows(metrics: metrics)
        for row in rows { shown.add(row) }
        return try #require(shown.leftOut(rowsTotal: 800, totals: totals))
    }

    /// Two counters through the recording sink (several counters are played back at the end).
    static func render(_ makeSink: (OutputWriter) -> any ReportSink, counters: Int = 2) throws -> String {
        let output = OutputWriter()
        let sink = makeSink(output)
        let recording = RecordingSink()
        let period = DateRange(from: Day(iso: "2026-11-23")!, to: Day(iso: "2026-11-29")!)!
        recording.begin(
            ReportLayout(
                dimensions: [source], metrics: metrics, period: period, grouping: nil, multipleCounters: counters > 1,
                raw: false))
        for id in 0..<counters {
            recording.beginSection(
                counter: Counter(id: 1001 + id, name: "Shop \(id)", site: "s.example"), sampling: nil)
            recording.append(rows)
            recording.leftOut(try leftOut())
            recording.endSection(totals: totals, missingDays: [])
        }
        try recording.replay(into: sink)
        try sink.end()
        return output.text
    }

    @Test func theRestAddsUpWhereASumIsRight() throws {
        let rest = try Self.leftOut()
        #expect(rest.rows == 798 && rest.rowsTotal == 800)
        #expect(rest.values.map(\.value) == [100, nil, 0.3, nil])
        #expect(rest.label == "Other (798 rows)" && rest.totalLabel == "Total (800 rows)")
        // Every row shown: nothing to say.
        var all = Report.ShownRows(metrics: Self.metrics)
        for row in Self.rows { all.add(row) }
        #expect(all.leftOut(rowsTotal: 2, totals: Self.totals) == nil)
    }

    @Test func tableCSVAndJSON() throws {
        let table = try Self.render { ReportTableSink(output: $0, maxWidth: nil) }
        let lines = table.components(separatedBy: "\n")
        #expect(
            lines.filter { $0.hasPrefix("Other (798 rows)") && $0.contains("100") && $0.contains("0.30 ₽") }.count == 2,
            "\(table)")
        #expect(lines.filter { $0.hasPrefix("Total (800 rows)") }.count == 2, "\(table)")

        let csv = try Self.render { ReportCSVSink(output: $0) }
        let records = csv.split(separator: "\n").map(String.init)
        #expect(records[0] == "counter_id,traffic_source,visits,users,revenue_rub,bounce_rate")
        #expect(records[3] == "1001,Other (798 rows),100,,0.30,", "\(csv)")
        #expect(records.count == 7)

        let json = try Self.render { ReportJSONSink(output: $0) }
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let counters = try #require(document["counters"] as? [[String: Any]])
        #expect(counters.count == 2)
        for counter in counters {
            #expect(counter["rows_total"] as? Int == 800)
            let other = try #require(counter["other"] as? [String: Any])
            #expect(other["rows"] as? Int == 798)
            let values = try #require(other["values"] as? [String: Any])
            #expect(
                values["visits"] as? Double == 100 && values["users"] is NSNull
                    && values["revenue_rub"] as? Double == 0.3 && values["bounce_rate"] is NSNull)
        }
        // The money of the rest in JSON's text: exact, not 0.29999999999990905.
        #expect(json.contains("\"revenue_rub\": 0.3"), "\(json)")
    }
}
