/// Product metrics: a shop's items viewed, added to baskets and bought (the Reporting API's
/// e-commerce templates `top_products`, `top_brands`, `basket`, `basket_products`; docs/reports.md).
///
/// The quantities are counts that add up over days; the `…Uniq` ones count people (users who viewed,
/// added, bought) and, like users, are never summed. The money ones (`basketValue`,
/// `productRevenue`) are in Metric+Money.
extension Metric {
    /// `ym:s:productImpressions`: views of product pages.
    package static let productImpressions = Metric(
        apiName: "ym:s:productImpressions", shortName: "productImpressions", columnName: "product_impressions",
        title: "Item views", unit: .count, aggregation: .sum)
    /// `ym:s:productImpressionsUniq`: users who viewed a product.
    package static let productImpressionsUniq = Metric(
        apiName: "ym:s:productImpressionsUniq", shortName: "productImpressionsUniq",
        columnName: "product_impressions_uniq", title: "Users who viewed", unit: .count, aggregation: .nonAdditive)
    /// `ym:s:productBasketsQuantity`: items added to baskets.
    package static let productBasketsQuantity = Metric(
        apiName: "ym:s:productBasketsQuantity", shortName: "productBasketsQuantity",
        columnName: "product_baskets_quantity", title: "Added to basket", unit: .count, aggregation: .sum)
    /// `ym:s:productBasketsUniq`: users who added a product to a basket.
    package static let productBasketsUniq = Metric(
        apiName: "ym:s:productBasketsUniq", shortName: "productBasketsUniq", columnName: "product_baskets_uniq",
        title: "Users who added", unit: .count, aggregation: .nonAdditive)
    /// `ym:s:productPurchasedQuantity`: items bought.
    package static let productPurchasedQuantity = Metric(
        apiName: "ym:s:productPurchasedQuantity", shortName: "productPurchasedQuantity",
        columnName: "product_purchased_quantity", title: "Purchased items", unit: .count, aggregation: .sum)
    /// `ym:s:productPurchasedUniq`: users who bought a product.
    package static let productPurchasedUniq = Metric(
        apiName: "ym:s:productPurchasedUniq", shortName: "productPurchasedUniq", columnName: "product_purchased_uniq",
        title: "Users who bought", unit: .count, aggregation: .nonAdditive)

    /// The product metrics of the catalog, in the order of the funnel.
    package static let products: [Metric] = [
        productImpressions, productImpressionsUniq, productBasketsQuantity, productBasketsUniq, basketValue,
        productPurchasedQuantity, productRevenue, productPurchasedUniq
    ]
}
