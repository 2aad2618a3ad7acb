/// Gives every value from the API its unit, and converts fractions to percents exactly once.
public enum Normalizer {
    /// The scale a percent-unit value arrives in.
    public enum PercentScale: Sendable {
        /// 0–100, as the modern Reporting API sends bounce rate (`17.7786`).
        case percent
        /// 0–1, as the retired v1 API did and as ratios metrika computes itself (bounces / visits).
        case fraction
    }

    /// The value of `metric` as the API sent it, with its unit. Percent metrics arriving as fractions
    /// of one are multiplied by 100 here and nowhere else.
    public static func quantity(_ value: Double?, of metric: Metric, percentScale: PercentScale = .percent) -> Quantity {
        if metric.unit == .percent, percentScale == .fraction {
            return Quantity.percent(fraction: value)
        }
        return Quantity(value, unit: metric.unit)
    }

    /// A row of API values for `metrics`, in order; missing trailing values become nil.
    public static func quantities(_ values: [Double?], of metrics: [Metric], percentScale: PercentScale = .percent) -> [Quantity] {
        metrics.enumerated().map { index, metric in
            quantity(index < values.count ? values[index] : nil, of: metric, percentScale: percentScale)
        }
    }
}
