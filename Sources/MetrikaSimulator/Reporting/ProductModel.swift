import Foundation

/// One product's e-commerce events on one day.
struct ProductDay: Sendable {
    /// Item views and the users who viewed the item.
    var impressions = 0
    var viewers = 0
    /// Items added to a basket, the users who added it, and their value at the catalogue price.
    var baskets = 0
    var basketUsers = 0
    var basketKopecks = 0
    /// Items bought, what they were bought for (kopecks), and the users who bought the item.
    var purchased = 0
    var revenueKopecks = 0
    var buyers = 0
}

/// A shop's assortment and its products' daily figures, derived from the counter's day so that
/// they agree with it:
///
/// - items bought ≥ purchases (an order holds one item or more);
/// - the items' prices add up to the day's revenue to the kopeck (the revenue is split over the
///   items bought by quantity × price, largest remainder first);
/// - items added to baskets ≥ items bought, item views ≥ items added (per product, every day);
/// - users ≤ their events (viewers ≤ views, basket users ≤ items added, buyers ≤ items bought),
///   and a product's buyers ≤ its basket users ≤ its viewers.
///
/// Counters without `shop` have no products: their product reports are empty.
struct ProductModel: Sendable {
    /// Pool indexes of the products the counter sells.
    let products: [Int]
    /// Each product's share of the items bought (before daily noise), aligned with `products`.
    let popularity: [Double]
    /// Each product's catalogue price in kopecks, aligned with `products`.
    let priceKopecks: [Int]
    let counterID: Int

    /// Items per order on an average day.
    static let itemsPerOrder = 1.45

    init(counter: CounterFixture) {
        counterID = counter.id
        guard counter.purchasePercent != nil else {
            products = []
            popularity = []
            priceKopecks = []
            return
        }
        let id = counter.id
        // Three products in four, seeded per counter: "a dozen or two".
        var chosen = ProductCatalog.pool.indices.filter { Seed.unit(id, 30_001, $0) < 0.75 }
        if chosen.count < 12 { chosen = Array(ProductCatalog.pool.indices) }
        // Cheaper items sell more often.
        let weights = chosen.map { index in
            Seed.between(0.5...1.6, id, 30_002, index) / pow(Double(ProductCatalog.pool[index].priceRoubles), 0.75)
        }
        let weightSum = weights.reduce(0, +)
        let shares = weights.map { $0 / weightSum }
        // Catalogue prices scaled so that an average item costs the shop's average order over the
        // items per order: the daily split then keeps each item near its price.
        let meanPrice = zip(chosen, shares).reduce(0.0) { $0 + Double(ProductCatalog.pool[$1.0].priceRoubles) * $1.1 }
        let scale = counter.averageOrder > 0 ? counter.averageOrder / ProductModel.itemsPerOrder / meanPrice : 1
        products = chosen
        popularity = shares
        priceKopecks = chosen.map { index in
            // A shop's price: whole roubles ending in 90.
            let roubles = Double(ProductCatalog.pool[index].priceRoubles) * scale
            return max(90, Int((roubles / 100).rounded()) * 100 - 10) * 100
        }
    }

    /// The products' figures on a day whose counter figures are `day` (index-aligned with `products`).
    func figures(on dayNumber: Int, _ day: DayFigures) -> [ProductDay] {
        var result = [ProductDay](repeating: ProductDay(), count: products.count)
        guard !products.isEmpty, day.visits > 0 else { return result }
        let id = counterID
        let n = dayNumber
        func noise(_ range: ClosedRange<Double>, _ salt: Int, _ product: Int) -> Double {
            Seed.between(range, id, salt &* 1_000 &+ product, n)
        }
        func split(_ total: Int, _ weights: [Double]) -> [Int] {
            var parts = [Int](repeating: 0, count: weights.count)
            guard total > 0 else { return parts }
            PathSet.splitLargestRemainder(total, shares: weights, range: 0..<weights.count, into: &parts)
            return parts
        }
        let dailyPopularity = products.indices.map { popularity[$0] * noise(0.6...1.4, 31, products[$0]) }

        // Items bought: every order has one, some have more.
        let orders = day.purchases
        let items =
            orders == 0 ? 0 : orders + Int((Double(orders) * Seed.between(0.3...0.6, id, 30_003, n)).rounded(.down))
        let bought = split(items, dailyPopularity)
        // The day's revenue over the items bought, by quantity × price: exact to the kopeck.
        let revenue = split(day.revenueKopecks, products.indices.map { Double(bought[$0]) * Double(priceKopecks[$0]) })

        // Baskets: what was bought was added first, and more was added than bought.
        let addedTotal =
            items + Int((Double(items) * Seed.between(1.2...2.0, id, 30_004, n)).rounded())
            + Int((Double(day.visits) * 0.01 * Seed.between(0.5...1.5, id, 30_005, n)).rounded())
        let added = split(addedTotal, products.indices.map { popularity[$0] * noise(0.6...1.4, 32, products[$0]) })

        // Item views: about half a view per visit, dearer items looked at more than bought.
        let viewTotal = Int(
            (Double(day.visits) * Seed.between(0.35...0.55, id, 30_006) * Seed.between(0.9...1.1, id, 30_007, n))
                .rounded())
        let viewed = split(
            viewTotal, products.indices.map { pow(popularity[$0], 0.6) * noise(0.7...1.3, 33, products[$0]) })

        for index in products.indices {
            var figures = ProductDay()
            figures.purchased = bought[index]
            figures.revenueKopecks = revenue[index]
            figures.baskets = max(added[index], bought[index])
            figures.basketKopecks = figures.baskets * priceKopecks[index]
            figures.impressions = max(viewed[index], figures.baskets)
            let product = products[index]
            if figures.purchased > 0 {
                figures.buyers = max(
                    1,
                    figures.purchased - Int((Double(figures.purchased) * noise(0...0.25, 34, product)).rounded(.down)))
            }
            if figures.baskets > 0 {
                figures.basketUsers = max(
                    figures.buyers,
                    figures.baskets - Int((Double(figures.baskets) * noise(0.05...0.3, 35, product)).rounded(.down)))
            }
            if figures.impressions > 0 {
                figures.viewers = max(
                    figures.basketUsers,
                    figures.impressions
                        - Int((Double(figures.impressions) * noise(0.15...0.4, 36, product)).rounded(.down)))
            }
            result[index] = figures
        }
        return result
    }

    /// Distinct users over several days from the daily counts: people come back, so fewer than the
    /// sum, never fewer than the busiest day.
    static func distinctOverDays(sum: Int, busiestDay: Int, days: Int) -> Int {
        guard days > 1 else { return sum }
        return max(busiestDay, min(sum, Int((Double(sum) / (1 + 0.25 * log(Double(days)))).rounded(.down))))
    }

    /// Distinct users over several products: a person who bought two items is one buyer of the
    /// two. Never fewer than the largest product's, never more than the sum.
    static func distinctOverProducts(_ counts: [Double]) -> Double {
        guard let largest = counts.max() else { return 0 }
        let sum = counts.reduce(0, +)
        return max(largest, min(sum, (sum * 0.8).rounded()))
    }
}
