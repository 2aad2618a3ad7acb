/// Combines daily values into the value of a longer period (a week, a month, a whole report range) by
/// each metric's `Aggregation`. Pure: no I/O, same input → same output.
///
/// Rules (a period of one day is that day's values, as the API sent them; the rules are for longer ones):
/// - `.sum`: Σ daily values; money as an exact decimal (`MoneySum`: a week of kopecks is a whole
///   number of kopecks, never `…0099999998`).
/// - `.visitWeighted`: Σ(value × visits) / Σ visits, with visits from the `ym:s:visits` column.
/// - `.pageviewsPerVisit`: Σ pageviews / Σ visits; without a pageviews column, the visit-weighted mean of
///   the daily page depth, which is the same number (depth × visits = pageviews).
/// - `.nonAdditive` (users): never derived from days. The API's period total when the caller has one;
///   for a one-day period the day's own value, which is that total; otherwise nil (unavailable).
/// - `.revenuePerPurchase` (average order value): Σ revenue / Σ purchases, with revenue from the
///   `revenue` column of the same currency and purchases from `ym:s:ecommercePurchases` — a week's
///   value is the week's revenue over the week's purchases, never the mean of its days. No purchases
///   (a day or a period without any): no value (nil), never 0 or NaN; this holds for one day too.
/// - `.revenuePerVisit`: Σ revenue / Σ visits, the same way; no visits, no value.
///   Without the columns a ratio needs, the ratio is nil: the caller stores them (HistoryLoader).
///
/// Unknown stays unknown: a nil daily value of a summed metric makes the sum nil; a day with unknown visits
/// makes every weighted value nil; a day with 0 visits contributes nothing to a weighted value (its ratio
/// may be nil); a period without visits has no weighted value (nil). When the `ym:s:visits` column is
/// absent, weighted metrics are nil: the caller stores and passes visits (and pageviews) along. No days → all nil.
package enum Aggregator {
    /// The period value of each metric, aligned with `metrics`.
    ///
    /// - Parameters:
    ///   - metrics: the columns of `rows`.
    ///   - rows: one row per day of the period, aligned with `metrics`.
    ///   - periodTotals: totals of non-additive metrics over exactly this period, from the API
    ///     (keyed by API name, e.g. `ym:s:users`).
    package static func aggregate(metrics: [Metric], rows: [[Double?]], periodTotals: [String: Double] = [:])
        -> [Double?]
    {
        guard !rows.isEmpty else { return Array(repeating: nil, count: metrics.count) }
        // A one-day period's value is the API's value for that day, byte for byte: re-deriving it
        // (bounce × visits ÷ visits) would turn 26.08695652 into 26.086956519999998.
        let visitsColumn = metrics.firstIndex { $0.apiName == Metric.visits.apiName }
        if rows.count == 1 {
            return metrics.indices.map { index in
                let value = index < rows[0].count ? rows[0][index] : nil
                // A day without purchases (visits) has no average order value (revenue per visit),
                // whatever number the answer put there.
                if let denominator = ratioDenominator(of: metrics[index], in: metrics, visits: visitsColumn),
                    denominator < rows[0].count, rows[0][denominator] == 0
                {
                    return nil
                }
                return value.flatMap { $0.isFinite ? $0 : nil }
            }
        }
        let pageviewsColumn = metrics.firstIndex { $0.apiName == Metric.pageviews.apiName }
        func aggregate(_ index: Int) -> Double? {
            let metric = metrics[index]
            switch metric.aggregation {
            case .sum:
                return sum(column: index, rows: rows, money: metric.unit == .money)
            case .visitWeighted:
                return visitWeighted(column: index, visits: visitsColumn, rows: rows)
            case .pageviewsPerVisit:
                guard let visitsColumn else { return nil }
                if let pageviewsColumn {
                    guard let pageviews = sum(column: pageviewsColumn, rows: rows),
                        let visits = sum(column: visitsColumn, rows: rows), visits > 0
                    else { return nil }
                    return pageviews / visits
                }
                return visitWeighted(column: index, visits: visitsColumn, rows: rows)
            case .nonAdditive:
                if let total = periodTotals[metric.apiName] { return total }
                return rows.count == 1 ? rows[0][index] : nil
            case .revenuePerPurchase, .revenuePerVisit:
                guard let revenue = revenueColumn(for: metric, in: metrics),
                    let denominator = ratioDenominator(of: metric, in: metrics, visits: visitsColumn),
                    let numerator = sum(column: revenue, rows: rows, money: true),
                    let count = sum(column: denominator, rows: rows), count > 0
                else { return nil }
                return numerator / count
            }
        }
        // A sum or product that overflows to ±infinity is no number anyone can use: unknown (nil).
        return metrics.indices.map { index -> Double? in
            aggregate(index).flatMap { $0.isFinite ? $0 : nil }
        }
    }

    /// The column of the revenue, in the same currency, that a money ratio divides.
    private static func revenueColumn(for metric: Metric, in metrics: [Metric]) -> Int? {
        metrics.firstIndex {
            $0.unit == .money && $0.aggregation == .sum && $0.shortName == Metric.revenue.shortName
                && $0.currency == metric.currency
        }
    }

    /// The column a money ratio divides by: purchases for the average order value, visits for revenue
    /// per visit; nil for every other metric.
    private static func ratioDenominator(of metric: Metric, in metrics: [Metric], visits: Int?) -> Int? {
        switch metric.aggregation {
        case .revenuePerPurchase: return metrics.firstIndex { $0.apiName == Metric.purchases.apiName }
        case .revenuePerVisit: return visits
        default: return nil
        }
    }

    private static func sum(column: Int, rows: [[Double?]], money: Bool = false) -> Double? {
        if money {
            var total = MoneySum()
            for row in rows {
                guard let value = row[column] else { return nil }
                total.add(value)
            }
            return total.value
        }
        var total = 0.0
        for row in rows {
            guard let value = row[column] else { return nil }
            total += value
        }
        return total
    }

    private static func visitWeighted(column: Int, visits visitsColumn: Int?, rows: [[Double?]]) -> Double? {
        guard let visitsColumn else { return nil }
        var weighted = 0.0
        var visitsTotal = 0.0
        for row in rows {
            guard let visits = row[visitsColumn] else { return nil }
            if visits == 0 { continue }
            guard let value = row[column] else { return nil }
            weighted += value * visits
            visitsTotal += visits
        }
        return visitsTotal > 0 ? weighted / visitsTotal : nil
    }
}
