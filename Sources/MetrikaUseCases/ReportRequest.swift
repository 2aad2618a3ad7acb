import MetrikaModel
import MetrikaRender

/// A report as the user asked for it, validated in its initializer before any request: which
/// counters, which days, which columns and where the values come from. An impossible combination
/// (`--compare` of a dimension report, `--limit` of a time series, `--currency` without money) is
/// refused there, with the usage error that names the option, whoever builds the request. How it
/// is printed (table, CSV, JSON) is the CLI's.
package struct ReportRequest: Sendable {
    package let counterIDs: [Int]
    package let from: DateExpression
    package let to: DateExpression
    /// `--period`, when the dates came from it.
    package let period: NamedPeriod?
    /// The grouping asked for; nil when none was (by day; a dimension report then has nothing to
    /// say about a grouping it cannot cut).
    package let requestedGrouping: Grouping?
    /// The metrics asked for; nil means the default (see `DefaultMetrics`).
    package let metrics: [Metric]?
    package let dimensions: [MetrikaModel.Dimension]
    package let preset: String?
    package let filters: String?
    package let sort: String?
    /// Rows of a dimension report as asked for, within `limitRange`; nil when not asked for (100
    /// rows, and a time series straight from the API gets a row per day).
    package let requestedLimit: Int?
    package let lang: String?
    package let accuracy: String
    package let offline: Bool
    package let refresh: Bool
    package let raw: Bool
    /// Every value beside the previous period's and the change (an HTML page's summary turns it on
    /// for a time series: `withComparison()`).
    package private(set) var compare: Bool
    package let unsettledDays: Int
    /// `--currency`: money metrics in this currency; nil: in each counter's own.
    package let currency: Currency?
    /// `--attribution`: the model of reports by source; nil: the API's default.
    package let attribution: Attribution?

    /// A validated request; throws the `UsageError` of the first thing that cannot be asked for.
    package init(
        counterIDs: [Int], from: DateExpression, to: DateExpression, period: NamedPeriod? = nil, grouping: Grouping? = nil,
        metrics: [Metric]? = nil, dimensions: [MetrikaModel.Dimension] = [], preset: String? = nil, filters: String? = nil,
        sort: String? = nil, limit: Int? = nil, lang: String? = nil, accuracy: String = "full",
        offline: Bool = false, refresh: Bool = false, raw: Bool = false, compare: Bool = false, unsettledDays: Int = 2,
        currency: Currency? = nil, attribution: Attribution? = nil
    ) throws {
        precondition(!counterIDs.isEmpty, "a report request names at least one counter")
        self.counterIDs = counterIDs
        self.from = from
        self.to = to
        self.period = period
        self.requestedGrouping = grouping
        self.metrics = metrics
        self.dimensions = dimensions
        self.preset = preset
        self.filters = filters
        self.sort = sort
        self.requestedLimit = limit
        self.lang = lang
        self.accuracy = accuracy
        self.offline = offline
        self.refresh = refresh
        self.raw = raw
        self.compare = compare
        self.unsettledDays = unsettledDays
        self.currency = currency
        self.attribution = attribution
        try validate()
    }

    /// The checks of `init`, in the order a user meets them.
    private func validate() throws {
        guard dimensions.count <= 10 else {
            let count = dimensions.count
            throw ParameterError(.dimensions, .tooMany(count: count, most: 10)) { "\($0[.dimensions]) lists \(count); the API allows at most 10" }
        }
        if !dimensions.isEmpty, requestedGrouping != nil, !dimensions.contains(where: { $0.apiName == MetrikaModel.Dimension.datePeriodPlaceholder }) {
            let names = dimensions.map(\.shortName).joined(separator: ",")
            throw ParameterError(.group, .contradicts([.dimensions])) {
                "\($0[.group]) applies to time-series reports (and to \($0[.dimensions]) ym:s:datePeriod<group>); it cannot be combined with \($0[.dimensions]) \(names)"
            }
        }
        if let requestedLimit, !Self.limitRange.contains(requestedLimit) {
            throw ParameterError(.limit, .outOfRange(value: String(requestedLimit), allowed: Self.limitRange)) {
                "\($0[.limit]) must be a whole number from \(Self.limitRange.lowerBound) to \(Self.limitRange.upperBound), not '\(requestedLimit)'"
            }
        }
        // Limit, sort and lang shape dimension rows; where they would change nothing they are
        // refused, one line each, rather than silently ignored.
        if usesHistory, requestedLimit != nil {
            let grouping = grouping
            throw ParameterError(.limit, .notApplicable) {
                "\($0[.limit]) applies to dimension reports (\($0[.dimensions]) or \($0[.preset])); a time series has one row per \(grouping.rawValue): choose the days with \($0.alternatives(.from, .to)) or \($0[.period])"
            }
        }
        if usesHistory, sort != nil {
            throw ParameterError(.sort, .notApplicable) { "\($0[.sort]) applies to dimension reports (\($0[.dimensions]) or \($0[.preset])); a time series is always in date order" }
        }
        if dimensions.isEmpty, preset == nil, lang != nil {
            throw ParameterError(.lang, .notApplicable) { "\($0[.lang]) sets the language of dimension names (\($0[.dimensions]) or \($0[.preset])); this report has none" }
        }
        if compare && !usesHistory {
            throw ParameterError(.compare, .contradicts([.dimensions, .preset, .filters, .accuracy])) {
                "\($0[.compare]) works for time-series reports only (no \($0[.dimensions]), \($0[.preset]), \($0[.filters]) or \($0[.accuracy])): they come from the history, where the previous period costs at most one request"
            }
        }
        if offline && !usesHistory {
            throw ParameterError(.offline, .contradicts([.dimensions, .preset, .filters, .accuracy])) {
                "\($0[.offline]) works for time-series reports only: the history keeps daily totals, not \($0[.dimensions]), \($0[.preset]), \($0[.filters]) or sampled answers"
            }
        }
        try Self.refuseCurrencyWithoutMoney(currency, metrics: tableMetrics, preset: preset)
        if attribution != nil, dimensions.isEmpty, preset == nil {
            throw ParameterError(.attribution, .notApplicable) {
                "\($0[.attribution]) decides which source a visit or purchase is credited to: it applies to reports by source (\($0[.dimensions]), \($0[.preset])); daily totals are the same under every model"
            }
        }
        if !usesHistory, dimensions.isEmpty, preset == nil, grouping != .day {
            let grouping = grouping
            throw ParameterError(.group, .contradicts([.filters, .accuracy])) {
                "\($0[.group]) \(grouping.rawValue) with \($0[.filters]) or \($0[.accuracy]) is not supported yet; use \($0[.group]) day"
            }
        }
    }

    /// A currency where no column is money would change nothing: refused, like the other
    /// parameters that would be silently ignored (report, chart, mail). A preset's columns are the
    /// API's to say, so it may be money.
    package static func refuseCurrencyWithoutMoney(_ currency: Currency?, metrics: [Metric], preset: String? = nil) throws {
        guard currency != nil, preset == nil, !metrics.contains(where: { $0.unit == .money }) else { return }
        throw ParameterError(.currency, .notApplicable) {
            "\($0[.currency]) applies to money metrics (revenue, revenuePerPurchase, revenuePerVisit, goal<ID>revenue, basketValue, productRevenue); these metrics have none"
        }
    }

    /// The same request with the previous period beside each value (a time series' HTML page
    /// shows the changes in its summary).
    package func withComparison() -> ReportRequest {
        var copy = self
        copy.compare = true
        return copy
    }

    /// The grouping of rows: as asked, else by day.
    package var grouping: Grouping { requestedGrouping ?? .day }

    /// Rows of a dimension report: as asked, else 100.
    package var limit: Int { requestedLimit ?? 100 }

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
