/// SVG coordinates and sizes: one decimal, trailing `.0` dropped, `.` as the separator, no locale.
///
/// Geometry only: where a point or a label goes, never a value a reader reads — value text is
/// `ValueFormatter` / `DecimalText` (the one rounding rule). A coordinate is rounded as the binary
/// number it is (half away from zero), which is also what keeps a long path cheap to write.
package enum ChartNumber {
    /// A coordinate: `12.0` → `12`, `12.06` → `12.1`, `-0.01` → `0`; non-finite → `0`.
    package static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let scaled = (abs(value) * 10).rounded(.toNearestOrAwayFromZero)
        // Past 2^53 a Double is a whole number anyway; no drawing is that large, but print it honestly.
        guard scaled < 9.0e15 else { return DecimalText.format(value, fractionDigits: 0) }
        let tenths = Int64(scaled)
        let sign = value < 0 && tenths != 0 ? "-" : ""
        let whole = String(tenths / 10)
        let fraction = tenths % 10
        return fraction == 0 ? sign + whole : sign + whole + "." + String(fraction)
    }
}
