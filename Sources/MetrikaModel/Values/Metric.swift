/// A Reporting API metric with what metrika knows about it: its unit, its column name and how it
/// aggregates.
package struct Metric: Hashable, Sendable, CustomStringConvertible {
    /// The API name, e.g. `ym:s:bounceRate`.
    package let apiName: String
    /// The short name users type, e.g. `bounceRate`.
    package let shortName: String
    /// The snake_case column name of CSV and JSON, e.g. `bounce_rate`.
    package let columnName: String
    /// A human title for table headers and charts.
    package let title: String
    /// The unit the API answers in.
    package let unit: MetricUnit
    /// How daily values combine into a period.
    package let aggregation: Aggregation
    /// A money metric's currency; nil for other units, and for a money metric whose currency is
    /// still the counter's own, not yet known (its `apiName` then holds the API's `<currency>`).
    package let currency: Currency?
    /// A money metric's API name with `<currency>` where the currency goes
    /// (`ym:s:ecommerce<currency>ConvertedRevenue`): how `inCurrency(_:)` names it in another one.
    package let currencyTemplate: String?

    package init(
        apiName: String, shortName: String, columnName: String, title: String, unit: MetricUnit,
        aggregation: Aggregation, currency: Currency? = nil, currencyTemplate: String? = nil
    ) {
        self.apiName = apiName
        self.shortName = shortName
        self.columnName = columnName
        self.title = title
        self.unit = unit
        self.aggregation = aggregation
        self.currency = currency
        self.currencyTemplate = currencyTemplate
    }

    package var description: String { apiName }

    // MARK: - The catalog

    package static let visits = Metric(
        apiName: "ym:s:visits", shortName: "visits", columnName: "visits", title: "Visits", unit: .count,
        aggregation: .sum)
    package static let pageviews = Metric(
        apiName: "ym:s:pageviews", shortName: "pageviews", columnName: "pageviews", title: "Pageviews", unit: .count,
        aggregation: .sum)
    package static let users = Metric(
        apiName: "ym:s:users", shortName: "users", columnName: "users", title: "Users", unit: .count,
        aggregation: .nonAdditive)
    package static let newUsers = Metric(
        apiName: "ym:s:newUsers", shortName: "newUsers", columnName: "new_users", title: "New users", unit: .count,
        aggregation: .sum)
    package static let pageDepth = Metric(
        apiName: "ym:s:pageDepth", shortName: "pageDepth", columnName: "page_depth", title: "Page depth",
        unit: .pagesPerVisit, aggregation: .pageviewsPerVisit)
    package static let avgVisitDuration = Metric(
        apiName: "ym:s:avgVisitDurationSeconds", shortName: "avgVisitDuration", columnName: "avg_visit_duration",
        title: "Time on site", unit: .seconds, aggregation: .visitWeighted)
    package static let bounceRate = Metric(
        apiName: "ym:s:bounceRate", shortName: "bounceRate", columnName: "bounce_rate", title: "Bounce rate",
        unit: .percent, aggregation: .visitWeighted)
    package static let percentNewVisitors = Metric(
        apiName: "ym:s:percentNewVisitors", shortName: "percentNewVisitors", columnName: "percent_new_visitors",
        title: "New visitors", unit: .percent, aggregation: .visitWeighted)
    package static let robotPercentage = Metric(
        apiName: "ym:s:robotPercentage", shortName: "robotPercentage", columnName: "robot_percentage", title: "Robots",
        unit: .percent, aggregation: .visitWeighted)

    /// The six everyday metrics of `metrika report`, in display order.
    package static let everyday: [Metric] = [pageviews, visits, users, pageDepth, avgVisitDuration, bounceRate]

    /// Every metric metrika knows by name.
    package static let known: [Metric] =
        [
            visits, pageviews, users, newUsers, pageDepth, avgVisitDuration, bounceRate, percentNewVisitors,
            robotPercentage,
            purchases, revenue, revenuePerPurchase, revenuePerVisit
        ] + products

    /// Resolves what a user typed: a short name (`bounceRate`), a full name (`ym:s:bounceRate`) or a goal
    /// metric (`goal123reaches`, `ym:s:goal123conversionRate`). Unknown full `ym:` names are passed
    /// through as plain numbers so that any API metric can be asked for; unknown short names are `nil`.
    package static func named(_ text: String) -> Metric? {
        let trimmed = text.trimmingSpaces
        if let metric = known.first(where: {
            $0.shortName.lowercased() == trimmed.lowercased() || $0.apiName == trimmed
        }) {
            return metric
        }
        let bare = trimmed.hasPrefix("ym:s:") ? String(trimmed.dropFirst(5)) : trimmed
        if let goal = goalMetric(bare) { return goal }
        if let money = moneyMetric(trimmed) { return money }
        if trimmed.hasPrefix("ym:"), trimmed.count > 5 {
            let tail = String(trimmed.split(separator: ":").last ?? "")
            // A known metric under another prefix (`ym:pv:pageviews`, `ym:pv:users`) keeps its unit:
            // a count prints as a count, not as `1 000.00`.
            if let metric = known.first(where: { $0.shortName == tail }) {
                return Metric(
                    apiName: trimmed, shortName: metric.shortName, columnName: metric.columnName, title: metric.title,
                    unit: metric.unit, aggregation: metric.aggregation)
            }
            if let goal = goalMetric(tail) {
                return Metric(
                    apiName: trimmed, shortName: goal.shortName, columnName: goal.columnName, title: goal.title,
                    unit: goal.unit, aggregation: goal.aggregation)
            }
            return Metric(
                apiName: trimmed, shortName: tail, columnName: ColumnName.of(trimmed), title: tail,
                unit: unit(ofUnknown: tail), aggregation: .nonAdditive)
        }
        return nil
    }

    /// Counts that are not in the catalog but that the API names plainly.
    static let countNames: Set<String> = [
        "hits", "sumGoalReachesAny", "goalReachesAny", "sumParams", "ecommercePurchases", "productPurchasedUniq"
    ]

    /// The unit of a metric metrika has no entry for, from its name: plain counts, `…Rate`,
    /// `…Percentage` and `percent…` are percents, `…Seconds` are seconds; anything else a number.
    static func unit(ofUnknown tail: String) -> MetricUnit {
        if countNames.contains(tail) { return .count }
        if tail.hasSuffix("Rate") || tail.hasSuffix("Percentage") || tail.hasPrefix("percent") { return .percent }
        if tail.hasSuffix("Seconds") { return .seconds }
        return .number
    }

    private static func goalMetric(_ bare: String) -> Metric? {
        guard bare.hasPrefix("goal") else { return nil }
        let rest = bare.dropFirst(4)
        let digits = rest.prefix(while: \.isASCIIDigitCharacter)
        guard !digits.isEmpty else { return nil }
        let suffix = String(rest.dropFirst(digits.count))
        switch suffix {
        case "reaches":
            return Metric(
                apiName: "ym:s:goal\(digits)reaches", shortName: "goal\(digits)reaches",
                columnName: "goal\(digits)_reaches", title: "Goal \(digits) reaches", unit: .count, aggregation: .sum)
        case "conversionRate":
            return Metric(
                apiName: "ym:s:goal\(digits)conversionRate", shortName: "goal\(digits)conversionRate",
                columnName: "goal\(digits)_conversion_rate", title: "Goal \(digits) conversion", unit: .percent,
                aggregation: .visitWeighted)
        case "revenue":
            return goalRevenue(String(digits), currency: nil)
        default:
            return nil
        }
    }
}

extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}

extension String {
    package var trimmingSpaces: String {
        var view = Substring(self)
        while view.first?.isWhitespace == true { view = view.dropFirst() }
        while view.last?.isWhitespace == true { view = view.dropLast() }
        return String(view)
    }
}
