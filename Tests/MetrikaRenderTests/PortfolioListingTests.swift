import Foundation
import MetrikaModel
import Testing

@testable import MetrikaRender

/// The portfolio's rows and Total with numbers worked out by hand: counts summed, bounce rate and time
/// on site weighted by visits, page depth = pageviews / visits, users never summed; sorted by visits;
/// the counter that fell most.
@Suite struct PortfolioListingTests {
    static func values(_ numbers: [Double?]) -> [Quantity] {
        zip(PortfolioListing.metrics, numbers).map { Quantity($1, unit: $0.unit) }
    }

    static let day = Day(iso: "2026-06-01")!
    static let range = DateRange(from: day, to: day.adding(days: 6))!
    static let alpha = Counter(id: 1001, name: "Alpha", site: "alpha.example")
    static let beta = Counter(id: 1002, name: "Beta", site: "beta.example")
    static let gamma = Counter(id: 1003, name: "Gamma", site: "gamma.example")

    /// Alpha: 1,000 visits, 20% bounce, 2 minutes; Beta: 3,000 visits, 40%, 1 minute; Gamma: none.
    static func report(compare: Bool) -> PortfolioListing.Report {
        let rows = [
            PortfolioListing.Row(
                counter: alpha, range: range, values: values([1000, 3000, 800, 20, 3, 120]),
                previous: compare ? values([2000, 5000, 1500, 30, 2.5, 100]) : nil),
            PortfolioListing.Row(
                counter: gamma, range: range, values: values([0, 0, 0, nil, nil, nil]),
                previous: compare ? values([0, 0, 0, nil, nil, nil]) : nil),
            PortfolioListing.Row(
                counter: beta, range: range, values: values([3000, 6000, 2500, 40, 2, 60]),
                previous: compare ? values([2500, 5000, 2000, 50, 2, 50]) : nil)
        ]
        return PortfolioListing.Report(period: range, rows: rows, compare: compare)
    }

    @Test func theTotalSumsCountsWeightsRatesByVisitsAndNeverSumsUsers() {
        let report = Self.report(compare: false)
        #expect(report.rows.map(\.counter.id) == [1002, 1001, 1003], "by visits, most first")
        let total = report.total.map(\.value)
        #expect(total[0] == 4000)
        #expect(total[1] == 9000)
        #expect(total[2] == nil, "users are never summed")
        #expect(total[3] == 35, "(20 × 1000 + 40 × 3000) / 4000")
        #expect(total[4] == 2.25, "9000 pageviews / 4000 visits")
        #expect(total[5] == 75, "(120 × 1000 + 60 × 3000) / 4000")

        let text = PortfolioListing.table(report, rows: report.rows[...]).render(maxWidth: nil)
        let totalLine = text.split(separator: "\n").first { $0.contains("Total (3 counters)") } ?? ""
        let cells = totalLine.split(separator: "  ", omittingEmptySubsequences: true).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        #expect(cells == ["Total (3 counters)", "4 000", "9 000", "not summed", "35.0%", "2.25", "01:15"], "\(text)")
        #expect(PortfolioListing.footer(report, shown: 0..<3) == [PortfolioListing.usersNote])

        #expect(
            PortfolioListing.csvTotal(report, raw: false) == [
                "total", "Total", "", "4000", "9000", "", "35.0%", "2.25", "0:01:15"
            ])
        #expect(
            PortfolioListing.csvRow(report.rows[0], raw: true) == [
                "1002", "Beta", "beta.example", "3000", "6000", "2500", "40", "2", "60"
            ])
    }

    @Test func aPageOfRowsKeepsTheTotalOverAll() throws {
        let report = Self.report(compare: false)
        let document = PortfolioListing.document(report, rows: report.rows[0..<1])
        let data = Data(document.serialized(pretty: false).utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object["kind"] as? String == "portfolio")
        #expect((object["rows"] as? [[String: Any]])?.map { $0["counter_id"] as? Int } == [1002])
        #expect(object["rows_total"] as? Int == 3)
        let total = try #require(object["total"] as? [String: Any])
        #expect(total["visits"] as? Double == 4000)
        #expect(total["users"] is NSNull)
        #expect(total["users_summed"] as? Bool == false)
        #expect(total["bounce_rate"] as? Double == 35)
        #expect(PortfolioListing.footer(report, shown: 0..<1).first?.hasPrefix("Showing counters 1–1 of 3") == true)
    }

    @Test func compareGivesEachChangeAndTheCounterThatFellMost() throws {
        let report = Self.report(compare: true)
        let fell = try #require(report.fellMost)
        #expect(fell.row.counter.id == 1001 && fell.change == -50)
        #expect(report.fellMostLine == "Fell most: 1001 Alpha — visits -50.0% (2 000 → 1 000).")
        // 4,500 visits before: (30 × 2000 + 50 × 2500) / 4500 = 41.1…%; now 35%.
        let changes = try #require(report.totalChanges)
        #expect(changes[0].text() == "-11.1%")
        #expect(changes[2] == .missing, "users have no total, so no change")
        #expect(changes[3].text() == "-6.1 pp")
        let text = PortfolioListing.table(report, rows: report.rows[...]).render(maxWidth: nil)
        #expect(text.contains("+20.0%") && text.contains("-50.0%"), "\(text)")
        #expect(
            PortfolioListing.csvHeader(compare: true).prefix(6) == [
                "counter_id", "name", "site", "visits", "visits_previous", "visits_change_pct"
            ])
        let document = PortfolioListing.document(report, rows: report.rows[...])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(document.serialized(pretty: false).utf8)) as? [String: Any])
        let most = try #require(object["fell_most"] as? [String: Any])
        #expect(most["counter_id"] as? Int == 1001 && most["change_pct"] as? Double == -50)
    }
}
