import MetrikaModel
import Testing

/// The e-commerce product metrics and dimensions (the templates top_products, top_brands, basket,
/// basket_products): human titles, counts that add up, users that do not, money that is money.
@Suite struct ProductMetricsTests {
    @Test(arguments: [
        ("ym:s:productImpressions", "productImpressions", "product_impressions", "Item views", Aggregation.sum),
        (
            "ym:s:productImpressionsUniq", "productImpressionsUniq", "product_impressions_uniq", "Users who viewed",
            .nonAdditive
        ),
        ("ym:s:productBasketsQuantity", "productBasketsQuantity", "product_baskets_quantity", "Added to basket", .sum),
        ("ym:s:productBasketsUniq", "productBasketsUniq", "product_baskets_uniq", "Users who added", .nonAdditive),
        (
            "ym:s:productPurchasedQuantity", "productPurchasedQuantity", "product_purchased_quantity",
            "Purchased items", .sum
        ),
        (
            "ym:s:productPurchasedUniq", "productPurchasedUniq", "product_purchased_uniq", "Users who bought",
            .nonAdditive
        )
    ])
    func countsHaveTitles(api: String, short: String, column: String, title: String, aggregation: Aggregation) throws {
        for text in [api, short] {
            let metric = try #require(Metric.named(text))
            #expect(metric.apiName == api)
            #expect(metric.shortName == short)
            #expect(metric.columnName == column)
            #expect(metric.title == title)
            #expect(metric.unit == .count)
            #expect(metric.aggregation == aggregation)
        }
    }

    @Test(arguments: [
        (
            "basketValue", "ym:s:productBaskets<currency>ConvertedPrice", "ym:s:productBasketsRUBConvertedPrice",
            "basket_value_rub", "Basket value"
        ),
        (
            "productRevenue", "ym:s:productPurchased<currency>ConvertedPrice", "ym:s:productPurchasedRUBConvertedPrice",
            "product_revenue_rub", "Product revenue"
        )
    ])
    func moneyIsMoney(short: String, template: String, inRoubles: String, column: String, title: String) throws {
        let metric = try #require(Metric.named(short))
        #expect(metric.apiName == template)
        #expect(metric.needsCurrency)
        #expect(Metric.named(template) == metric)
        let roubles = metric.inCurrency(.rub)
        #expect(roubles.apiName == inRoubles)
        #expect(roubles.columnName == column)
        #expect(roubles.title == title)
        #expect(roubles.aggregation == .sum)
        #expect(Metric.named(inRoubles) == roubles)
        let value = Normalizer.quantities([111_930], of: [roubles])[0]
        #expect(ValueFormatter.format(value, grouping: true, missing: "—", currencySign: true) == "111 930.00 ₽")
        #expect(ValueFormatter.format(value, grouping: false, missing: "") == "111930.00")
    }

    @Test(arguments: [
        ("ym:s:productName", "productName", "product_name", "Product"),
        ("ym:s:productBrand", "productBrand", "product_brand", "Brand"),
        ("ym:s:productCategoryLevel1", "productCategoryLevel1", "product_category_level1", "Category")
    ])
    func dimensionsHaveTitles(api: String, short: String, column: String, title: String) throws {
        for text in [api, short] {
            let dimension = try #require(Dimension.named(text))
            #expect(dimension.apiName == api)
            #expect(dimension.columnName == column)
            #expect(dimension.title == title)
        }
    }

    @Test func theCatalogKnowsThemAll() {
        for metric in Metric.products { #expect(Metric.known.contains(metric)) }
        #expect(Set(Metric.known.map(\.shortName)).count == Metric.known.count)
    }
}
