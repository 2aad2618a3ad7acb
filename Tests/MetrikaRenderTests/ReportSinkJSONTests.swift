import Foundation
import Testing

@testable import MetrikaModel

/// JSON from the report sink parsed by Python's json module and checked against docs/json.md by
/// `scripts/report_json_check.py`; the flat summary it prints is compared with hand-written values.
@Suite("Report sinks: JSON read back")
struct ReportSinkJSONTests {
    struct Summary: Decodable {
        struct CounterPart: Decodable {
            var counter_id: Int
            var name: String
            var site: String
            var time_zone: String
            var sampled: Bool
            var sample_share: String?
            var totals: [String]
            var missing_days: [String]
            var missing: [String]?
        }

        var version: Int
        var grouping: String?
        var period: [String]
        var query: [String: String]
        var columns: [String]
        var rows: [[String]]
        var counters: [CounterPart]
        var sampled: Bool
    }

    static func check(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Summary {
        let result = try ReportFixtures.python("report_json_check.py", on: json)
        #expect(result.status == 0, "checker: \(result.stderr)", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(Summary.self, from: result.stdout)
    }

    @Test func daily() throws {
        let summary = try Self.check(ReportFixtures.json(ReportFixtures.daily()))
        #expect(summary.version == 1)
        #expect(summary.grouping == "day")
        #expect(summary.period == ["2026-11-23", "2026-11-29"])
        #expect(summary.query["from"] == #""6daysAgo""#)
        #expect(summary.query["counters"] == "[1001]")
        #expect(
            summary.columns == [
                "date", "pageviews", "visits", "users", "page_depth", "avg_visit_duration", "bounce_rate"
            ])
        #expect(summary.rows.count == 7)
        #expect(
            summary.rows[0] == [
                "date=2026-11-23", "pageviews=29518", "visits=12345", "users=11020", "page_depth=2.385",
                "avg_visit_duration=182.664", "bounce_rate=17.7786", "incomplete=false"
            ])
        // Zero visits are 0, ratios without visits are null: never the same thing.
        #expect(
            summary.rows[2] == [
                "date=2026-11-25", "pageviews=0", "visits=0", "users=0", "page_depth=null",
                "avg_visit_duration=null", "bounce_rate=null", "incomplete=false"
            ])
        #expect(
            summary.rows[5] == [
                "date=2026-11-28", "pageviews=1", "visits=1", "users=1", "page_depth=1",
                "avg_visit_duration=0.4", "bounce_rate=0", "incomplete=false"
            ])
        #expect(summary.rows[6].last == "incomplete=true")
        #expect(summary.sampled == false)
        #expect(summary.counters.count == 1)
        let counter = summary.counters[0]
        #expect(counter.counter_id == 1001)
        #expect(counter.name == "Интернет-магазин «Ромашка»")
        #expect(counter.sample_share == nil)
        #expect(
            counter.totals == [
                "pageviews=1545600", "visits=1125646", "users=1098000", "page_depth=1.3730782146429694",
                "avg_visit_duration=3520.23505345375", "bounce_rate=9.336989210639935"
            ])
    }

    @Test func sampledDimensionsWithHostileNames() throws {
        let summary = try Self.check(ReportFixtures.json(ReportFixtures.sources()))
        #expect(summary.grouping == nil)
        #expect(summary.columns == ["traffic_source", "search_phrase", "visits", "bounce_rate", "avg_visit_duration"])
        #expect(summary.query["accuracy"] == #""0.1""#)
        #expect(
            summary.rows == [
                [
                    "traffic_source=Переходы из поисковых систем", "traffic_source_id=organic",
                    "search_phrase=купить ромашку, недорого",
                    "visits=15200", "bounce_rate=12.5", "avg_visit_duration=75"
                ],
                [
                    "traffic_source=Переходы из поисковых систем", "traffic_source_id=organic",
                    "search_phrase=say \"hi\"\nsecond line",
                    "visits=880", "bounce_rate=50", "avg_visit_duration=61.5"
                ],
                [
                    "traffic_source=<script>alert(\"x\")</script> & Co", "traffic_source_id=referral",
                    "search_phrase=\u{1B}[31mred\u{1B}[0m\tand\u{202E}evil", "visits=7", "bounce_rate=0",
                    "avg_visit_duration=3600.4"
                ],
                [
                    "traffic_source=東京ラーメン 🍜", "traffic_source_id=social", "search_phrase=cafe\u{301} =SUM(A1)",
                    "visits=12345", "bounce_rate=9.96", "avg_visit_duration=59.49"
                ],
                ["traffic_source=null", "search_phrase=null", "visits=3", "bounce_rate=null", "avg_visit_duration=null"]
            ])
        #expect(summary.sampled)
        #expect(summary.counters[0].sampled)
        #expect(summary.counters[0].sample_share == "0.1")
        #expect(summary.counters[0].totals == ["visits=28435", "bounce_rate=10.65", "avg_visit_duration=84.2"])
    }

    @Test func twoCounters() throws {
        let summary = try Self.check(ReportFixtures.json(ReportFixtures.twoCounters()))
        #expect(summary.grouping == "week")
        #expect(summary.columns == ["counter_id", "date", "date_end", "visits", "users", "bounce_rate"])
        #expect(summary.rows.count == 10)
        #expect(
            summary.rows[0] == [
                "counter_id=1001", "date=2026-11-01", "date_end=2026-11-01", "visits=2400", "users=2100",
                "bounce_rate=21.25", "incomplete=false"
            ])
        #expect(
            summary.rows[6] == [
                "counter_id=1002", "date=2026-11-02", "date_end=2026-11-08", "visits=null", "users=null",
                "bounce_rate=null", "incomplete=false"
            ])
        #expect(summary.counters.map(\.counter_id) == [1001, 1002])
        #expect(summary.counters[1].name == "<script>alert(\"x\")</script> & Co")
        #expect(summary.counters[1].time_zone == "Asia/Yekaterinburg")
        #expect(summary.counters[1].totals == ["visits=null", "users=null", "bounce_rate=null"])
        #expect(summary.counters[1].missing_days == ["2026-11-03", "2026-11-04", "2026-11-05", "2026-11-07"])
        #expect(summary.sampled == false)
    }

    /// Issue 40 item 3: a metric the history lacks on days that have the others is listed per metric
    /// (`missing`), its cells null, the others shown; `missing_days` keeps the days with nothing.
    @Test func aMetricMissingAloneIsListedPerMetric() throws {
        var fixture = ReportFixtures.twoCounters()
        fixture.sections[0].missingMetrics = [
            (Metric.users, [ReportFixtures.day("2026-11-01"), ReportFixtures.day("2026-11-02")])
        ]
        let summary = try Self.check(ReportFixtures.json(fixture))
        #expect(summary.counters[0].missing == ["users=2026-11-01,2026-11-02"])
        #expect(summary.counters[0].missing_days.isEmpty)
        #expect(summary.counters[1].missing == nil, "only a section with a metric missing alone has the member")
        #expect(summary.counters[1].missing_days == ["2026-11-03", "2026-11-04", "2026-11-05", "2026-11-07"])
    }

    @Test func empty() throws {
        let summary = try Self.check(ReportFixtures.json(ReportFixtures.empty()))
        #expect(summary.rows.isEmpty)
        #expect(summary.counters[0].totals == ["visits=0", "page_depth=null"])
    }

    /// The checker is not a rubber stamp: documents that break the schema are refused.
    @Test(arguments: [
        ("\"version\": 1", "\"version\": 2"),
        ("\"sampled\": false\n}", "\"sampled\": true\n}"),
        ("\"visits\":12345,", "\"visits\":12345,\"visits\":1,"),
        ("\"incomplete\":true", "\"incomplete\":\"yes\""),
        ("\"bounce_rate\":17.7786", "\"bounce_rate\":NaN"),
        ("\"unit\": \"percent\"", "\"unit\": \"fraction\"")
    ])
    func checkerRefusesBrokenDocuments(original: String, broken: String) throws {
        let json = ReportFixtures.json(ReportFixtures.daily())
        #expect(json.contains(original))
        let result = try ReportFixtures.python(
            "report_json_check.py", on: json.replacingOccurrences(of: original, with: broken))
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("invalid report JSON"))
    }
}
