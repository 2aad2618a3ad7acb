/// The change of a metric from a previous period to the current one: relative (`+5.2%`) for counts,
/// durations, page depth and other numbers; in percentage points (`-0.9 pp`) for percentages, since a
/// bounce rate going from 20% to 22% rose by 2 points, not by 10%. The one computation behind
/// `metrika report --compare` and the mail's comparison table.
package enum Change: Hashable, Sendable {
    /// Relative change in percent: 5.2 means +5.2%.
    case relative(Double)
    /// Difference in percentage points (percent metrics).
    case points(Double)
    /// The previous value was zero and the current one is not: no percentage exists.
    case fromZero
    /// Either value is unknown (no data, a day missing from the history, before the counter existed).
    case missing

    /// The change from `previous` to `current`; the unit is the current value's.
    package init(from previous: Quantity, to current: Quantity) {
        guard let old = previous.value, let new = current.value, old.isFinite, new.isFinite else {
            self = .missing
            return
        }
        if current.unit == .percent {
            self = (new - old).isFinite ? .points(new - old) : .missing
        } else if old == 0 {
            self = new == 0 ? .relative(0) : .fromZero
        } else {
            // Two finite values can still overflow (1e308 after -1e308): no number, not a made-up one.
            let ratio = (new - old) / abs(old) * 100
            self = ratio.isFinite ? .relative(ratio) : .missing
        }
    }

    /// The number for machines: percent for `.relative`, points for `.points`, nil otherwise.
    package var number: Double? {
        switch self {
        case .relative(let value), .points(let value): return value
        case .fromZero, .missing: return nil
        }
    }

    /// For people: `+5.2%`, `-0.9 pp`, `0.0%` (no sign when it rounds to zero), `new` (from zero),
    /// `missing` when unknown (the table's `—`).
    package func text(missing: String = "—") -> String {
        switch self {
        case .relative(let value): return Self.signed(value) + "%"
        case .points(let value): return Self.signed(value) + " pp"
        case .fromZero: return "new"
        case .missing: return missing
        }
    }

    /// One decimal with an explicit sign; a value that rounds to zero has none (neither up nor down).
    /// Rounded by the one rule (`DecimalText`): a change of 12.25% reads `+12.3%` everywhere.
    static func signed(_ value: Double) -> String {
        guard value.isFinite else { return "0.0" }
        let text = DecimalText.format(value, fractionDigits: 1)
        if text == "0.0" || text == "-0.0" { return "0.0" }
        return value > 0 ? "+" + text : text
    }
}
