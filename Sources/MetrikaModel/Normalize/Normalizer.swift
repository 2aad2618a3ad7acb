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
        quantities(values[...], of: metrics, percentScale: percentScale)
    }

    /// The same for a row of a page's flat metric array.
    public static func quantities(_ values: RowMetricValues, of metrics: [Metric], percentScale: PercentScale = .percent) -> [Quantity] {
        quantities(of: values, metrics, percentScale)
    }

    /// The same for a slice: one array, the result.
    public static func quantities(_ values: ArraySlice<Double?>, of metrics: [Metric], percentScale: PercentScale = .percent) -> [Quantity] {
        quantities(of: values, metrics, percentScale)
    }

    /// Specialized for both callers above within this module (a public generic would be called
    /// unspecialized from the CLI, per value).
    private static func quantities<Values: RandomAccessCollection<Double?>>(of values: Values, _ metrics: [Metric], _ percentScale: PercentScale) -> [Quantity] where Values.Index == Int {
        var result: [Quantity] = []
        result.reserveCapacity(metrics.count)
        var position = values.startIndex
        for metric in metrics {
            result.append(quantity(position < values.endIndex ? values[position] : nil, of: metric, percentScale: percentScale))
            position += 1
        }
        return result
    }
}
