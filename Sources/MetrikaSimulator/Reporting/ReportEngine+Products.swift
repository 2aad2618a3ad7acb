import Foundation

/// Product reports (`top_products`, `top_brands`, `basket`, `basket_products`, or product metrics
/// by date): every shop's products, day by day, from `ProductModel`.
///
/// A row is a group of products with the same requested product values (one product for
/// `ym:s:productName`, a brand's products for `ym:s:productBrand`) in one date bucket. Counts and
/// money are sums of the products' days, so a row's money is exact to the kopeck and the rows of
/// `basket_products` add up to the shop's revenue over the same days. Users are distinct: over the
/// days of a product (`ProductModel.distinctOverDays`), then over the products of a row or of the
/// totals (`ProductModel.distinctOverProducts`).
extension ReportEngine {
    /// One product's days within a span of days.
    struct ProductSpan {
        var sums = ProductFigures()
        var busiestViewers = 0
        var busiestBasketUsers = 0
        var busiestBuyers = 0
        var activeDays = 0

        mutating func add(_ day: ProductDay) {
            guard day.impressions > 0 else { return }
            sums.impressions += Double(day.impressions)
            sums.viewers += Double(day.viewers)
            sums.baskets += Double(day.baskets)
            sums.basketUsers += Double(day.basketUsers)
            sums.basketKopecks += Double(day.basketKopecks)
            sums.purchased += Double(day.purchased)
            sums.revenueKopecks += Double(day.revenueKopecks)
            sums.buyers += Double(day.buyers)
            busiestViewers = max(busiestViewers, day.viewers)
            busiestBasketUsers = max(busiestBasketUsers, day.basketUsers)
            busiestBuyers = max(busiestBuyers, day.buyers)
            activeDays += 1
        }

        /// The span's figures: counts summed, users distinct over the days.
        var figures: ProductFigures {
            var result = sums
            func distinct(_ sum: Double, _ busiest: Int) -> Double {
                Double(ProductModel.distinctOverDays(sum: Int(sum), busiestDay: busiest, days: activeDays))
            }
            result.viewers = distinct(sums.viewers, busiestViewers)
            result.basketUsers = distinct(sums.basketUsers, busiestBasketUsers)
            result.buyers = distinct(sums.buyers, busiestBuyers)
            return result
        }
    }

    /// Several products as one: counts summed, users distinct over the products.
    static func combine(_ members: [ProductFigures]) -> ProductFigures {
        var result = ProductFigures()
        for member in members { result.add(member) }
        result.viewers = ProductModel.distinctOverProducts(members.map(\.viewers))
        result.basketUsers = ProductModel.distinctOverProducts(members.map(\.basketUsers))
        result.buyers = ProductModel.distinctOverProducts(members.map(\.buyers))
        return result
    }

    func runProducts(buckets: [ClosedRange<Day>]) -> ReportResult {
        let fields = productDimensions
        let goalCount = query.goalIDs.count
        var rows: [ReportRow] = []
        var rowsByKey: [RowKey: Int] = [:]
        var bucketTotals = Array(repeating: RowFigures(goalCount: goalCount), count: buckets.count)
        var totals = RowFigures(goalCount: goalCount)
        var populationVisits = 0

        for counter in query.counters {
            let clock = CounterClock(now: now, timeZone: counter.timeZone)
            let shop = ProductModel(counter: counter)
            let passing = shop.products.indices.filter { index in
                query.productFilters.allSatisfy { $0.matches(product: shop.products[index]) }
            }
            var whole = [ProductSpan](repeating: ProductSpan(), count: shop.products.count)
            for (bucketIndex, bucket) in buckets.enumerated() {
                var spans = [ProductSpan](repeating: ProductSpan(), count: shop.products.count)
                let first = max(bucket.lowerBound, counter.createDay)
                let last = min(bucket.upperBound, clock.today)
                if first <= last {
                    for day in first...last {
                        let figures = model.figures(counter, on: day, clock: clock)
                        populationVisits += figures.visits
                        guard !passing.isEmpty else { continue }
                        let products = shop.figures(on: day.number, figures)
                        for index in passing {
                            spans[index].add(products[index])
                            whole[index].add(products[index])
                        }
                    }
                }
                // Rows: the products grouped by the requested values, in catalogue order.
                var groupOrder: [[Int]] = []
                var groups: [[Int]: [ProductFigures]] = [:]
                var bucketMembers: [ProductFigures] = []
                for index in passing where spans[index].activeDays > 0 {
                    let figures = spans[index].figures
                    bucketMembers.append(figures)
                    let key = fields.map { ProductCatalog.value($0, ofProduct: shop.products[index]) }
                    if groups[key] == nil { groupOrder.append(key) }
                    groups[key, default: []].append(figures)
                }
                for key in groupOrder {
                    var figures = RowFigures(goalCount: goalCount)
                    figures.product = ReportEngine.combine(groups[key] ?? [])
                    let rowKey = RowKey(bucket: bucketIndex, values: key)
                    if let existing = rowsByKey[rowKey] {
                        rows[existing].figures.add(figures)
                    } else {
                        rowsByKey[rowKey] = rows.count
                        rows.append(ReportRow(bucket: bucketIndex, values: key, figures: figures))
                    }
                }
                bucketTotals[bucketIndex].product.add(ReportEngine.combine(bucketMembers))
            }
            totals.product.add(
                ReportEngine.combine(passing.filter { whole[$0].activeDays > 0 }.map { whole[$0].figures }))
        }

        // Sampling as for visits: counts of rows estimated; totals' counts are the rows' sums, their
        // users the estimate of the exact ones.
        let share = samplingShare(populationVisits: populationVisits)
        if let share {
            rows = rows.compactMap { row in
                var sampled = row
                sampled.figures = row.figures.sampled(share)
                return sampled.figures.product.impressions > 0 ? sampled : nil
            }
            func estimated(_ exact: RowFigures, rows: [ReportRow]) -> RowFigures {
                var result = RowFigures(goalCount: goalCount)
                for row in rows { result.add(row.figures) }
                let users = exact.sampled(share).product
                result.product.viewers = users.viewers
                result.product.basketUsers = users.basketUsers
                result.product.buyers = users.buyers
                return result
            }
            totals = estimated(totals, rows: rows)
            for index in bucketTotals.indices {
                bucketTotals[index] = estimated(bucketTotals[index], rows: rows.filter { $0.bucket == index })
            }
        }
        return ReportResult(
            buckets: buckets, rows: rows, bucketTotals: bucketTotals, totals: totals, sampleShare: share,
            populationVisits: populationVisits)
    }
}
