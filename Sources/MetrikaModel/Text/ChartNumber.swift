import Foundation

/// Locale-free number printing for charts: fixed precision, `.` as the decimal separator, no grouping.
///
/// Written by hand rather than with `String(format:)` so that the output cannot depend on the
/// process locale or the platform's C library, and the same chart is always the same bytes.
package enum ChartNumber {
    /// `value` rounded half away from zero to `decimals` places (0…6), e.g. `fixed(12.345, 1)` → `12.3`.
    /// Negative zero prints as `0`; non-finite values print as `0` (a chart never has a use for them).
    package static func fixed(_ value: Double, decimals: Int) -> String {
        precondition((0...6).contains(decimals), "ChartNumber.fixed supports 0...6 decimals")
        guard value.isFinite else { return decimals == 0 ? "0" : "0." + String(repeating: "0", count: decimals) }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        // Past 2^53 a Double is a whole number anyway; Decimal prints its digits without an exponent.
        guard scaled < 9.0e15 else { return (value < 0 ? "-" : "") + Decimal(abs(value).rounded()).description }
        let units = Int64(scaled)
        let divisor = Int64(scale)
        let whole = units / divisor
        let fraction = units % divisor
        let sign = value < 0 && units != 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(whole) }
        let fractionText = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: decimals - fractionText.count) + fractionText
    }

    /// Like `fixed(_:decimals:)` with trailing fractional zeros (and a bare `.`) removed: `1.50` → `1.5`.
    package static func trimmed(_ value: Double, maxDecimals: Int) -> String {
        var text = fixed(value, decimals: maxDecimals)
        guard text.contains(".") else { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// A coordinate: one decimal, trailing `.0` dropped, to keep paths short.
    package static func coordinate(_ value: Double) -> String {
        trimmed(value, maxDecimals: 1)
    }
}
