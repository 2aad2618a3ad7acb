import MetrikaModel
import MetrikaRender

/// A report as the user asked for it, validated in its initializer before any request: which
/// counters, which days, which columns and where the values come from. An impossible combination
/// (`--compare` of a preset, `--limit` of a time series, `--currency` without money) is
/// refused there, with the usage error that names the option, whoever builds the request. How it
/// is printed (table, CSV, JSON) is the CLI's.
@dynamicMemberLookup
package struct ReportRequest: Sendable {
    /// The parameters as given (see `ReportFields`, where each is declared): `request.lang`,
    /// `request.metrics`… read them. A new parameter is a declared field, with nothing to add here
    /// but the checks of how it combines.
    package private(set) var fields: ReportFields
    package let from: DateExpression
    package let to: DateExpression
    /// The named period, when the dates came from one.
    package let period: NamedPeriod?

    package subscript<Value>(dynamicMember keyPath: KeyPath<ReportFields, Value>) -> Value { fields[keyPath: keyPath] }

    /// The request the fields mean, the dates read as `ReportDates` reads them (`defaultFrom` when
    /// none are given): the dates first, then every combination, in the order a user meets them.
    /// A comparison with no dates given compares the last 7 whole days (7daysAgo … yesterday), not
    /// the default 6daysAgo … today: whole days against whole days unless today is asked for (then
    /// its finished hours against the same hours: `Comparison.finishedHoursToday`).
    package init(_ fields: ReportFields, defaultFrom: String = "6daysAgo") throws {
        let wholeDays = fields.compare && fields.from == nil && fields.to == nil && fields.period == nil
        let dates = try ReportDates.parse(
            from: fields.from ?? (wholeDays ? "7daysAgo" : nil), to: fields.to ?? (wholeDays ? "yesterday" : nil),
            period: fields.period, defaultFrom: defaultFrom)
        try self.init(fields, dates: dates)
    }

    /// The request of fields whose dates are already read.
    package init(_ fields: ReportFields, dates: ReportDates) throws {
        precondition(
            !fields.counterIDs.isEmpty || fields.allCounters, "a report request names at least one counter, or all")
        self.fields = fields
        self.from = dates.from
        self.to = dates.to
        self.period = dates.period
        try validate()
    }

    /// The grouping asked for; nil when none was (by day; a dimension report then has nothing to
    /// say about a grouping it cannot cut).
    package var requestedGrouping: Grouping? { fields.group }
    /// Rows of a dimension report as asked for, within `limitRange`; nil when not asked for (100
    /// rows, and a time series straight from the API gets a row per day).
    package var requestedLimit: Int? { fields.limit }

    /// The checks of `init`, in the order a user meets them.
    private func validate() throws {
        if fields.allCounters { return try validatePortfolio() }
        guard fields.dimensions.count <= 10 else {
            let count = fields.dimensions.count
            throw ParameterError(.dimensions, .tooMany(count: count, most: 10)) {
                "\($0[.dimensions]) lists \(count); the API allows at most 10"
            }
        }
        if !fields.dimensions.isEmpty, requestedGrouping != nil,
            !fields.dimensions.contains(where: { $0.apiName == MetrikaModel.Dimension.datePeriodPlaceholder })
        {
            let names = fields.dimensions.map(\.shortName).joined(separator: ",")
            throw ParameterError(.group, .contradicts([.dimensions])) {
                "\($0[.group]) applies to time-series reports (and to \($0[.dimensions]) ym:s:datePeriod<group>); it cannot be combined with \($0[.dimensions]) \(names)"
            }
        }
        if let requestedLimit, !Self.limitRange.contains(requestedLimit) {
            throw ParameterError(.limit, .outOfRange(value: String(requestedLimit), allowed: Self.limitRange)) {
                "\($0[.limit]) must be a whole number from \(Self.limitRange.lowerBound) to \(Self.limitRange.upperBound), not '\(requestedLimit)'"
            }
        }
        // Limit, fields.sort and fields.lang shape dimension rows; where they would change nothing they are
        // refused, one line each, rather than silently ignored.
        if usesHistory, requestedLimit != nil {
            let grouping = grouping
            throw ParameterError(.limit, .notApplicable) {
                "\($0[.limit]) applies to dimension reports (\($0[.dimensions]) or \($0[.preset])); a time series has one row per \(grouping.rawValue): choose the days with \($0.alternatives(.from, .to)) or \($0[.period])"
            }
        }
        if usesHistory, fields.sort != nil {
            throw ParameterError(.sort, .notApplicable) {
                "\($0[.sort]) applies to dimension reports (\($0[.dimensions]) or \($0[.preset])); a time series is always in date order"
            }
        }
        if fields.dimensions.isEmpty, fields.preset == nil, fields.lang != nil {
            throw ParameterError(.lang, .notApplicable) {
                "\($0[.lang]) sets the language of dimension names (\($0[.dimensions]) or \($0[.preset])); this report has none"
            }
        }
        if fields.compare, fields.preset != nil {
            throw ParameterError(.compare, .contradicts([.preset])) {
                "\($0[.compare]) works for time series and \($0[.dimensions]) reports, not \($0[.preset]): name the \($0[.dimensions]) and \($0[.metrics]) to compare"
            }
        }
        if fields.compare, !usesHistory, fields.dimensions.isEmpty {
            throw ParameterError(.compare, .contradicts([.filters, .accuracy])) {
                "\($0[.compare]) of a time series works from the history, without \($0[.filters]) or sampled \($0[.accuracy]); add \($0[.dimensions]) to compare filtered or sampled rows"
            }
        }
        if fields.compare,
            let dated = fields.dimensions.first(where: { $0.isDatePeriod || $0 == MetrikaModel.Dimension.date })
        {
            throw ParameterError(.compare, .contradicts([.dimensions])) {
                "\($0[.compare]) sets each row against the same value in the previous period; \($0[.dimensions]) \(dated.shortName) has other values there: leave it out (a time series compares day by day)"
            }
        }
        if fields.offline && !usesHistory {
            throw ParameterError(.offline, .contradicts([.dimensions, .preset, .filters, .accuracy])) {
                "\($0[.offline]) works for time-series reports only: the history keeps daily totals, not \($0[.dimensions]), \($0[.preset]), \($0[.filters]) or sampled answers"
            }
        }
        try Self.refuseCurrencyWithoutMoney(fields.currency, metrics: tableMetrics, preset: fields.preset)
        if fields.attribution != nil, fields.dimensions.isEmpty, fields.preset == nil {
            throw ParameterError(.attribution, .notApplicable) {
                "\($0[.attribution]) decides which source a visit or purchase is credited to: it applies to reports by source (\($0[.dimensions]), \($0[.preset])); daily totals are the same under every model"
            }
        }
        if !usesHistory, fields.dimensions.isEmpty, fields.preset == nil, grouping != .day {
            let grouping = grouping
            throw ParameterError(.group, .contradicts([.filters, .accuracy])) {
                "\($0[.group]) \(grouping.rawValue) with \($0[.filters]) or \($0[.accuracy]) is not supported yet; use \($0[.group]) day"
            }
        }
    }

    /// The portfolio (`--counter all`) has its own columns and rows: the period's totals of the
    /// everyday metrics, one row per counter, from the history. What would shape another report is
    /// refused, naming the parameter.
    private func validatePortfolio() throws {
        if !fields.counterIDs.isEmpty {
            throw ParameterError(.counter, .malformed(value: "all")) {
                "\($0[.counter]) all means every counter: give it alone, not with counter ids"
            }
        }
        let shaping: [(Parameter, Bool)] = [
            (.metrics, fields.metrics != nil), (.dimensions, !fields.dimensions.isEmpty),
            (.preset, fields.preset != nil),
            (.filters, fields.filters != nil), (.group, fields.group != nil), (.sort, fields.sort != nil),
            (.lang, fields.lang != nil), (.accuracy, fields.accuracy != "full"), (.currency, fields.currency != nil),
            (.attribution, fields.attribution != nil)
        ]
        if let (parameter, _) = shaping.first(where: \.1) {
            throw ParameterError(parameter, .contradicts([.counter])) {
                "\($0[parameter]) does not apply to \($0[.counter]) all: the portfolio has one row per counter with the period's visits, pageviews, users, bounce rate, page depth and time on site"
            }
        }
        if let requestedLimit, !Self.limitRange.contains(requestedLimit) {
            throw ParameterError(.limit, .outOfRange(value: String(requestedLimit), allowed: Self.limitRange)) {
                "\($0[.limit]) must be a whole number from \(Self.limitRange.lowerBound) to \(Self.limitRange.upperBound), not '\(requestedLimit)'"
            }
        }
    }

    /// A currency where no column is money would change nothing: refused, like the other
    /// parameters that would be silently ignored (report, chart, mail). A preset's columns are the
    /// API's to say, so it may be money.
    package static func refuseCurrencyWithoutMoney(_ currency: Currency?, metrics: [Metric], preset: String? = nil)
        throws
    {
        guard currency != nil, preset == nil, !metrics.contains(where: { $0.unit == .money }) else { return }
        throw ParameterError(.currency, .notApplicable) {
            "\($0[.currency]) applies to money metrics (revenue, revenuePerPurchase, revenuePerVisit, goal<ID>revenue, basketValue, productRevenue); these metrics have none"
        }
    }

    /// The same request with the previous period beside each value (a time series' HTML page
    /// shows the changes in its summary).
    /// With today in the period no changes are shown rather than a partial day against a whole one
    /// (`comparesForSummary`).
    package func withComparison() -> ReportRequest {
        var copy = self
        if !copy.fields.compare { copy.comparesForSummary = true }
        copy.fields.compare = true
        return copy
    }

    /// The comparison was not asked for but added for a summary (`withComparison`): where it cannot
    /// be like for like it is left out, not refused.
    package private(set) var comparesForSummary = false

    /// The grouping of rows: as asked, else by day.
    package var grouping: Grouping { requestedGrouping ?? .day }

    /// Rows of a dimension report: as asked, else 100.
    package var limit: Int { requestedLimit ?? 100 }

    /// What `--limit` accepts: up to 500 pages of 20,000 rows.
    package static let limitRange = 1...10_000_000

    /// Whether the history database serves this report.
    package var usesHistory: Bool {
        fields.dimensions.isEmpty && fields.preset == nil && fields.filters == nil && fields.accuracy == "full"
    }

    /// The `group=` of a direct report: sent with a preset (`traffic` is by `ym:s:datePeriod<group>`)
    /// or a `ym:s:datePeriod<group>` dimension, so the API fills the period in as `--group` says.
    package var apiGroup: String? {
        fields.preset != nil || fields.dimensions.contains(where: \.isDatePeriod) ? grouping.rawValue : nil
    }

    /// The metrics of the table: the asked ones, else the default (a preset brings its own).
    /// Money metrics are in `--currency` when given (else still in the counter's own: see
    /// `HistoryLoader.inCurrency` and the answer's `query.currency`).
    package var tableMetrics: [Metric] {
        let chosen = DefaultMetrics.table(chosen: fields.metrics, preset: fields.preset)
        guard let currency = fields.currency else { return chosen }
        return chosen.map { $0.inCurrency(currency) }
    }

    /// The request as the JSON document's `query` echoes it.
    package func queryEcho(metrics: [Metric], dimensions: [MetrikaModel.Dimension]) -> [(String, JSONValue)] {
        var query: [(String, JSONValue)] = [
            (
                "counters",
                fields.allCounters
                    ? .string(ReportFields.allCountersWord) : .array(fields.counterIDs.map { .number(Double($0)) })
            ),
            ("from", .string(from.description)),
            ("to", .string(to.description))
        ]
        if let period { query.append(("period", .string(period.description))) }
        query += [
            ("metrics", .array(metrics.map { .string($0.apiName) })),
            ("dimensions", .array(dimensions.map { .string($0.apiName) })),
            ("accuracy", .string(fields.accuracy))
        ]
        if usesHistory || dimensions.contains(where: \.isDatePeriod) {
            query.append(("group", .string(grouping.rawValue)))
        }
        if fields.compare { query.append(("compare", .bool(true))) }
        if let preset = fields.preset { query.append(("preset", .string(preset))) }
        if let filters = fields.filters { query.append(("filters", .string(filters))) }
        if let sort = fields.sort { query.append(("sort", .string(sort))) }
        if !usesHistory { query.append(("limit", .number(Double(limit)))) }
        if let lang = fields.lang { query.append(("lang", .string(lang))) }
        if let currency = fields.currency { query.append(("currency", .string(currency.code))) }
        if let attribution = fields.attribution { query.append(("attribution", .string(attribution.apiValue))) }
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
