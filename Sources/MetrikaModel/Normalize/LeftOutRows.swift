extension Report {
    /// The rows a limited report did not show (`--limit 15` of 800 rows): how many there were and,
    /// for additive metrics, what they add up to — the total less the rows shown. Every output says it
    /// (an `Other (785 rows)` line, a Total labelled `Total (800 rows)`), so that 15 rows summing to
    /// 16,350 beside a Total of 21,995 is not read as a mistake.
    package struct LeftOut: Sendable, Equatable {
        /// Rows not shown: 785.
        package var rows: Int
        /// Rows the whole report has: 800 (the Total is over these).
        package var rowsTotal: Int
        /// One value per metric: the total less the shown rows for a summed metric (visits,
        /// pageviews, purchases, revenue — money exactly, `MoneySum`); nil for every other metric
        /// (users are not a sum, a rate's rest is no difference), and nil when a value is unknown or
        /// the difference would be negative (totals of a sample need not match its rows).
        package var values: [Quantity]
        /// A compared report's: what the same rows left out added up to in the previous period (its
        /// totals less the shown rows' previous values), so the Other row has its before and change.
        package var previous: Previous?

        package init(rows: Int, rowsTotal: Int, values: [Quantity], previous: Previous? = nil) {
            self.rows = rows
            self.rowsTotal = rowsTotal
            self.values = values
            self.previous = previous
        }
    }

    /// Sums the rows a report shows, as they stream past, to tell what the left-out rows add up to.
    package struct ShownRows: Sendable {
        package let metrics: [Metric]
        package private(set) var count = 0
        private var sums: [MoneySum]
        private var unknown: [Bool]

        package init(metrics: [Metric]) {
            self.metrics = metrics
            sums = Array(repeating: MoneySum(), count: metrics.count)
            unknown = Array(repeating: false, count: metrics.count)
        }

        /// Counts `row` and adds its values.
        package mutating func add(_ row: Row) {
            count += 1
            for index in metrics.indices {
                guard index < row.values.count, let value = row.values[index].value, value.isFinite else {
                    unknown[index] = true
                    continue
                }
                sums[index].add(value)
            }
        }

        /// The rows left out of `rowsTotal` and their values, given the report's `totals`; nil when
        /// every row was shown.
        package func leftOut(rowsTotal: Int, totals: [Quantity]) -> LeftOut? {
            guard rowsTotal > count else { return nil }
            let values = metrics.indices.map { index -> Quantity in
                let metric = metrics[index]
                let rest = Quantity(nil, unit: metric.unit, currency: metric.currency)
                guard metric.aggregation == .sum, !unknown[index], index < totals.count,
                    let total = totals[index].value, total.isFinite
                else { return rest }
                var difference = MoneySum()
                difference.add(total)
                difference.subtract(sums[index].value)
                let value = difference.value
                guard value >= 0 else { return rest }
                return Quantity(value, unit: totals[index].unit, currency: totals[index].currency)
            }
            return LeftOut(rows: rowsTotal - count, rowsTotal: rowsTotal, values: values)
        }
    }
}
