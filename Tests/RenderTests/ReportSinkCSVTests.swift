import Foundation
import Testing
@testable import MetrikaKit

/// CSV from the report sink read back by an independent parser (Python's csv module, strict mode)
/// and compared with records written out by hand.
@Suite("Report sinks: CSV read back")
struct ReportSinkCSVTests {
    static func readBack(_ csv: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String]] {
        let result = try ReportFixtures.python("csv_roundtrip.py", on: csv)
        #expect(result.status == 0, "python3: \(result.stderr)", sourceLocation: sourceLocation)
        return try JSONDecoder().decode([[String]].self, from: result.stdout)
    }

    @Test func dailyNormalized() throws {
        let records = try Self.readBack(ReportFixtures.csv(ReportFixtures.daily()))
        #expect(records == [
            ["date", "pageviews", "visits", "users", "page_depth", "avg_visit_duration", "bounce_rate"],
            ["2026-11-23", "29518", "12345", "11020", "2.39", "03:03", "17.8%"],
            ["2026-11-24", "31002", "13001", "11800", "2.38", "01:00", "17.8%"],
            ["2026-11-25", "0", "0", "0", "", "", ""],
            ["2026-11-26", "1234567", "1000000", "999999", "1.23", "1:00:00", "0.1%"],
            ["2026-11-27", "250000", "99999", "88888", "2.50", "1:00:00", "100.0%"],
            ["2026-11-28", "1", "1", "1", "1.00", "00:00", "0.0%"],
            ["2026-11-29", "512", "300", "280", "1.71", "00:45", "33.3%"],
        ])
    }

    @Test func dailyRaw() throws {
        let records = try Self.readBack(ReportFixtures.csv(ReportFixtures.daily(raw: true)))
        #expect(records == [
            ["date", "pageviews", "visits", "users", "page_depth", "avg_visit_duration", "bounce_rate"],
            ["2026-11-23", "29518", "12345", "11020", "2.385", "182.664", "17.7786"],
            ["2026-11-24", "31002", "13001", "11800", "2.3846", "59.5", "17.75"],
            ["2026-11-25", "0", "0", "0", "", "", ""],
            ["2026-11-26", "1234567", "1000000", "999999", "1.234567", "3599.5", "0.05"],
            ["2026-11-27", "250000", "99999", "88888", "2.5", "3600", "100"],
            ["2026-11-28", "1", "1", "1", "1", "0.4", "0"],
            ["2026-11-29", "512", "300", "280", "1.70666", "45.2", "33.3333"],
        ])
    }

    /// The comma, the quote and the newline of search phrases survive; nothing is cleaned.
    @Test func hostileNamesSurviveExactly() throws {
        let records = try Self.readBack(ReportFixtures.csv(ReportFixtures.sources()))
        #expect(records == [
            ["traffic_source", "search_phrase", "visits", "bounce_rate", "avg_visit_duration"],
            ["Переходы из поисковых систем", "купить ромашку, недорого", "15200", "12.5%", "01:15"],
            ["Переходы из поисковых систем", "say \"hi\"\nsecond line", "880", "50.0%", "01:02"],
            ["<script>alert(\"x\")</script> & Co", "\u{1B}[31mred\u{1B}[0m\tand\u{202E}evil", "7", "0.0%", "1:00:00"],
            ["東京ラーメン 🍜", "cafe\u{301} =SUM(A1)", "12345", "10.0%", "00:59"],
            ["", "", "3", "", ""],
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

    /// Every record ends with CRLF, the newline inside the quoted phrase stays a bare LF.
    @Test func lineEndings() {
        let csv = ReportFixtures.csv(ReportFixtures.sources())
        #expect(csv.hasSuffix(",3,,\r\n"))
        #expect(csv.components(separatedBy: "\r\n").count == 7)
        #expect(csv.contains("\"say \"\"hi\"\"\nsecond line\""))
    }
}
