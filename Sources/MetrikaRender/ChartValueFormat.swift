import MetrikaModel

/// How chart labels print metric values, by unit. A value label (the last-value label, the legend,
/// the alt text) is the table's text (`ValueFormatter`: `17.8%`, `03:03`, `2.39`, `1 250 000.00 ₽`),
/// except counts, which are compact like a dashboard's (`950`, `1.2k`, `12k`, `1.2M`). Axis ticks are
/// compact for counts and money (`1.5M ₽`) and carry as many decimals as their step needs. Every
/// figure is rounded by the one rule (`DecimalText`: the shortest decimal, half away from zero).
package enum ChartValueFormat {
    /// The label for one value (the last-value label, the legend, alt text): the table's text, counts compact.
    package static func label(_ value: Double, unit: MetricUnit, currency: Currency? = nil) -> String {
        guard value.isFinite else { return ValueFormatter.missingInTable }
        if unit == .count { return compactCount(value) }
        return ValueFormatter.format(
            Quantity(value, unit: unit, currency: currency), grouping: true, missing: ValueFormatter.missingInTable,
            currencySign: true)
    }

    /// The label for a y-axis tick: as many decimals as the tick step needs, so neighbouring ticks
    /// never print the same text (`1.5k` next to `2k`, `17.5%` next to `18%`).
    package static func axisLabel(_ value: Double, unit: MetricUnit, step: Double, currency: Currency? = nil) -> String
    {
        guard value.isFinite else { return "0" }
        switch unit {
        case .count, .money:
            let magnitude = abs(value)
            let (scale, suffix): (Double, String) =
                magnitude >= 1e9 ? (1e9, "B") : magnitude >= 1e6 ? (1e6, "M") : magnitude >= 1e3 ? (1e3, "k") : (1, "")
            let number = DecimalText.trimmed(value / scale, maxFractionDigits: decimalsFor(step: step / scale)) + suffix
            guard unit == .money, let currency else { return number }
            return number + " " + currency.sign
        case .percent:
            return DecimalText.trimmed(value, maxFractionDigits: decimalsFor(step: step)) + "%"
        case .seconds:
            return clock(value)
        case .pagesPerVisit, .number:
            return DecimalText.trimmed(value, maxFractionDigits: decimalsFor(step: step))
        }
    }

    /// Counts in the short form of dashboards: below 1000 exact, then one decimal below 10 of a unit
    /// (`1.2k`, `3.4M`) and whole units above (`12k`, `950k`).
    package static func compactCount(_ value: Double) -> String {
        guard value.isFinite else { return ValueFormatter.missingInTable }
        let whole = DecimalText.format(value, fractionDigits: 0)
        // Whole numbers: the shortest decimal and the double round alike, so this is the table's count.
        let rounded = Double(whole) ?? value.rounded(.toNearestOrAwayFromZero)
        if abs(rounded) < 1000 { return whole }
        for (scale, suffix) in [(1e3, "k"), (1e6, "M"), (1e9, "B")] {
            let scaled = rounded / scale
            // Round first, then choose the form, so that 999 950 is `1M` and not `1000k`.
            let oneDecimal = DecimalText.format(scaled, fractionDigits: 1)
            if abs(Double(oneDecimal) ?? scaled) < 10 {
                return DecimalText.trimmed(scaled, maxFractionDigits: 1) + suffix
            }
            let units = DecimalText.format(scaled, fractionDigits: 0)
            if abs(Double(units) ?? scaled) < 1000 || suffix == "B" {
                return units + suffix
            }
        }
        return whole
    }

    /// Seconds as the table writes them: `mm:ss`, or `h:mm:ss` from one hour (`ValueFormatter.duration`).
    package static func clock(_ seconds: Double) -> String {
        ValueFormatter.duration(max(0, seconds))
    }

    /// The fewest decimals (0…3) that keep multiples of `step` apart.
    static func decimalsFor(step: Double) -> Int {
        var decimals = 0
        var scaled = abs(step)
        while decimals < 3, scaled > 0, abs(scaled - scaled.rounded()) > 1e-9 * max(1, scaled) {
            scaled *= 10
            decimals += 1
        }
        return decimals
    }
}
