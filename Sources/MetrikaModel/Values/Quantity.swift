/// A metric value together with its unit. `value` is nil where the API had no value (`null`).
///
/// Percentages are always on the 0–100 scale inside metrika: a value that arrives as a fraction of
/// one is converted exactly once, by `Quantity.percent(fraction:)`.
package struct Quantity: Hashable, Sendable {
    package let unit: MetricUnit
    /// The currency, packed (0: none); declared between the unit and the value so that it fills the
    /// padding before the value and a Quantity stays 24 bytes in the arrays of every report row.
    private let packedCurrency: UInt32
    package let value: Double?

    package init(_ value: Double?, unit: MetricUnit, currency: Currency? = nil) {
        self.value = value
        self.unit = unit
        self.packedCurrency = unit == .money ? currency?.packedValue ?? 0 : 0
    }

    /// The currency of a `.money` value; nil for every other unit.
    package var currency: Currency? { Currency(packed: packedCurrency) }

    /// A percent made from a fraction of one (bounces / visits, or a v1-style 0..1 value).
    package static func percent(fraction: Double?) -> Quantity {
        Quantity(fraction.map { $0 * 100 }, unit: .percent)
    }
}
