import Foundation
import Testing

@testable import MetrikaSimulator

/// The simulator's shop (counter 1001): purchases and revenue that add up, currencies, the purchase
/// preset — and the other counters without any.
@Suite("Reporting API: the shop")
struct ShopTests {
    static let money =
        "ym:s:visits,ym:s:ecommercePurchases,ym:s:ecommerceRUBConvertedRevenue,ym:s:ecommerceRUBConvertedRevenuePerPurchase,ym:s:ecommerceRUBConvertedRevenuePerVisit"

    @Test func daysAddUpToTheTotalAndRatiosAreOfSums() async throws {
        let sim = try SimulatorHarness()
        let answer = try StatAnswer(
            try await sim.get(
                "/stat/v1/data?ids=1001&metrics=\(Self.money)&dimensions=ym:s:date&date1=2026-06-01&date2=2026-06-14"))
        #expect(answer.rows.count == 14)
        let visits = answer.column(0)
        let purchases = answer.column(1)
        let revenue = answer.column(2)
        #expect(purchases.allSatisfy { $0 >= 0 && $0.rounded() == $0 })
        #expect(purchases.reduce(0, +) > 0)
        // Revenue is whole kopecks.
        #expect(
            revenue.allSatisfy { ($0 * 100).rounded() == ($0 * 100) || closeEnough(($0 * 100).rounded(), $0 * 100) })
        #expect(closeEnough(answer.totals[2] ?? -1, revenue.reduce(0, +)))
        #expect(closeEnough(answer.totals[3] ?? -1, revenue.reduce(0, +) / purchases.reduce(0, +)))
        #expect(closeEnough(answer.totals[4] ?? -1, revenue.reduce(0, +) / visits.reduce(0, +)))
        for row in answer.rows {
            let values = row["metrics"] as? [Any] ?? []
            if (values[1] as? Double) == 0 { #expect(values[3] is NSNull) }
        }
    }

    /// A report by source shares each day's totals out over the sources (issue 32, item 11): visits,
    /// purchases and revenue of the sources add up to the days' exactly (a May's sources had 1,877
    /// purchases of 1,964), and sources differ in their average order value.
    @Test func sourcesAddUpToTheDaysWithOrdersOfTheirOwnSize() async throws {
        let sim = try SimulatorHarness()
        let range = "&date1=2026-05-01&date2=2026-05-31"
        let byDay = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=\(Self.money)&dimensions=ym:s:date\(range)&limit=100"))
        #expect(byDay.rows.count == 31)
        for dimension in ["ym:s:trafficSource", "ym:s:<attribution>TrafficSource"] {
            let bySource = try StatAnswer(
                try await sim.get("/stat/v1/data?ids=1001&metrics=\(Self.money)&dimensions=\(dimension)\(range)"))
            #expect(bySource.rows.count > 3)
            for column in 0...1 {
                #expect(
                    bySource.column(column).reduce(0, +) == byDay.column(column).reduce(0, +),
                    "column \(column) by \(dimension)")
            }
            // Revenue in kopecks: the sources' sum is the days' sum to the kopeck.
            let kopecks = { (values: [Double]) in values.map { Int(($0 * 100).rounded()) }.reduce(0, +) }
            #expect(kopecks(bySource.column(2)) == kopecks(byDay.column(2)), "revenue by \(dimension)")
            let orderValues = Set(bySource.column(3).map { Int($0.rounded()) })
            #expect(orderValues.count > 2, "\(bySource.column(3))")
        }
        // Day by day too: one day's sources add up to that day.
        let day = "&date1=2026-05-17&date2=2026-05-17"
        let oneDay = try StatAnswer(try await sim.get("/stat/v1/data?ids=1001&metrics=\(Self.money)\(day)"))
        let sources = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=\(Self.money)&dimensions=ym:s:trafficSource\(day)"))
        #expect(sources.column(1).reduce(0, +) == oneDay.totals[1])
    }

    @Test func currencies() async throws {
        let sim = try SimulatorHarness()
        let base = "/stat/v1/data?ids=1001&date1=2026-06-10&date2=2026-06-10&metrics="
        let roubles = try StatAnswer(try await sim.get(base + "ym:s:ecommerce<currency>ConvertedRevenue"))
        #expect(roubles.query["currency"] as? String == "RUB")
        let dollars = try StatAnswer(try await sim.get(base + "ym:s:ecommerce<currency>ConvertedRevenue&currency=usd"))
        #expect(dollars.query["currency"] as? String == "USD")
        let named = try StatAnswer(try await sim.get(base + "ym:s:ecommerceUSDConvertedRevenue"))
        let rub = try #require(roubles.totals.first ?? nil)
        #expect(rub > 0)
        #expect(closeEnough(dollars.totals.first.flatMap { $0 } ?? -1, rub / 90))
        #expect(closeEnough(named.totals.first.flatMap { $0 } ?? -1, rub / 90))
        let refused = try await sim.get(base + "ym:s:visits&currency=GBP")
        #expect(refused.status == 400)
    }

    @Test func otherCountersSellNothing() async throws {
        let sim = try SimulatorHarness()
        let answer = try StatAnswer(
            try await sim.get(
                "/stat/v1/data?ids=1004&metrics=ym:s:ecommercePurchases,ym:s:ecommerceRUBConvertedRevenue&date1=2026-06-01&date2=2026-06-07"
            ))
        #expect(answer.totals.first ?? nil == 0)
        #expect(answer.totals.last ?? nil == 0)
    }

    @Test func thePurchasePreset() async throws {
        let sim = try SimulatorHarness()
        let answer = try StatAnswer(
            try await sim.get(
                "/stat/v1/data?ids=1001&preset=purchase&attribution=automatic&date1=2026-06-01&date2=2026-06-07"))
        #expect(answer.query["dimensions"] as? [String] == ["ym:s:<attribution>TrafficSource"])
        #expect((answer.query["metrics"] as? [String])?.contains("ym:s:ecommerce<currency>ConvertedRevenue") == true)
        #expect(answer.query["attribution"] as? String == "AUTOMATIC")
        #expect(answer.ids().contains("organic"))
    }
}
