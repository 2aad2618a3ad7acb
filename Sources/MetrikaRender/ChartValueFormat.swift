import MetrikaModel
/// How chart labels print metric values, by unit: counts `950`, `1.2k`, `12k`, `1.2M`; percents
/// `17.8%`; seconds `mm:ss` (`h:mm:ss` from one hour); pages per visit with two decimals; money with
/// its sign, compact like counts on axes (`1.5M ₽`) and to the kopeck in labels (`1 250 000.00 ₽`).
package enum ChartValueFormat {
    /// The label for one value (the last-value label, the legend, the mail's table).
    package static func label(_ value: Double, unit: MetricUnit, currency: Currency? = nil) -> String {
        switch unit {
        case .money:
            return ValueFormatter.format(Quantity(value, unit: .money, currency: currency), grouping: true, missing: "", currencySign: true)
        case .count: return compactCount(value)
        case .percent: return ChartNumber.fixed(value, decimals: 1) + "%"
        case .seconds: return clock(value)
        case .pagesPerVisit: return ChartNumber.fixed(value, decimals: 2)
        case .number: return ChartNumber.trimmed(value, maxDecimals: 2)
        }
    }

    /// The label for a y-axis tick: as many decimals as the tick step needs, so neighbouring ticks
    /// never print the same text (`1.5k` next to `2k`, `17.5%` next to `18%`).
    package static func axisLabel(_ value: Double, unit: MetricUnit, step: Double, currency: Currency? = nil) -> String {
        switch unit {
        case .count, .money:
            let magnitude = abs(value)
            let (scale, suffix): (Double, String) =
                magnitude >= 1e9 ? (1e9, "B") : magnitude >= 1e6 ? (1e6, "M") : magnitude >= 1e3 ? (1e3, "k") : (1, "")
            let number = ChartNumber.trimmed(value / scale, maxDecimals: decimalsFor(step: step / scale)) + suffix
            guard unit == .money, let currency else { return number }
            return number + " " + currency.sign
        case .percent:
            return ChartNumber.trimmed(value, maxDecimals: decimalsFor(step: step)) + "%"
        case .seconds:
            return clock(value)
        case .pagesPerVisit, .number:
            return ChartNumber.trimmed(value, maxDecimals: decimalsFor(step: step))
        }
    }

    /// Counts in the short form of dashboards: below 1000 exact, then one decimal below 10 of a unit
    /// (`1.2k`, `3.4M`) and whole units above (`12k`, `950k`).
    package static func compactCount(_ value: Double) -> String {
        let rounded = value.rounded(.toNearestOrAwayFromZero)
        let magnitude = abs(rounded)
        if magnitude < 1000 { return ChartNumber.fixed(rounded, decimals: 0) }
        for (scale, suffix) in [(1e3, "k"), (1e6, "M"), (1e9, "B")] {
            let scaled = rounded / scale
            // Round first, then choose the form, so that 999 950 is `1M` and not `1000k`.
            if abs((scaled * 10).rounded(.toNearestOrAwayFromZero)) < 100 {
                return ChartNumber.trimmed(scaled, maxDecimals: 1) + suffix
            }
            if abs(scaled.rounded(.toNearestOrAwayFromZero)) < 1000 || suffix == "B" {
                return ChartNumber.fixed(scaled, decimals: 0) + suffix
            }
        }
        return ChartNumber.fixed(rounded, decimals: 0)
    }

    /// Seconds as `mm:ss`, or `h:mm:ss` from one hour; rounded to whole seconds.
    package static func clock(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded(.toNearestOrAwayFromZero))
        let hours = total / 3600
        let minutes = (total % 3600) / 60
        let rest = total % 60
        if hours > 0 { return String(hours) + ":" + twoDigits(minutes) + ":" + twoDigits(rest) }
        return twoDigits(minutes) + ":" + twoDigits(rest)
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

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0" + String(value) : String(value) }
}
