import Foundation
import Testing

@testable import MetrikaSimulator

/// The shop's products (counter 1001): the e-commerce product templates of the Reporting API
/// (preset_ecommerce) with the documented columns, figures that agree with the shop's purchases and
/// revenue, currencies, paging, sorting, filters and totals — and the counters that sell nothing.
/// One simulator for the suite.
@Suite("Reporting API: the shop's products")
struct ProductTests {
    static let shared = Result { try SimulatorHarness() }
    static let fortnight = "&date1=2026-06-01&date2=2026-06-14"
    /// Every product metric, money in roubles.
    static let everything =
        "ym:s:productImpressions,ym:s:productImpressionsUniq,ym:s:productBasketsQuantity,ym:s:productBasketsUniq,ym:s:productBasketsRUBConvertedPrice,ym:s:productPurchasedQuantity,ym:s:productPurchasedRUBConvertedPrice,ym:s:productPurchasedUniq"

    func get(_ pathAndQuery: String) async throws -> Reply {
        try await Self.shared.get().get(pathAndQuery)
    }

    static func kopecks(_ value: Double) -> Int { Int((value * 100).rounded()) }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    @Test(arguments: [
        (
            "top_products", ["ym:s:productName"],
            [
                "ym:s:productImpressions", "ym:s:productImpressionsUniq", "ym:s:productBasketsQuantity",
                "ym:s:productPurchasedQuantity"
            ]
        ),
        (
            "top_brands", ["ym:s:productCategoryLevel1", "ym:s:productBrand", "ym:s:productName"],
            [
                "ym:s:productImpressions", "ym:s:productImpressionsUniq", "ym:s:productBasketsQuantity",
                "ym:s:productPurchasedQuantity"
            ]
        ),
        (
            "basket", ["ym:s:productName"],
            [
                "ym:s:productBasketsQuantity", "ym:s:productBasketsUniq", "ym:s:productBaskets<currency>ConvertedPrice",
                "ym:s:productPurchasedQuantity"
            ]
        ),
        (
            "basket_products", ["ym:s:productName"],
            [
                "ym:s:productPurchasedQuantity", "ym:s:productPurchased<currency>ConvertedPrice",
                "ym:s:productPurchasedUniq"
            ]
        )
    ])
    func eachTemplateAnswersItsDocumentedColumns(preset: String, dimensions: [String], metrics: [String]) async throws {
        let answer = try StatAnswer(try await get("/stat/v1/data?ids=1001&preset=\(preset)" + Self.fortnight))
        #expect(answer.query["preset"] as? String == preset)
        #expect(answer.query["dimensions"] as? [String] == dimensions)
        #expect(answer.query["metrics"] as? [String] == metrics)
        #expect(answer.query["currency"] as? String == "RUB")
        // A dozen or two products, each row as wide as the columns, names the shop's own.
        #expect((12...24).contains(answer.rows.count), "\(answer.rows.count) products")
        #expect(answer.totalRows == answer.rows.count)
        for row in answer.rows {
            #expect((row["dimensions"] as? [Any])?.count == dimensions.count)
            #expect((row["metrics"] as? [Any])?.count == metrics.count)
        }
        let products = answer.names(dimensions.count - 1).compactMap { $0 }
        #expect(products.count == answer.rows.count)
        #expect(Set(products).count == products.count)
        #expect(products.allSatisfy { $0.unicodeScalars.contains { (0x0400...0x04FF).contains($0.value) } })
        // Sorted by the first metric, largest first; totals are the rows' sums for counts.
        #expect(answer.query["sort"] as? [String] == ["-" + metrics[0]])
        #expect(answer.column(0) == answer.column(0).sorted(by: >))
        #expect(answer.totals[0] == answer.column(0).reduce(0, +))
    }

    @Test func theItemsBoughtAddUpToTheRevenueToTheKopeck() async throws {
        let shop = try StatAnswer(
            try await get(
                "/stat/v1/data?ids=1001&metrics=ym:s:ecommercePurchases,ym:s:ecommerceRUBConvertedRevenue&dimensions=ym:s:date"
                    + Self.fortnight))
        let byDay = try StatAnswer(
            try await get(
                "/stat/v1/data?ids=1001&metrics=\(Self.everything)&dimensions=ym:s:date,ym:s:productName&limit=1000"
                    + Self.fortnight))
        #expect(shop.rows.count == 14)
        var revenue: [String: Int] = [:]
        var bought: [String: Double] = [:]
        for (index, row) in byDay.rows.enumerated() {
            let day = try #require(byDay.names(0)[index])
            let values = (row["metrics"] as? [Double]) ?? []
            try #require(values.count == 8)
            let (views, viewers, added, adders, basketValue, items, paid, buyers) = (
                values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7]
            )
            #expect(views >= added && added >= items, "\(day): views \(views), added \(added), bought \(items)")
            #expect(viewers <= views && adders <= added && buyers <= items)
            // Baskets are valued at the catalogue's prices: whole roubles.
            #expect(basketValue == basketValue.rounded())
            revenue[day, default: 0] += Self.kopecks(paid)
            bought[day, default: 0] += items
        }
        // Every day: the items' prices are the day's revenue exactly; at least one item per order.
        for (index, row) in shop.rows.enumerated() {
            let day = try #require(shop.names(0)[index])
            let values = (row["metrics"] as? [Double]) ?? []
            #expect(revenue[day] == Self.kopecks(values[1]), "\(day)")
            #expect((bought[day] ?? 0) >= values[0], "\(day)")
        }
        // And the fortnight: basket_products' rows and total are the shop's revenue.
        let products = try StatAnswer(try await get("/stat/v1/data?ids=1001&preset=basket_products" + Self.fortnight))
        let total = try #require(shop.totals[1])
        #expect(products.column(1).map(Self.kopecks).reduce(0, +) == Self.kopecks(total))
        #expect(Self.kopecks(try #require(products.totals[1])) == Self.kopecks(total))
        #expect(try #require(products.totals[0]) >= (shop.totals[0] ?? .infinity))
    }

    @Test func otherCurrenciesConvertTheMoney() async throws {
        let base = "/stat/v1/data?ids=1001&preset=basket&sort=ym:s:productName" + Self.fortnight
        let roubles = try StatAnswer(try await get(base))
        let dollars = try StatAnswer(try await get(base + "&currency=USD"))
        #expect(dollars.query["currency"] as? String == "USD")
        #expect(dollars.names() == roubles.names())
        let rub = roubles.column(2)
        let usd = dollars.column(2)
        #expect(rub.count == usd.count && !rub.isEmpty)
        for (r, u) in zip(rub, usd) { #expect(closeEnough(u, r / 90)) }
        #expect(closeEnough(dollars.totals[2] ?? -1, (roubles.totals[2] ?? -1) / 90))
        // A named currency is that currency whatever `currency=` says.
        let euros = try StatAnswer(
            try await get(
                "/stat/v1/data?ids=1001&metrics=ym:s:productPurchasedEURConvertedPrice&dimensions=ym:s:productName&currency=USD"
                    + Self.fortnight))
        let purchased = try StatAnswer(
            try await get(
                "/stat/v1/data?ids=1001&metrics=ym:s:productPurchasedRUBConvertedPrice&dimensions=ym:s:productName"
                    + Self.fortnight))
        #expect(closeEnough(euros.totals[0] ?? -1, (purchased.totals[0] ?? -1) / 100))
    }

    @Test func pagingSortingAndTotalsAreThoseOfTheWholeSet() async throws {
        let base = "/stat/v1/data?ids=1001&preset=top_products" + Self.fortnight
        let all = try StatAnswer(try await get(base))
        let page = try StatAnswer(try await get(base + "&limit=5&offset=6"))
        #expect(page.rows.count == 5)
        #expect(page.names() == Array(all.names()[5..<10]))
        #expect(page.totalRows == all.totalRows)
        #expect(page.totals == all.totals)
        let byName = try StatAnswer(try await get(base + "&sort=ym:s:productName"))
        let names = byName.names().compactMap { $0 }
        #expect(names == names.sorted())
        let fewestBought = try StatAnswer(try await get(base + "&sort=ym:s:productPurchasedQuantity"))
        #expect(fewestBought.column(3) == fewestBought.column(3).sorted())
        // Users are people: the total is at least the largest row's and at most the rows' sum.
        let viewers = all.column(1)
        let total = try #require(all.totals[1])
        #expect(total >= (viewers.max() ?? 0) && total <= viewers.reduce(0, +))
        #expect(total < viewers.reduce(0, +))
    }

    @Test func filtersOnTheProductName() async throws {
        let base = "/stat/v1/data?ids=1001&preset=basket_products" + Self.fortnight
        let all = try StatAnswer(try await get(base))
        let name = try #require(all.names()[2])
        let only = try StatAnswer(try await get(base + "&filters=" + Self.encoded("ym:s:productName=='\(name)'")))
        #expect(only.names() == [name])
        #expect(only.column(1) == [all.column(1)[2]])
        #expect(only.totals == (all.rows[2]["metrics"] as? [Double])?.map(Optional.some))
        let others = try StatAnswer(try await get(base + "&filters=" + Self.encoded("ym:s:productName!='\(name)'")))
        #expect(others.totalRows == all.totalRows - 1)
        #expect(!others.names().contains(name))
        #expect(
            Self.kopecks(others.totals[1] ?? 0) + Self.kopecks(all.column(1)[2]) == Self.kopecks(all.totals[1] ?? -1))
        // Brands group their products.
        let brands = try StatAnswer(
            try await get(
                "/stat/v1/data?ids=1001&metrics=ym:s:productPurchasedQuantity&dimensions=ym:s:productBrand"
                    + Self.fortnight))
        #expect(brands.rows.count < all.rows.count)
        #expect(brands.column(0).reduce(0, +) == all.column(0).reduce(0, +))
    }

    @Test(arguments: [1002, 1004])
    func aCounterWithoutECommerceHasNoProducts(counter: Int) async throws {
        for preset in ["top_products", "top_brands", "basket", "basket_products"] {
            let answer = try StatAnswer(try await get("/stat/v1/data?ids=\(counter)&preset=\(preset)" + Self.fortnight))
            #expect(answer.rows.isEmpty)
            #expect(answer.totalRows == 0)
            #expect(!answer.totals.isEmpty && answer.totals.allSatisfy { $0 == 0 })
        }
    }

    @Test func productsAreNotMixedWithVisits() async throws {
        for query in [
            "metrics=ym:s:visits&dimensions=ym:s:productName",
            "metrics=ym:s:productImpressions,ym:s:visits&dimensions=ym:s:productName",
            "preset=top_products&dimensions=ym:s:trafficSource",
            "preset=basket&filters=ym:s:trafficSource=='organic'",
            "metrics=ym:s:visits&filters=ym:s:productName=='x'"
        ] {
            let reply = try await get("/stat/v1/data?ids=1001&" + query)
            #expect(reply.status == 400, "\(query)")
            #expect(reply.text.contains("invalid_parameter"), "\(query): \(reply.text)")
        }
    }

    @Test func theShopsDaysBesideItsItems() async throws {
        let answer = try StatAnswer(
            try await get(
                "/stat/v1/data?ids=1001&metrics=ym:s:visits,ym:s:ecommercePurchases,ym:s:ecommerceRUBConvertedRevenue,ym:s:productPurchasedQuantity,ym:s:productPurchasedRUBConvertedPrice&dimensions=ym:s:date"
                    + Self.fortnight))
        #expect(answer.rows.count == 14)
        for row in answer.rows {
            let values = (row["metrics"] as? [Double]) ?? []
            try #require(values.count == 5)
            #expect(values[0] > 0)
            #expect(values[3] >= values[1])
            #expect(Self.kopecks(values[4]) == Self.kopecks(values[2]))
        }
        #expect(Self.kopecks(answer.totals[4] ?? -1) == Self.kopecks(answer.totals[2] ?? -2))
        let visitsOnly = try StatAnswer(
            try await get("/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:date" + Self.fortnight))
        #expect(answer.column(0) == visitsOnly.column(0))
    }

    @Test func byTimeWeeksAddUpToTheTable() async throws {
        let table = try StatAnswer(
            try await get("/stat/v1/data?ids=1001&preset=basket_products&accuracy=full" + Self.fortnight))
        let reply = try await get(
            "/stat/v1/data/bytime?ids=1001&preset=basket_products&group=week&accuracy=full" + Self.fortnight)
        #expect(reply.status == 200)
        let answer = try reply.json()
        let totals = try #require(answer["totals"] as? [[Double]])
        #expect(totals.count == 3)
        #expect(totals[1].map(Self.kopecks).reduce(0, +) == Self.kopecks(table.totals[1] ?? -1))
        let rows = try #require(answer["data"] as? [[String: Any]])
        #expect(rows.count == 7)
    }
}
