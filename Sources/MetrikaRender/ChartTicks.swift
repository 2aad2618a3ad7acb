import MetrikaModel

/// Tick placement for line charts: "nice" 1-2-5 value ticks for the y axis and calendar ticks for the
/// x axis whose labels never overlap.
package enum ChartTicks {
    // MARK: - Value axis

    /// The ticks of a value axis: evenly spaced multiples of `step` from `lower` to `upper`.
    package struct ValueTicks: Hashable, Sendable {
        /// Tick values, ascending; the first is `lower`, the last `upper`.
        package let values: [Double]
        /// The distance between ticks: 1, 2 or 5 times a power of ten (clock steps for seconds).
        package let step: Double
        /// The axis bottom.
        package var lower: Double { values.first ?? 0 }
        /// The axis top.
        package var upper: Double { values.last ?? 1 }
    }

    /// Nice ticks covering `lowest...highest` with at most `maxTicks` ticks. With `fromZero` the axis
    /// starts at 0 (or below, for negative data), as it must for counts so that line heights compare
    /// honestly. Seconds use clock steps (15 s, 30 s, 1 min, 5 min, …) so labels read as round times.
    package static func valueTicks(lowest: Double, highest: Double, unit: MetricUnit, fromZero: Bool, maxTicks: Int = 6)
        -> ValueTicks
    {
        precondition(maxTicks >= 2, "an axis needs at least two ticks")
        // Values near ±Double.greatestFiniteMagnitude (an API answer can hold 1e308 and -1e308) would
        // make the span infinite and the step arithmetic trap: such an axis is clamped to ±1e300.
        var low = lowest.isFinite ? min(max(lowest, -1e300), 1e300) : 0
        var high = highest.isFinite ? min(max(highest, -1e300), 1e300) : 0
        if low > high { swap(&low, &high) }
        if fromZero {
            low = min(0, low)
            high = max(0, high)
        }
        if high - low <= 0 {
            // A flat line: give it room above (and below when not anchored at zero).
            let pad = abs(high) > 0 ? abs(high) * 0.1 : 1
            high += pad
            if !fromZero { low -= pad }
        }
        let intervals = maxTicks - 1
        for step in candidateSteps(span: high - low, intervals: intervals, unit: unit) {
            let first = (low / step).rounded(.down)
            let last = (high / step).rounded(.up)
            if last - first <= Double(intervals) {
                let values = stride(from: first, through: last, by: 1).map { $0 * step }
                return ValueTicks(values: values, step: step)
            }
        }
        // Unreachable for finite input: the candidate list grows past any span.
        return ValueTicks(values: [low, high], step: high - low)
    }

    /// Steps from small to large, starting a little below what the span needs.
    private static func candidateSteps(span: Double, intervals: Int, unit: MetricUnit) -> [Double] {
        let rough = span / Double(intervals)
        var steps: [Double] = []
        if unit == .seconds {
            let clock: [Double] = [
                1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400
            ]
            steps += clock.filter { $0 >= rough / 2 }
            if rough <= 86400 { return steps }
        }
        var exponent = Int((log10(max(rough, 1e-12))).rounded(.down)) - 1
        if unit == .count { exponent = max(exponent, 0) } // no fractional visits on the axis
        while steps.count < 40 {
            let power = pow10(exponent)
            for multiplier in [1.0, 2.0, 5.0] { steps.append(multiplier * power) }
            exponent += 1
        }
        return steps.filter { $0 >= rough / 2 || steps.last == $0 }
    }

    private static func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        if exponent >= 0 { for _ in 0..<exponent { result *= 10 } } else { for _ in 0..<(-exponent) { result /= 10 } }
        return result
    }

    private static func log10(_ value: Double) -> Double {
        // Foundation-free: count decades, good enough to pick a starting exponent.
        var exponent = 0.0
        var scaled = value
        while scaled >= 10 {
            scaled /= 10
            exponent += 1
        }
        while scaled < 1 {
            scaled *= 10
            exponent -= 1
        }
        return exponent
    }

    // MARK: - Date axis

    /// One tick of the date axis.
    package struct DateTick: Hashable, Sendable {
        /// The day the tick marks.
        package let day: Day
        /// Its horizontal position, 0…plotWidth.
        package let x: Double
        /// The label, centred under `x`.
        package let label: String
        /// The label's estimated width in pixels.
        package let labelWidth: Double
    }

    /// How far apart date ticks are.
    package enum DateInterval: Hashable, Sendable {
        case days(Int)
        case weeks(Int)
        case months(Int)
        case years(Int)
    }

    /// The ordered list of intervals tried, finest first.
    package static let dateIntervals: [DateInterval] = [
        .days(1), .days(2), .weeks(1), .weeks(2), .months(1), .months(2), .months(3), .months(6),
        .years(1), .years(2), .years(5), .years(10), .years(20), .years(50), .years(100)
    ]

    /// The horizontal position of a day in a plot `plotWidth` wide showing `range`: the first day at 0,
    /// the last at `plotWidth`, a one-day range in the middle.
    package static func x(of day: Day, in range: DateRange, plotWidth: Double) -> Double {
        let count = range.dayCount
        guard count > 1 else { return plotWidth / 2 }
        return Double(range.from.days(to: day)) / Double(count - 1) * plotWidth
    }

    /// Date ticks for `range`: the finest calendar interval (days, weeks, months, years) whose labels,
    /// at their estimated widths, keep at least `minimumGap` pixels between neighbours and stay within
    /// `edgeAllowance` pixels of the plot's ends. Never empty.
    package static func dateTicks(
        for range: DateRange, plotWidth: Double, fontSize: Double, minimumGap: Double = 10, edgeAllowance: Double = 24
    ) -> [DateTick] {
        if range.dayCount == 1 {
            let label = range.from.iso
            return [
                DateTick(
                    day: range.from, x: plotWidth / 2, label: label,
                    labelWidth: estimatedWidth(of: label, fontSize: fontSize))
            ]
        }
        for interval in dateIntervals {
            let ticks = candidateTicks(interval, range: range, plotWidth: plotWidth, fontSize: fontSize)
                .filter {
                    $0.x - $0.labelWidth / 2 >= -edgeAllowance && $0.x + $0.labelWidth / 2 <= plotWidth + edgeAllowance
                }
            guard !ticks.isEmpty else { continue }
            if labelsFit(ticks, minimumGap: minimumGap) { return ticks }
        }
        let label = range.from.iso
        return [
            DateTick(day: range.from, x: 0, label: label, labelWidth: estimatedWidth(of: label, fontSize: fontSize))
        ]
    }

    /// Whether no two neighbouring labels come closer than `minimumGap` pixels.
    package static func labelsFit(_ ticks: [DateTick], minimumGap: Double) -> Bool {
        for (left, right) in zip(ticks, ticks.dropFirst()) {
            let space = (right.x - right.labelWidth / 2) - (left.x + left.labelWidth / 2)
            if space < minimumGap { return false }
        }
        return true
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func candidateTicks(_ interval: DateInterval, range: DateRange, plotWidth: Double, fontSize: Double)
        -> [DateTick]
    {
        var days: [Day] = []
        switch interval {
        case .days(let n):
            days = stride(from: range.from.ordinal, through: range.to.ordinal, by: n).map(Day.init(ordinal:))
        case .weeks(let n):
            var monday = range.from.startOfWeek
            if monday < range.from { monday = monday.adding(days: 7) }
            days = stride(from: monday.ordinal, through: range.to.ordinal, by: 7 * n).map(Day.init(ordinal:))
        case .months(let n):
            var (year, month, _) = range.from.startOfMonth.components
            // Align to calendar quarters/halves (Jan, Apr, Jul, Oct) rather than to the range start.
            while (month - 1) % n != 0 {
                month += 1
                if month > 12 {
                    month = 1
                    year += 1
                }
            }
            while let day = Day(year: year, month: month, day: 1), day <= range.to {
                if day >= range.from { days.append(day) }
                month += n
                while month > 12 {
                    month -= 12
                    year += 1
                }
            }
        case .years(let n):
            var year = range.from.components.year
            while year % n != 0 { year += 1 }
            while let day = Day(year: year, month: 1, day: 1), day <= range.to {
                if day >= range.from { days.append(day) }
                year += n
            }
        }
        var previousYear: Int?
        return days.map { day in
            let (year, month, dayOfMonth) = day.components
            let label: String
            switch interval {
            case .days, .weeks:
                label = monthNames[month - 1] + " " + String(dayOfMonth)
            case .months:
                // The year appears on the first tick and wherever it changes.
                label = previousYear == year ? monthNames[month - 1] : monthNames[month - 1] + " " + String(year)
            case .years:
                label = String(year)
            }
            previousYear = year
            return DateTick(
                day: day, x: x(of: day, in: range, plotWidth: plotWidth), label: label,
                labelWidth: estimatedWidth(of: label, fontSize: fontSize))
        }
    }

    // MARK: - Text measurement

    /// A deliberately generous estimate of how wide `text` renders at `fontSize` pixels in the chart's
    /// font stack (widths of DejaVu Sans, the widest usual fallback, rounded up), so that layout that
    /// avoids overlap by this estimate also avoids it on screen.
    package static func estimatedWidth(of text: String, fontSize: Double) -> Double {
        var ems = 0.0
        for scalar in text.unicodeScalars {
            switch scalar {
            case " ": ems += 0.32
            case ".", ",", ":", ";", "'", "|", "!", "i", "j", "l", "I": ems += 0.32
            case "0"..."9": ems += 0.64
            case "m", "w": ems += 0.98
            case "M", "W": ems += 1.0
            case "A"..."Z": ems += 0.78
            case "a"..."z": ems += 0.64
            case "%": ems += 0.96
            default:
                if scalar.value < 0x80 {
                    ems += 0.7
                } else if scalar.value >= 0x1100 && scalar.properties.isAlphabetic && scalar.value >= 0x2E80 {
                    ems += 1.0
                } // CJK and wide scripts
                else {
                    ems += 0.78
                }
            }
        }
        return ems * fontSize
    }
}
