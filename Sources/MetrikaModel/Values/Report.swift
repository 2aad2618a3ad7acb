/// A normalized report: what `metrika report` shows, independent of how it is rendered.
package struct Report: Sendable {
    /// One counter's part of the report.
    package struct Section: Sendable {
        package var counter: Counter
        package var rows: [Row]
        /// Totals over the whole filtered set, from the API (or from history with correct weighting);
        /// nil entries where no correct total exists (e.g. users offline).
        package var totals: [Quantity]
        package var sampling: Sampling?
        /// Days asked for that neither the API nor the history could supply (offline reports).
        package var missingDays: [Day]

        package init(
            counter: Counter, rows: [Row], totals: [Quantity], sampling: Sampling? = nil, missingDays: [Day] = []
        ) {
            self.counter = counter
            self.rows = rows
            self.totals = totals
            self.sampling = sampling
            self.missingDays = missingDays
        }
    }

    /// One row: its dimension values (a date for time series) and its metric values.
    package struct Row: Sendable {
        package var dimensions: [DimensionValue]
        package var values: [Quantity]
        /// True for the current, still-changing period (today, this week, this month).
        package var isIncomplete: Bool
        /// The days a time-series row covers (one day, a week, a month); nil in dimension reports.
        package var period: DateRange?
        /// With `--compare`: the same days of the previous period; nil without it.
        package var previous: Previous?
        /// With `--compare` of a dimension report: whether the row's value had visits in both
        /// periods, or only in the current one (`new`) or the previous one (`gone`); nil otherwise.
        package var presence: Presence?

        package init(
            dimensions: [DimensionValue], values: [Quantity], isIncomplete: Bool = false, period: DateRange? = nil,
            previous: Previous? = nil
        ) {
            self.dimensions = dimensions
            self.values = values
            self.isIncomplete = isIncomplete
            self.period = period
            self.previous = previous
        }
    }

    /// Where a compared dimension row was found: in both periods, only in the current one, only in
    /// the previous one (its current values are then zero or unknown, never a fall of 100% to read
    /// as news of its own).
    package enum Presence: String, Sendable {
        case both, new, gone
    }

    /// What a row or a section's totals are compared with (`--compare`): the days of the previous
    /// period and their values, aligned with the metrics; nil values where unknown (never zero).
    package struct Previous: Sendable, Equatable {
        package var period: DateRange
        package var values: [Quantity]
        /// Set when the current period ends today: the last day of both periods counts its hours
        /// `00:00` to this one only (today's finished hours, like for like); nil: whole days.
        package var lastDayHours: Int?

        package init(period: DateRange, values: [Quantity], lastDayHours: Int? = nil) {
            self.period = period
            self.values = values
            self.lastDayHours = lastDayHours
        }

        /// `00:00–16:00`: the hours of the last days, when cut.
        package var hoursText: String? {
            lastDayHours.map { "00:00–" + ($0 < 10 ? "0\($0)" : "\($0)") + ":00" }
        }

        /// What is compared with what: `against 2026-11-23 … 2026-11-29` for whole days;
        /// `today 00:00–16:00 vs Mon 2026-11-23 00:00–16:00` (a period ending today: its last day by
        /// its finished hours, the first days whole: `2026-11-24 … today 00:00–16:00 vs …`).
        package func comparedText(current: DateRange) -> String {
            guard let hours = hoursText else { return "against \(period.from.iso) … \(period.to.iso)" }
            func side(_ range: DateRange, last: String) -> String {
                range.dayCount == 1 ? "\(last) \(hours)" : "\(range.from.iso) … \(last) \(hours)"
            }
            let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
            let before = "\(weekdays[period.to.weekday - 1]) \(period.to.iso)"
            return side(current, last: "today") + " vs " + side(period, last: before)
        }

        /// The change of each metric from these values to `current`.
        package func changes(to current: [Quantity]) -> [Change] {
            current.indices.map { index in
                index < values.count ? Change(from: values[index], to: current[index]) : .missing
            }
        }
    }

    package var dimensions: [Dimension]
    package var metrics: [Metric]
    package var period: DateRange
    /// The grouping of a time-series report; nil for a dimension report.
    package var grouping: Grouping?
    package var sections: [Section]

    package init(
        dimensions: [Dimension], metrics: [Metric], period: DateRange, grouping: Grouping?, sections: [Section]
    ) {
        self.dimensions = dimensions
        self.metrics = metrics
        self.period = period
        self.grouping = grouping
        self.sections = sections
    }
}

/// Whether and how much an answer was sampled: the numbers are estimates when it was.
package struct Sampling: Hashable, Sendable {
    package var isSampled: Bool
    /// 0…1.
    package var share: Double
    package var sampleSize: Double?
    package var sampleSpace: Double?

    package init(isSampled: Bool, share: Double, sampleSize: Double? = nil, sampleSpace: Double? = nil) {
        self.isSampled = isSampled
        self.share = share
        self.sampleSize = sampleSize
        self.sampleSpace = sampleSpace
    }
}

/// A daily series of one metric of one counter, for charts. Missing days are nil, never zero.
package struct Series: Sendable {
    package var counter: Counter
    package var metric: Metric
    package var points: [(day: Day, value: Double?)]
    /// The first day that is still incomplete (today), if the series reaches it.
    package var incompleteFrom: Day?

    package init(counter: Counter, metric: Metric, points: [(day: Day, value: Double?)], incompleteFrom: Day? = nil) {
        self.counter = counter
        self.metric = metric
        self.points = points
        self.incompleteFrom = incompleteFrom
    }
}
