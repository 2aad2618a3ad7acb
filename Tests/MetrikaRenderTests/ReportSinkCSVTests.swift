import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel
@testable import MetrikaRender

/// CSV from the report sink read back by an independent parser (Python's csv module, strict mode)
/// and compared with records written out by hand.
@Suite("Report sinks: CSV read back", .ownThreads)
struct ReportSinkCSVTests {
    static func readBack(_ csv: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String]] {
        let result = try ReportFixtures.python("csv_roundtrip.py", on: csv)
        #expect(result.status == 0, "python3: \(result.stderr)", sourceLocation: sourceLocation)
        return try JSONDecoder().decode([[String]].self, from: result.stdout)
    }

    @Test func dailyNormalized() throws {
        let records = try Self.readBack(ReportFixtures.csv(ReportFixtures.daily()))
        #expect(
            records == [
                ["date", "pageviews", "visits", "users", "page_depth", "avg_visit_duration", "bounce_rate"],
                ["2026-11-23", "29518", "12345", "11020", "2.39", "0:03:03", "17.8%"],
                ["2026-11-24", "31002", "13001", "11800", "2.38", "0:01:00", "17.8%"],
                ["2026-11-25", "0", "0", "0", "", "", ""],
                ["2026-11-26", "1234567", "1000000", "999999", "1.23", "1:00:00", "0.1%"],
                ["2026-11-27", "250000", "99999", "88888", "2.50", "1:00:00", "100.0%"],
                ["2026-11-28", "1", "1", "1", "1.00", "0:00:00", "0.0%"],
                ["2026-11-29", "512", "300", "280", "1.71", "0:00:45", "33.3%"]
            ])
    }

    @Test func dailyRaw() throws {
        let records = try Self.readBack(ReportFixtures.csv(ReportFixtures.daily(raw: true)))
        #expect(
            records == [
                ["date", "pageviews", "visits", "users", "page_depth", "avg_visit_duration", "bounce_rate"],
                ["2026-11-23", "29518", "12345", "11020", "2.385", "182.664", "17.7786"],
                ["2026-11-24", "31002", "13001", "11800", "2.3846", "59.5", "17.75"],
                ["2026-11-25", "0", "0", "0", "", "", ""],
                ["2026-11-26", "1234567", "1000000", "999999", "1.234567", "3599.5", "0.05"],
                ["2026-11-27", "250000", "99999", "88888", "2.5", "3600", "100"],
                ["2026-11-28", "1", "1", "1", "1", "0.4", "0"],
                ["2026-11-29", "512", "300", "280", "1.70666", "45.2", "33.3333"]
            ])
    }

    /// The comma, the quote and the newline of search phrases survive; nothing is cleaned.
    @Test func hostileNamesSurviveExactly() throws {
        let records = try Self.readBack(ReportFixtures.csv(ReportFixtures.sources()))
        #expect(
            records == [
                ["traffic_source", "search_phrase", "visits", "bounce_rate", "avg_visit_duration"],
                ["Переходы из поисковых систем", "купить ромашку, недорого", "15200", "12.5%", "0:01:15"],
                ["Переходы из поисковых систем", "say \"hi\"\nsecond line", "880", "50.0%", "0:01:02"],
                [
                    "<script>alert(\"x\")</script> & Co", "\u{1B}[31mred\u{1B}[0m\tand\u{202E}evil", "7", "0.0%",
                    "1:00:00"
                ],
                ["東京ラーメン 🍜", "cafe\u{301} =SUM(A1)", "12345", "10.0%", "0:00:59"],
                ["", "", "3", "", ""]
            ])
    }

    @Test func severalCountersHaveACounterColumnAndPeriodEnds() throws {
        let records = try Self.readBack(ReportFixtures.csv(ReportFixtures.twoCounters()))
        #expect(records[0] == ["counter_id", "date", "date_end", "visits", "users", "bounce_rate"])
        #expect(records[1] == ["1001", "2026-11-01", "2026-11-01", "2400", "2100", "21.3%"])
        #expect(records[5] == ["1001", "2026-11-23", "2026-11-29", "15010", "12500", "22.5%"])
        #expect(records[7] == ["1002", "2026-11-02", "2026-11-08", "", "", ""])
        #expect(records[10] == ["1002", "2026-11-23", "2026-11-29", "2100", "1800", "33.1%"])
        #expect(records.count == 11)
    }

    @Test func emptyReportIsTheHeaderOnly() throws {
        #expect(try Self.readBack(ReportFixtures.csv(ReportFixtures.empty())) == [["country", "visits", "page_depth"]])
    }

    /// Records end with LF; a newline inside a quoted phrase stays as it is. `--crlf` gives RFC 4180's CRLF.
    @Test func lineEndings() {
        let csv = ReportFixtures.csv(ReportFixtures.sources())
        #expect(csv.hasSuffix(",3,,\n"))
        #expect(!csv.unicodeScalars.contains("\r"))
        #expect(csv.contains("\"say \"\"hi\"\"\nsecond line\""))
        let crlf = ReportFixtures.csv(ReportFixtures.sources(), writer: CSVWriter(lineEnding: .crlf))
        #expect(crlf.hasSuffix(",3,,\r\n"))
        #expect(crlf.components(separatedBy: "\r\n").count == 7)
        #expect(crlf.contains("\"say \"\"hi\"\"\nsecond line\""), "the phrase's own LF is data")
    }

    /// Durations read as durations in spreadsheets (`0:03:03`, never `03:03` = three hours); `--raw`
    /// keeps seconds.
    @Test func durationsAreHoursMinutesSeconds() throws {
        let normalized = try Self.readBack(ReportFixtures.csv(ReportFixtures.daily()))
        let raw = try Self.readBack(ReportFixtures.csv(ReportFixtures.daily(raw: true)))
        let column = try #require(normalized[0].firstIndex(of: "avg_visit_duration"))
        #expect(
            normalized.dropFirst().map { $0[column] } == [
                "0:03:03", "0:01:00", "", "1:00:00", "1:00:00", "0:00:00", "0:00:45"
            ])
        #expect(raw.dropFirst().map { $0[column] } == ["182.664", "59.5", "", "3599.5", "3600", "0.4", "45.2"])
    }

    /// A phrase typed by a stranger cannot become a live formula; metric values (numbers, even
    /// negative ones) are never touched; `--csv-formulas keep` gives the bytes.
    @Test func formulaPhrasesAreDefusedButNumbersAreNot() throws {
        let phrase = Dimension.named("searchPhrase")!
        let metrics = [Metric.visits]
        let layout = ReportLayout(
            dimensions: [phrase], metrics: metrics, period: ReportFixtures.range("2026-11-01", "2026-11-02"),
            grouping: nil, multipleCounters: false, raw: true)
        let names = ["=HYPERLINK(\"http://evil.example\",\"click\")", "+1", "-2+3", "@SUM(A1)", "\tx", "\r=1", "ok =1"]
        let rows = names.map {
            Report.Row(dimensions: [DimensionValue(name: $0)], values: [Quantity(-5, unit: .count)])
        }
        let fixture = ReportFixtures.Fixture(
            layout: layout,
            sections: [.init(counter: ReportFixtures.shop, rows: rows, totals: [Quantity(nil, unit: .count)])])
        let defused = try Self.readBack(ReportFixtures.csv(fixture))
        #expect(defused.dropFirst().map { $0[0] } == names.map { $0 == "ok =1" ? $0 : "'" + $0 })
        #expect(defused.dropFirst().allSatisfy { $0[1] == "-5" })
        let kept = try Self.readBack(ReportFixtures.csv(fixture, writer: CSVWriter(formulas: .keep)))
        #expect(kept.dropFirst().map { $0[0] } == names)
    }
}
