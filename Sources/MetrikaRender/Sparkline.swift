/// One-line charts from block characters, e.g. `▁▃▅█▆·▂` for a week of visits.
package enum Sparkline {
    /// The eight bar heights, lowest first.
    package static let bars: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    /// What a missing value (`nil`, NaN or an infinity) shows as: a middle dot, so a gap stays visible
    /// and is not mistaken for the lowest bar or trimmed away at the end of a line.
    package static let missing: Character = "·"

    /// One character per value: the present values scaled linearly from their minimum (`▁`) to their
    /// maximum (`█`), each rounded to the nearest of the eight bars; missing values as `·`.
    /// A series whose present values are all equal is a flat middle line (`▄`); an empty series is "".
    /// Deterministic: the same values always give the same string.
    package static func render(_ values: [Double?]) -> String {
        var low = Double.infinity
        var high = -Double.infinity
        for case let value? in values where value.isFinite {
            low = min(low, value)
            high = max(high, value)
        }
        var line = ""
        line.reserveCapacity(values.count * 3)
        for value in values {
            guard let value, value.isFinite else {
                line.append(missing)
                continue
            }
            guard high > low else {
                line.append(bars[3])
                continue
            }
            // Halve before subtracting so that spans near Double.greatestMagnitude cannot overflow.
            let fraction = (value / 2 - low / 2) / (high / 2 - low / 2)
            let step = (fraction * Double(bars.count - 1)).rounded(.toNearestOrAwayFromZero)
            let index = min(max(Int(step), 0), bars.count - 1)
            line.append(bars[index])
        }
        return line
    }
}
