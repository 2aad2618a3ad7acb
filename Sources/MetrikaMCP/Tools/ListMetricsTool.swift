import MetrikaModel
import MetrikaRender

/// `list_metrics`: the names get_report, check_alerts and draw_chart take, from metrika's own
/// catalogue (`Metric.known`, `Dimension.known`, the templates of docs/reports.md): short names,
/// units, whether a metric adds up over days, and the presets with what they show. No request: a
/// model learns the names here instead of from an error.
enum ListMetricsTool {
    /// A report template: what its rows are and what its columns show.
    struct Preset {
        var name: String
        var rows: String
        var shows: String
    }

    /// The templates metrika gives human columns to (docs/reports.md); any other of the API's ~90
    /// is passed through by name.
    static let presets: [Preset] = [
        Preset(
            name: "traffic", rows: "date period (group day, week or month)",
            shows: "visits, users, pageviews, percentNewVisitors, bounceRate, pageDepth, avgVisitDuration"),
        Preset(
            name: "sources_summary", rows: "traffic source, then search engine or site",
            shows: "visits, users, bounceRate, pageDepth, avgVisitDuration"),
        Preset(
            name: "sources_search_phrases", rows: "search phrase",
            shows: "visits, users, bounceRate, pageDepth, avgVisitDuration"),
        Preset(
            name: "search_engines", rows: "search engine",
            shows: "visits, users, bounceRate, pageDepth, avgVisitDuration"),
        Preset(name: "geo_country", rows: "country", shows: "visits, users, bounceRate, pageDepth, avgVisitDuration"),
        Preset(
            name: "tech_platforms", rows: "operating system",
            shows: "visits, users, bounceRate, pageDepth, avgVisitDuration"),
        Preset(name: "tech_browsers", rows: "browser", shows: "visits, users, bounceRate, pageDepth, avgVisitDuration"),
        Preset(
            name: "tech_devices", rows: "device category",
            shows: "visits, users, bounceRate, pageDepth, avgVisitDuration"),
        Preset(
            name: "purchase", rows: "traffic source under the attribution model",
            shows: "visits, purchases, revenue, revenuePerVisit, revenuePerPurchase (e-commerce)"),
        Preset(
            name: "top_products", rows: "product",
            shows:
                "productImpressions (item views), productImpressionsUniq, productBasketsQuantity, productPurchasedQuantity (e-commerce)"
        ),
        Preset(
            name: "top_brands", rows: "category, brand, product", shows: "the four columns of top_products (e-commerce)"
        ),
        Preset(
            name: "basket", rows: "product",
            shows: "productBasketsQuantity, productBasketsUniq, basketValue, productPurchasedQuantity (e-commerce)"),
        Preset(
            name: "basket_products", rows: "product",
            shows: "productPurchasedQuantity, productRevenue, productPurchasedUniq (e-commerce)")
    ]

    static let spec = ToolSpec(
        name: "list_metrics",
        title: "Metrics, dimensions and report templates",
        description: """
            The names get_report, check_alerts and draw_chart take: each metric's short name, unit (count, percent 0–100, seconds, \
            pages_per_visit, money, number) and how it adds up over days (sum; weighted by visits; never summed, such as users); \
            the goal metrics goal<ID>reaches, goal<ID>conversionRate, goal<ID>revenue (ids from list_goals); the dimensions; and the \
            report templates (preset) with what their rows are and what they show. Rows come in the API's order unless sort is \
            given. Quota: none, metrika answers from its own catalogue. Example: {}.
            """,
        arguments: [],
        outputSchema: schema(
            "object",
            properties: [
                (
                    "metrics",
                    schema(
                        "array", "name, unit, over_days (sum, weighted, never_summed), title", items: schema("object"))
                ),
                (
                    "goal_metrics",
                    schema(
                        "array", "patterns: goal<ID>reaches, goal<ID>conversionRate, goal<ID>revenue",
                        items: schema("string"))
                ),
                ("dimensions", schema("array", "name, title", items: schema("object"))),
                ("presets", schema("array", "name, rows, shows", items: schema("object"))),
                ("notes", schema("array", "The goal metrics' units, money's currency", items: schema("string")))
            ], required: ["metrics", "dimensions", "presets"]),
        openWorld: false)

    /// How a metric's days make a period: summed, or weighted (the period's value is a ratio of
    /// sums), or never summed (unique people: only the API's own period total is right).
    static func overDays(_ aggregation: Aggregation) -> String {
        switch aggregation {
        case .sum: return "sum"
        case .visitWeighted, .pageviewsPerVisit, .revenuePerPurchase, .revenuePerVisit: return "weighted"
        case .nonAdditive: return "never_summed"
        }
    }

    static func run() -> MCPToolResult {
        let metrics = Metric.known
        let dimensions =
            Dimension.known
            + ["day", "week", "month", "quarter", "year", "hour"].compactMap { Dimension.datePeriod($0) }
        let goals = ["goal<ID>reaches", "goal<ID>conversionRate", "goal<ID>revenue"]
        var text = "Metrics (name · unit · over days):\n"
        for metric in metrics {
            text += "\(metric.shortName) · \(metric.unit.rawValue) · \(overDays(metric.aggregation))\n"
        }
        let goalUnits =
            "Goal metrics: goal<ID>reaches · count · sum; goal<ID>conversionRate · percent · weighted; goal<ID>revenue · money · sum (ids from list_goals)."
        text += goalUnits + "\n"
        let money = "Money metrics are in the counter's currency unless currency is given."
        text += money + "\n"
        text += "Dimensions: " + dimensions.map(\.shortName).joined(separator: ", ") + "\n"
        text += "Presets (rows · shows):\n"
        for preset in presets { text += "\(preset.name) · \(preset.rows) · \(preset.shows)\n" }
        let document = JSONValue.object([
            (
                "metrics",
                .array(
                    metrics.map { metric in
                        .object([
                            ("name", .string(metric.shortName)), ("unit", .string(metric.unit.rawValue)),
                            ("over_days", .string(overDays(metric.aggregation))), ("title", .string(metric.title))
                        ])
                    })
            ),
            ("goal_metrics", .array(goals.map { .string($0) })),
            (
                "dimensions",
                .array(dimensions.map { .object([("name", .string($0.shortName)), ("title", .string($0.title))]) })
            ),
            (
                "presets",
                .array(
                    presets.map {
                        .object([("name", .string($0.name)), ("rows", .string($0.rows)), ("shows", .string($0.shows))])
                    })
            ),
            // The goal metrics' units and how they add up, which goal_metrics' names do not say.
            ("notes", .array([.string(goalUnits), .string(money)]))
        ])
        return MCPToolResult(content: [.text(text)], structuredContent: document)
    }
}
