/// Gives every value from the API its unit, and converts fractions to percents exactly once.
package enum Normalizer {
    /// The scale a percent-unit value arrives in.
    package enum PercentScale: Sendable {
        /// 0–100, as the modern Reporting API sends bounce rate (`17.7786`).
        case percent
        /// 0–1, as the retired v1 API did and as ratios metrika computes itself (bounces / visits).
        case fraction
    }

    /// The value of `metric` as the API sent it, with its unit. Percent metrics arriving as fractions
    /// of one are multiplied by 100 here and nowhere else.
    package static func quantity(_ value: Double?, of metric: Metric, percentScale: PercentScale = .percent) -> Quantity
    {
        if metric.unit == .percent, percentScale == .fraction {
            return Quantity.percent(fraction: value)
        }
        return Quantity(value, unit: metric.unit, currency: metric.currency)
    }

    /// A row of API values for `metrics`, in order; missing trailing values become nil.
    package static func quantities(_ values: [Double?], of metrics: [Metric], percentScale: PercentScale = .percent)
        -> [Quantity]
    {
        quantities(values[...], of: metrics, percentScale: percentScale)
    }

    /// The same for a row of a page's flat metric array.
    package static func quantities(
        _ values: RowMetricValues, of metrics: [Metric], percentScale: PercentScale = .percent
    ) -> [Quantity] {
        quantities(of: values, metrics, percentScale)
    }

    /// The same for a slice: one array, the result.
    package static func quantities(
        _ values: ArraySlice<Double?>, of metrics: [Metric], percentScale: PercentScale = .percent
    ) -> [Quantity] {
        quantities(of: values, metrics, percentScale)
    }

    /// Specialized for both callers above within this module (a public generic would be called
    /// unspecialized from the CLI, per value).
    private static func quantities<Values: RandomAccessCollection<Double?>>(
        of values: Values, _ metrics: [Metric], _ percentScale: PercentScale
    ) -> [Quantity] where Values.Index == Int {
        var result: [Quantity] = []
        result.reserveCapacity(metrics.count)
        var position = values.startIndex
        for metric in metrics {
            result.append(
                quantity(position < values.endIndex ? values[position] : nil, of: metric, percentScale: percentScale))
            position += 1
        }
        return result
    }
}

// MARK: - Plausible values

extension Normalizer {
    /// The largest count metrika believes: 2^53, beyond which a Double no longer holds every whole
    /// number (and no site has had that many visits).
    package static let largestCount: Double = 9_007_199_254_740_992

    /// What a value of `unit` can be, as the API sends it (percent 0–100); nil: any number (money
    /// may be negative, an unknown metric may be anything). The one table of bounds: an answer
    /// outside them is unreadable (exit 65), never shown or stored.
    package static func plausibleRange(of unit: MetricUnit) -> ClosedRange<Double>? {
        switch unit {
        case .count, .seconds, .pagesPerVisit: return 0...largestCount
        // A rounding error's worth over 100 is still 100%.
        case .percent: return 0...100.000_000_1
        // Revenue less refunds can be negative; an amount has no natural ceiling.
        case .number, .money: return nil
        }
    }

    /// Why `value` cannot be a value of `metric` (`a percentage is 0–100`), or nil when it can. Not
    /// finite values are not judged here: they are shown as missing.
    package static func implausibility(of value: Double, for metric: Metric) -> String? {
        guard value.isFinite, let range = plausibleRange(of: metric.unit), !range.contains(value) else { return nil }
        switch metric.unit {
        case .percent: return "a percentage is 0–100"
        case .count: return value < 0 ? "a count is never negative" : "a count beyond 2^53 is not a real one"
        case .seconds:
            return value < 0 ? "a duration is never negative" : "a duration beyond 2^53 seconds is not a real one"
        case .pagesPerVisit, .number, .money:
            return value < 0 ? "pages per visit are never negative" : "pages per visit beyond 2^53 are not real"
        }
    }
}
