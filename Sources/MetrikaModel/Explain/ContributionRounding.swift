/// A decomposition as it is shown: every change in whole display units (1 for counts and seconds,
/// 0.1 for a percent's points, 0.01 for pages per visit and money), rounded so that the shown numbers
/// add up exactly as the exact ones do:
///
/// - the total change is the one number text of the exact change (`DecimalText`'s rule);
/// - the segments' changes are the exact ones apportioned to that total by largest remainder (each
///   is the exact change rounded down or up; the remainders decide which), so they add up to it;
/// - a rate's mix and rate effects are apportioned the same way to the total change, and each
///   segment's mix to the total mix; its rate effect is what is left of its change, so each row's
///   mix + rate is its change and each column adds up.
package struct ShownDecomposition: Equatable, Sendable {
    package let unit: MetricUnit
    /// Digits after the point of the shown changes.
    package let fractionDigits: Int
    /// The total change in display units (10^-fractionDigits).
    package let change: Int
    /// Each segment's change, in the decomposition's order: they add up to `change`.
    package let changes: [Int]
    /// A rate's effects (`mix + rate == change`) and each segment's (`mixes[i] + rates[i] ==
    /// changes[i]`, Σ mixes == mix, Σ rates == rate); nil for a count.
    package let mix: Int?
    package let rate: Int?
    package let mixes: [Int]?
    package let rates: [Int]?
    /// Money's sign after a shown change (`+1 250.00 ₽`); nil for anything else.
    package var currencySign: String? = nil

    /// The whole percent of the shown total change a shown change is (`84` for 336 of 400); nil when
    /// the total shown change is 0.
    package func percentShare(of units: Int) -> String? {
        guard change != 0 else { return nil }
        return DecimalText.format(Double(units) / Double(change) * 100, fractionDigits: 0)
    }

    /// Each change's whole percent of the shown total change, apportioned so that they add up to
    /// 100 (a share rounded on its own makes 101 % under a Total of 100 %); nil when the total shown
    /// change is 0.
    package var percentShares: [Int]? {
        guard change != 0 else { return nil }
        return ContributionRounding.apportion(changes.map { Double($0) / Double(change) * 100 }, total: 100)
    }

    /// Display units as signed text: `+12`, `-336`, `-2.8 pp`, `+0:12`, `0`.
    package func signedText(_ units: Int, grouping: Bool = true) -> String {
        let text = ContributionRounding.signedText(
            units, fractionDigits: fractionDigits, unit: unit, grouping: grouping)
        return currencySign.map { text + " " + $0 } ?? text
    }
}

package enum ContributionRounding {
    /// The digits a change of `unit` is shown with (as `ValueFormatter` shows the values).
    package static func fractionDigits(for unit: MetricUnit) -> Int {
        switch unit {
        case .count, .seconds: return 0
        case .percent: return 1
        case .pagesPerVisit, .number, .money: return 2
        }
    }

    /// The shown form of `decomposition` of a metric with `unit`.
    package static func shown(_ decomposition: ChangeDecomposition<Double>, unit: MetricUnit) -> ShownDecomposition {
        let digits = fractionDigits(for: unit)
        let scale = power(digits)
        let total = units(decomposition.change, fractionDigits: digits)
        let changes = apportion(decomposition.segments.map { $0.change * scale }, total: total)
        guard let mix = decomposition.mix, let rate = decomposition.rate else {
            return ShownDecomposition(
                unit: unit, fractionDigits: digits, change: total, changes: changes, mix: nil, rate: nil, mixes: nil,
                rates: nil)
        }
        let effects = apportion([mix * scale, rate * scale], total: total)
        let mixes = apportion(decomposition.segments.map { ($0.mix ?? 0) * scale }, total: effects[0])
        let rates = zip(changes, mixes).map { $0 - $1 }
        return ShownDecomposition(
            unit: unit, fractionDigits: digits, change: total, changes: changes, mix: effects[0], rate: effects[1],
            mixes: mixes, rates: rates)
    }

    /// `value` in display units, rounded by the one number text's rule (`DecimalText`): the shown
    /// total is the same number the value's own text would show.
    package static func units(_ value: Double, fractionDigits: Int) -> Int {
        guard value.isFinite else { return 0 }
        let text = DecimalText.format(value, fractionDigits: fractionDigits)
        return Int(String(text.filter { $0 != "." })) ?? Int((value * power(fractionDigits)).rounded())
    }

    /// Integers that add up to `total`, each the floor or the ceiling of its exact part whenever
    /// `total` is within the parts' floors and ceilings (it is the rounded sum of them here):
    /// the floors first, then one more to the largest remainders (ties: the earlier part), or one
    /// less from the smallest when the floors overshoot. Any `total` is met (the slack of floating
    /// point goes round the parts again), so the sum is always exact.
    package static func apportion(_ exact: [Double], total: Int) -> [Int] {
        guard !exact.isEmpty else { return [] }
        var parts = exact.map { $0.isFinite ? Int($0.rounded(.down)) : 0 }
        let remainders = exact.indices.map { exact[$0].isFinite ? exact[$0] - exact[$0].rounded(.down) : 0 }
        var leftover = total - parts.reduce(0, +)
        let byLargest = exact.indices.sorted {
            remainders[$0] != remainders[$1] ? remainders[$0] > remainders[$1] : $0 < $1
        }
        var next = 0
        while leftover > 0 {
            parts[byLargest[next % byLargest.count]] += 1
            leftover -= 1
            next += 1
        }
        next = 0
        while leftover < 0 {
            parts[byLargest[byLargest.count - 1 - next % byLargest.count]] -= 1
            leftover += 1
            next += 1
        }
        return parts
    }

    /// Display units as signed text through the one number text: `+12`, `-1 336`, `-2.8 pp` (a
    /// rate's change is in percentage points), `+0:12`, `+0.25`, `0`.
    package static func signedText(_ units: Int, fractionDigits: Int, unit: MetricUnit, grouping: Bool = true) -> String
    {
        let sign = units > 0 ? "+" : units < 0 ? "-" : ""
        let magnitude = Double(units.magnitude) / power(fractionDigits)
        switch unit {
        case .percent:
            return sign + DecimalText.format(magnitude, fractionDigits: fractionDigits) + " pp"
        case .seconds:
            // A change of time reads as a duration (`+0:30`, `-1:05`, `+1:00:00`), never as a clock time.
            let seconds = Int(magnitude.rounded())
            let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
            func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
            return sign + (hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))")
        default:
            let text = DecimalText.format(magnitude, fractionDigits: fractionDigits)
            return sign + (grouping ? DigitGroups.group(text) : text)
        }
    }

    package static func power(_ digits: Int) -> Double {
        var result = 1.0
        for _ in 0..<max(0, digits) { result *= 10 }
        return result
    }
}
