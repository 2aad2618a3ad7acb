/// A metric value together with its unit. `value` is nil where the API had no value (`null`).
///
/// Percentages are always on the 0–100 scale inside metrika: a value that arrives as a fraction of
/// one is converted exactly once, by `Quantity.percent(fraction:)`.
public struct Quantity: Hashable, Sendable {
    public let unit: MetricUnit
    public let value: Double?
    /// The currency of a `.money` value; nil for every other unit.
    public let currency: Currency?

    public init(_ value: Double?, unit: MetricUnit, currency: Currency? = nil) {
        self.value = value
        self.unit = unit
        self.currency = unit == .money ? currency : nil
    }

    /// A percent made from a fraction of one (bounces / visits, or a v1-style 0..1 value).
    public static func percent(fraction: Double?) -> Quantity {
        Quantity(fraction.map { $0 * 100 }, unit: .percent)
    }
}
