import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaServices
import MetrikaUseCases

/// `explain_change`: what `metrika explain --json` shows (Render's `ExplanationListing`, without
/// `version`), the headline and tables as its text.
enum ExplainChangeTool {
    static let spec = ToolSpec(
        name: "explain_change",
        title: "Why a metric changed",
        description: """
            Splits a metric's change between a period and its baseline over traffic sources, search engines, UTM sources, \
            devices, start pages and regions, and names the driver in one sentence ("-1 105 visits: Search engine traffic \
            -1 048 (95%, gone)"), or says the change is spread evenly, or that everything stopped. The segments' changes add \
            up to the total exactly; a rate (bounceRate, pageDepth, avgVisitDuration, goal<ID>conversionRate) is split into \
            mix (segments' shares of visits moved) and rate (their own rates moved), and its headline says which it mostly \
            is ("mostly mix", "across the board", or the one segment). users: the day's users as get_report gives them; \
            users counted in several segments are the Overlap row. Period: date (default yesterday) or from/to; never \
            today. against: alert (a day's default: the median of the same weekday of the alert's weeks before, 6 unless \
            the config says otherwise, as check_alerts judges), previous (a range's default) or DATE..DATE. The owner's \
            chart annotations on the period's days are an `annotations` member (absent when none). Quota: one \
            Reporting request per dimension (users: one more) and one Management request, one more for the annotations \
            unless read within the hour. Example: \
            {"counter_id": 1001, "metric": "visits"}.
            """,
        arguments: [
            counterID.argument, metric.argument, date.argument, from.argument, to.argument, against.argument,
            dimensions.argument
        ],
        outputSchema: schema(
            "object",
            properties: [
                ("headline", schema("string")),
                ("change", schema("number")),
                (
                    "dimensions",
                    schema(
                        "array", "per dimension: its segments' value, expected, change (adding up to change), share",
                        items: schema("object"))
                ),
                AnnotationMember.schemaMember
            ], required: ["headline", "dimensions"]))

    static let counterID = TypedToolArgument<Int>(
        ToolArgument(
            "counter_id", .integer, "The counter (see list_counters).", required: true, minimum: 1,
            maximum: Int(Int32.max)))
    static let metric = TypedToolArgument<String>(
        ToolArgument(
            "metric", .string,
            "visits (default), pageviews, users, purchases, revenue, goal<ID>reaches, bounceRate, "
                + "goal<ID>conversionRate, pageDepth or avgVisitDuration.",
            maxLength: 100))
    static let date = TypedToolArgument<String>(
        ToolArgument("date", .string, "The day: YYYY-MM-DD, yesterday, NdaysAgo (default yesterday).", maxLength: 40))
    static let from = TypedToolArgument<String>(
        ToolArgument("from", .string, "First day of a range (with to).", maxLength: 40))
    static let to = TypedToolArgument<String>(
        ToolArgument("to", .string, "Last day of a range (with from).", maxLength: 40))
    static let against = TypedToolArgument<String>(
        ToolArgument("against", .string, "alert, previous or DATE..DATE.", maxLength: 100))

    /// A list of names, as get_report's dimensions are, or the comma-separated text of `--dimensions`.
    static let dimensions = TypedToolArgument<String>(
        {
            var argument = ToolArgument(
                "dimensions", .names,
                "At most 8, as a list or comma-separated text: trafficSource, searchEngine, UTMSource, deviceCategory, startURL, region, regionCountry, regionCity.",
                maxLength: 400, maxItems: 8)
            argument.example = #"["trafficSource", "deviceCategory"] or "trafficSource,deviceCategory""#
            return argument
        }())

    static func run(_ arguments: ToolArguments, services: any RunServices) async throws -> MCPToolResult {
        let client = try await services.client()
        let request = try await Explain.request(
            counterID: arguments[counterID] ?? 0, metric: arguments[metric], date: arguments[date],
            from: arguments[from], to: arguments[to], against: arguments[against],
            dimensions: arguments[dimensions], client: client, now: services.now(),
            weeks: try services.alertSettings().weeks)
        let loader = try await services.historyLoader(offline: false)
        let listing = try await Explain.run(
            request, client: client, history: SegmentHistory(loader, today: request.today)
        ).listing
        // The owner's chart annotations on the explained day(s): context, absent when none or unreadable.
        let notes = await AnnotationMember.read(
            counters: [request.counterID], from: request.period.from, to: request.period.to, services: services)
        return MCPToolResult(
            content: [
                .text(
                    ExplanationListing.text(listing, maxWidth: GetReportTool.tableWidth)
                        + AnnotationMember.text(notes, namingCounters: false))
            ],
            structuredContent: AnnotationMember.adding(
                notes, to: ExplanationListing.document(listing, versioned: false)))
    }
}
