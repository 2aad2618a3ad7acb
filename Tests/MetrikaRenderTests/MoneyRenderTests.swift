import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender

/// A shop's days through every sink and the chart: money reads as money, each format in its own way.
@Suite("Money in tables, CSV, JSON and charts")
struct MoneyRenderTests {
    static let metrics = [Metric.purchases, Metric.revenue.inCurrency(.rub), Metric.revenuePerPurchase.inCurrency(.rub)]

    /// Three days; the second has no purchases (its average order value is missing).
    static func shopWeek() -> ReportFixtures.Fixture {
        let layout = ReportLayout(
            dimensions: [], metrics: metrics, period: ReportFixtures.range("2026-11-09", "2026-11-11"), grouping: .day,
            multipleCounters: false, raw: false,
            query: [
                ("counters", .array([.number(1001)])), ("from", .string("2026-11-09")), ("to", .string("2026-11-11")),
                ("metrics", .array(metrics.map { .string($0.apiName) })), ("dimensions", .array([])),
                ("accuracy", .string("full")), ("group", .string("day"))
            ])
        func row(_ iso: String, _ numbers: [Double?]) -> Report.Row {
            Report.Row(
                dimensions: [DimensionValue(name: iso)], values: Normalizer.quantities(numbers, of: metrics),
                period: ReportFixtures.range(iso, iso))
        }
        let rows = [
            row("2026-11-09", [400, 1_250_000, 3125]),
            row("2026-11-10", [0, 0, nil]),
            row("2026-11-11", [3, 1234.565, 411.52166666666665])
        ]
        let totals = Normalizer.quantities([403, 1_251_234.565, 3104.80041], of: metrics)
        return ReportFixtures.Fixture(
            layout: layout, sections: [.init(counter: ReportFixtures.shop, rows: rows, totals: totals)])
    }

    @Test func tableShowsTheSign() {
        let text = ReportFixtures.table(Self.shopWeek())
        let lines = text.split(separator: "\n").map(String.init)
        #expect(
            lines.contains { $0.hasPrefix("2026-11-09") && $0.hasSuffix("400  1 250 000.00 ₽           3 125.00 ₽") },
            "\(text)")
        // A day without purchases: revenue 0.00 ₽, no average order value.
        #expect(
            lines.contains { $0.hasPrefix("2026-11-10") && $0.contains(" 0.00 ₽ ") && $0.hasSuffix(" —") }, "\(text)")
        // 1234.565 rounds half up as written: 1 234.57, not the binary 1 234.56.
        #expect(
            lines.contains { $0.hasPrefix("2026-11-11") && $0.contains("1 234.57 ₽") && $0.hasSuffix("411.52 ₽") },
            "\(text)")
        #expect(
            lines.contains { $0.hasPrefix("Total") && $0.contains("1 251 234.57 ₽") && $0.hasSuffix("3 104.80 ₽") },
            "\(text)")
        #expect(text.contains("Average order value"))
    }

    @Test func rawTableNamesTheCurrencyInTheHeader() {
        var fixture = Self.shopWeek()
        fixture.layout.raw = true
        let text = ReportFixtures.table(fixture)
        #expect(text.contains("Revenue, RUB"))
        // The API's numbers, no sign (the header says the currency); the sparkline summary stays for people.
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("2026-") || $0.hasPrefix("Total") }
        #expect(rows.count == 4)
        #expect(rows[0].hasSuffix("1250000                      3125"), "\(text)")
        #expect(rows.allSatisfy { !$0.contains("₽") })
    }

    @Test func csvHasPlainNumbersAndTheCurrencyInTheColumnName() throws {
        let records = try ReportSinkCSVTests.readBack(ReportFixtures.csv(Self.shopWeek()))
        #expect(
            records == [
                ["date", "purchases", "revenue_rub", "revenue_per_purchase_rub"],
                ["2026-11-09", "400", "1250000.00", "3125.00"],
                ["2026-11-10", "0", "0.00", ""],
                ["2026-11-11", "3", "1234.57", "411.52"]
            ])
    }

    @Test func jsonDeclaresUnitAndCurrency() throws {
        let json = ReportFixtures.json(Self.shopWeek())
        let check = try ReportFixtures.python("report_json_check.py", on: json)
        #expect(check.status == 0, "\(check.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let columns = try #require(document["columns"] as? [[String: Any]])
        let revenue = try #require(columns.first { $0["name"] as? String == "revenue_rub" })
        #expect(revenue["unit"] as? String == "money")
        #expect(revenue["currency"] as? String == "RUB")
        #expect(revenue["api_name"] as? String == "ym:s:ecommerceRUBConvertedRevenue")
        #expect(revenue["title"] as? String == "Revenue")
        let purchases = try #require(columns.first { $0["name"] as? String == "purchases" })
        #expect(purchases["unit"] as? String == "count")
        #expect(purchases["currency"] == nil)
        // Values in the API's unit, to the digit; a missing average order value is null, never 0.
        let rows = try #require(document["rows"] as? [[String: Any]])
        #expect(rows[2]["revenue_rub"] as? Double == 1234.565)
        #expect(rows[1]["revenue_per_purchase_rub"] is NSNull)
    }

    @Test func chartLabels() {
        #expect(ChartValueFormat.axisLabel(1_500_000, unit: .money, step: 500_000, currency: .rub) == "1.5M ₽")
        #expect(ChartValueFormat.axisLabel(250, unit: .money, step: 50, currency: .usd) == "250 $")
        #expect(ChartValueFormat.axisLabel(2_500, unit: .money, step: 500, currency: .eur) == "2.5k €")
        #expect(ChartValueFormat.label(1_250_000, unit: .money, currency: .rub) == "1 250 000.00 ₽")
        #expect(ChartValueFormat.label(94_237.25, unit: .money, currency: .ynd) == "94 237.25 YND")
    }

    @Test func aMoneyChartHasMoneyAxesPerCurrency() throws {
        let period = ReportFixtures.range("2026-11-01", "2026-11-07")
        let days = period.days
        let roubles = Series(
            counter: ReportFixtures.shop, metric: Metric.revenue.inCurrency(.rub),
            points: days.enumerated().map { (day: $1, value: Optional(1_000_000 + Double($0) * 100_000)) })
        let dollars = Series(
            counter: ReportFixtures.hostile, metric: Metric.revenue.inCurrency(.usd),
            points: days.enumerated().map { (day: $1, value: Optional(11_000 + Double($0) * 1_000)) })
        let chart = SVGLineChart(
            series: [roubles, dollars], period: period, title: "Shops", subtitle: "daily", width: 800, height: 700)
        #expect(chart.panelCount == 2)
        let svg = chart.render()
        #expect(svg.contains(">1.5M ₽<"), "\(svg)")
        #expect(svg.contains("k $<"))
        #expect(!svg.contains("M $<"))
        #expect(svg.contains("Revenue (RUB)"))
        #expect(svg.contains("Revenue (USD)"))
        #expect(svg.contains("1 600 000.00 ₽"))
    }
}
