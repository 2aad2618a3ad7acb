/// Combines daily values into the value of a longer period (a week, a month, a whole report range) by
/// each metric's `Aggregation`. Pure: no I/O, same input → same output.
///
/// Rules (a period of one day is that day's values, as the API sent them; the rules are for longer ones):
/// - `.sum`: Σ daily values.
/// - `.visitWeighted`: Σ(value × visits) / Σ visits, with visits from the `ym:s:visits` column.
/// - `.pageviewsPerVisit`: Σ pageviews / Σ visits; without a pageviews column, the visit-weighted mean of
///   the daily page depth, which is the same number (depth × visits = pageviews).
/// - `.nonAdditive` (users): never derived from days. The API's period total when the caller has one;
///   for a one-day period the day's own value, which is that total; otherwise nil (unavailable).
///
/// Unknown stays unknown: a nil daily value of a summed metric makes the sum nil; a day with unknown visits
/// makes every weighted value nil; a day with 0 visits contributes nothing to a weighted value (its ratio
/// may be nil); a period without visits has no weighted value (nil). When the `ym:s:visits` column is
/// absent, weighted metrics are nil: the caller stores and passes visits (and pageviews) along. No days → all nil.
public enum Aggregator {
    /// The period value of each metric, aligned with `metrics`.
    ///
    /// - Parameters:
    ///   - metrics: the columns of `rows`.
    ///   - rows: one row per day of the period, aligned with `metrics`.
    ///   - periodTotals: totals of non-additive metrics over exactly this period, from the API
    ///     (keyed by API name, e.g. `ym:s:users`).
    public static func aggregate(metrics: [Metric], rows: [[Double?]], periodTotals: [String: Double] = [:]) -> [Double?] {
        guard !rows.isEmpty else { return Array(repeating: nil, count: metrics.count) }
        // A one-day period's value is the API's value for that day, byte for byte: re-deriving it
        // (bounce × visits ÷ visits) would turn 26.08695652 into 26.086956519999998.
        if rows.count == 1 {
            return metrics.indices.map { index in
                let value = index < rows[0].count ? rows[0][index] : nil
                return value.flatMap { $0.isFinite ? $0 : nil }
            }
        }
        let visitsColumn = metrics.firstIndex { $0.apiName == Metric.visits.apiName }
        let pageviewsColumn = metrics.firstIndex { $0.apiName == Metric.pageviews.apiName }
        func aggregate(_ index: Int) -> Double? {
            let metric = metrics[index]
            switch metric.aggregation {
            case .sum:
                return sum(column: index, rows: rows)
            case .visitWeighted:
                return visitWeighted(column: index, visits: visitsColumn, rows: rows)
            case .pageviewsPerVisit:
                guard let visitsColumn else { return nil }
                if let pageviewsColumn {
                    guard let pageviews = sum(column: pageviewsColumn, rows: rows),
                          let visits = sum(column: visitsColumn, rows: rows), visits > 0 else { return nil }
                    return pageviews / visits
                }
                return visitWeighted(column: index, visits: visitsColumn, rows: rows)
            case .nonAdditive:
                if let total = periodTotals[metric.apiName] { return total }
                return rows.count == 1 ? rows[0][index] : nil
            }
        }
        // A sum or product that overflows to ±infinity is no number anyone can use: unknown (nil).
        return metrics.indices.map { index -> Double? in
            aggregate(index).flatMap { $0.isFinite ? $0 : nil }
        }
    }

    private static func sum(column: Int, rows: [[Double?]]) -> Double? {
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
