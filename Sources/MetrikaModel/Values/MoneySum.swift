/// A sum of amounts of money as an exact decimal: each amount is read as a whole number of
/// millionths of the currency's unit (a kopeck is 10,000 of them), added as integers, and turned back
/// into a double once, at the end. Summing the doubles themselves gathers binary noise: a week of
/// kopeck amounts would total `1743341.0099999998` where the sum is `1743341.01`.
///
/// Exact for every amount with at most six decimals, up to about 9 billion units (2^53 millionths);
/// past that, a sum of whole kopecks is still exact up to about 90 trillion. An amount too large for
/// the integers, or not finite, makes the sum fall back to adding doubles (never a wrong value:
/// at worst the old noise).
package struct MoneySum: Sendable {
    /// Millionths per unit.
    static let scale: Int64 = 1_000_000
    private var millionths: Int64 = 0
    /// Every amount added fitted the integers.
    private var exact = true
    /// The same sum as doubles, for the fallback.
    private var plain = 0.0

    package init() {}

    /// Adds `amount`.
    package mutating func add(_ amount: Double) {
        plain += amount
        guard exact else { return }
        let scaled = (amount * Double(Self.scale)).rounded()
        guard scaled.isFinite, scaled.magnitude < 9.0e18 else {
            exact = false
            return
        }
        let (sum, overflow) = millionths.addingReportingOverflow(Int64(scaled))
        if overflow { exact = false } else { millionths = sum }
    }

    /// Subtracts `amount` (a total less the rows shown).
    package mutating func subtract(_ amount: Double) { add(-amount) }

    /// The sum: the double nearest to the exact decimal.
    package var value: Double {
        guard exact else { return plain }
        let limit: Int64 = 1 << 53
        if millionths.magnitude <= limit.magnitude { return Double(millionths) / Double(Self.scale) }
        // Whole kopecks (cents): exact in hundredths further on.
        let perCent = Self.scale / 100
        if millionths % perCent == 0, (millionths / perCent).magnitude <= limit.magnitude {
            return Double(millionths / perCent) / 100
        }
        return Double(millionths) / Double(Self.scale)
    }

    /// The exact sum of `amounts`.
    package static func total(_ amounts: some Sequence<Double>) -> Double {
        var sum = MoneySum()
        for amount in amounts { sum.add(amount) }
        return sum.value
    }
}
