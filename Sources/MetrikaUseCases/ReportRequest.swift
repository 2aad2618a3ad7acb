import MetrikaModel
import MetrikaRender

/// A report as the user asked for it, validated before any request: which counters, which days,
/// which columns and where the values come from. How it is printed (table, CSV, JSON) is the CLI's.
package struct ReportRequest: Sendable {
    package var counterIDs: [Int]
    package var from: DateExpression
    package var to: DateExpression
    /// `--period`, when the dates came from it.
    package var period: NamedPeriod?
    package var grouping: Grouping
    /// The metrics asked for; nil means the default (see `DefaultMetrics`).
    package var metrics: [Metric]?
    package var dimensions: [MetrikaModel.Dimension]
    package var preset: String?
    package var filters: String?
    package var sort: String?
    /// Rows of a dimension report, validated against `limitRange`.
    package var limit: Int
    /// Whether the limit was given (a time series straight from the API otherwise gets a row per day).
    package var limitGiven: Bool
    package var lang: String?
    package var accuracy: String
    package var offline: Bool
    package var refresh: Bool
    package var raw: Bool
    /// Every value beside the previous period's and the change.
    package var compare: Bool
    package var unsettledDays: Int
    /// Whether `--group` was given (not the default day): a dimension report says when it has no
    /// date period for the grouping to cut.
    package var groupingGiven = false
    /// `--currency`: money metrics in this currency; nil: in each counter's own.
    package var currency: Currency?
    /// `--attribution`: the model of reports by source; nil: the API's default.
    package var attribution: Attribution?

    package init(
        counterIDs: [Int], from: DateExpression, to: DateExpression, period: NamedPeriod? = nil, grouping: Grouping = .day,
        metrics: [Metric]? = nil, dimensions: [MetrikaModel.Dimension] = [], preset: String? = nil, filters: String? = nil,
        sort: String? = nil, limit: Int = 100, limitGiven: Bool = false, lang: String? = nil, accuracy: String = "full",
        offline: Bool = false, refresh: Bool = false, raw: Bool = false, compare: Bool = false, unsettledDays: Int = 2,
        currency: Currency? = nil, attribution: Attribution? = nil
    ) {
        self.counterIDs = counterIDs
        self.from = from
        self.to = to
        self.period = period
        self.grouping = grouping
        self.metrics = metrics
        self.dimensions = dimensions
        self.preset = preset
        self.filters = filters
        self.sort = sort
        self.limit = limit
        self.limitGiven = limitGiven
        self.lang = lang
        self.accuracy = accuracy
        self.offline = offline
        self.refresh = refresh
        self.raw = raw
        self.compare = compare
        self.unsettledDays = unsettledDays
        self.currency = currency
        self.attribution = attribution
    }

    /// What `--limit` accepts: up to 500 pages of 20,000 rows.
    package static let limitRange = 1...10_000_000

    /// Whether the history database serves this report.
    package var usesHistory: Bool { dimensions.isEmpty && preset == nil && filters == nil && accuracy == "full" }

    /// The `group=` of a direct report: sent with a preset (`traffic` is by `ym:s:datePeriod<group>`)
    /// or a `ym:s:datePeriod<group>` dimension, so the API fills the period in as `--group` says.
    package var apiGroup: String? {
        preset != nil || dimensions.contains(where: \.isDatePeriod) ? grouping.rawValue : nil
    }

    /// The metrics of the table: the asked ones, else the default (a preset brings its own).
    /// Money metrics are in `--currency` when given (else still in the counter's own: see
    /// `HistoryLoader.inCurrency` and the answer's `query.currency`).
    package var tableMetrics: [Metric] {
        let chosen = DefaultMetrics.table(chosen: metrics, preset: preset)
        guard let currency else { return chosen }
        return chosen.map { $0.inCurrency(currency) }
    }

    /// The request as the JSON document's `query` echoes it.
    package func queryEcho(metrics: [Metric], dimensions: [MetrikaModel.Dimension]) -> [(String, JSONValue)] {
        var query: [(String, JSONValue)] = [
            ("counters", .array(counterIDs.map { .number(Double($0)) })),
            ("from", .string(from.description)),
            ("to", .string(to.description)),
        ]
        if let period { query.append(("period", .string(period.description))) }
        query += [
            ("metrics", .array(metrics.map { .string($0.apiName) })),
            ("dimensions", .array(dimensions.map { .string($0.apiName) })),
            ("accuracy", .string(accuracy)),
        ]
        if usesHistory || dimensions.contains(where: \.isDatePeriod) { query.append(("group", .string(grouping.rawValue))) }
        if compare { query.append(("compare", .bool(true))) }
        if let preset { query.append(("preset", .string(preset))) }
        if let filters { query.append(("filters", .string(filters))) }
        if let sort { query.append(("sort", .string(sort))) }
        if !usesHistory { query.append(("limit", .number(Double(limit)))) }
        if let lang { query.append(("lang", .string(lang))) }
        if let currency { query.append(("currency", .string(currency.code))) }
        if let attribution { query.append(("attribution", .string(attribution.apiValue))) }
        return query
    }
}

/// The one rule for which metrics a report, chart or mail shows when none are asked for.
package enum DefaultMetrics {
    /// Tables: the six everyday metrics, or none of our own for a preset (it brings its columns).
    package static func table(chosen: [Metric]?, preset: String? = nil) -> [Metric] {
        chosen ?? (preset == nil ? Metric.everyday : [])
    }

    /// Charts: visits alone (six lines of four units would be a crowded picture).
    package static func chart(chosen: [Metric]?) -> [Metric] {
        chosen ?? [Metric.visits]
    }
}
