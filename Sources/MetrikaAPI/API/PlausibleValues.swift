import MetrikaModel

/// Refuses an answer holding a value no metric can have (a 300-digit visit count, a bounce rate of
/// 1.2e29 %, a negative duration): the answer is unreadable (exit 65), so nothing of it is shown or
/// stored. The bounds are the model's (`Normalizer.plausibleRange(of:)`); this applies them to every
/// report answer as it is read, before any caller sees a value.
enum PlausibleValues {
    /// Each metric's bounds, by position; nil where any number goes.
    static func bounds(for metricNames: [String]) -> [(metric: Metric, range: ClosedRange<Double>)?] {
        metricNames.map { name in
            guard let metric = Metric.named(name), let range = Normalizer.plausibleRange(of: metric.unit) else {
                return nil
            }
            return (metric, range)
        }
    }

    /// Throws `APIError.unreadable` naming the first value outside its metric's bounds.
    static func check(
        _ value: Double?, _ bound: (metric: Metric, range: ClosedRange<Double>)?, what: String, path: String
    ) throws {
        guard let value, let bound, value.isFinite, !bound.range.contains(value),
            let reason = Normalizer.implausibility(of: value, for: bound.metric)
        else { return }
        throw APIError.unreadable(
            "\(bound.metric.title) \(value) in \(what) from \(path) cannot be (\(reason)); nothing of it was shown or kept"
        )
    }
}

extension StatDataPage {
    /// Checks every row's values and the totals against the bounds of `metricNames` (the request's,
    /// else the answer's own query echo, as for a preset).
    func checkPlausible(metricNames: [String], path: String) throws {
        let bounds = PlausibleValues.bounds(for: metricNames.isEmpty ? queryMetrics : metricNames)
        guard bounds.contains(where: { $0 != nil }) else { return }
        for (index, total) in totals.enumerated() where index < bounds.count {
            try PlausibleValues.check(total, bounds[index], what: "the totals", path: path)
        }
        for row in 0..<table.count {
            for (position, value) in table.metricValues(of: row).enumerated() where position < bounds.count {
                try PlausibleValues.check(value, bounds[position], what: "a row", path: path)
            }
        }
    }
}

extension StatByTime {
    /// The same for a by-time answer's totals of each period.
    func checkPlausible(metricNames: [String], path: String) throws {
        let bounds = PlausibleValues.bounds(for: metricNames)
        for (index, periods) in totals.enumerated() where index < bounds.count {
            for value in periods {
                try PlausibleValues.check(value, bounds[index], what: "the period totals", path: path)
            }
        }
    }
}
