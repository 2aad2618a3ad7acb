import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaServices
import MetrikaUseCases

/// `list_counters`: what `metrika counters --json` lists (the same members, Render's `CounterListing`),
/// each counter's currency where the history database has seen it.
enum ListCountersTool {
    /// Counters of one answer when `limit` is not given, and the most it may ask for (an agency's
    /// account can hold thousands: `offset` pages, `search` narrows), so that the answer fits
    /// TokenBudget; past the budget the text is compact and the JSON holds the counters.
    static let defaultLimit = 50
    static let maximumLimit = 200
    static let compactRows = 20

    static let spec = ToolSpec(
        name: "list_counters",
        title: "Yandex.Metrika counters",
        description: """
            The Yandex.Metrika counters (tags) this token can read: id, name, site, status, permission (own, view, edit), \
            owner login, time zone and currency (the one revenue is kept in, when metrika has seen it in an answer; else null). The ids are what \
            get_report, list_goals, check_alerts and draw_chart take. `total` says how many there are; `more` {offset, rows_total} \
            appears when some were left out: call again with that offset. Quota: one Management API request per 1,000 counters. \
            \(defaultLimit) counters per answer (at most \(maximumLimit)); search narrows the list. Example: {"search": "shop"}.
            """,
        arguments: [search.argument, limit.argument, offset.argument],
        outputSchema: schema(
            "object",
            properties: [
                (
                    "counters",
                    schema(
                        "array", "id, name, site, status, permission, owner_login, time_zone, currency",
                        items: schema("object"))
                ),
                ("total", schema("integer", "How many counters the token reads (matching search)")),
                (
                    "more",
                    schema(
                        "object", "Counters were left out: call again with offset to continue",
                        properties: [("offset", schema("integer")), ("rows_total", schema("integer"))])
                ),
                (
                    "notes",
                    schema(
                        "array", "The text's notes a model needs: counters left out and how to get them, a warning",
                        items: schema("string"))
                )
            ], required: ["counters", "total"]))

    static let search = TypedToolArgument<String>(
        ToolArgument("search", .string, "Only counters whose id, name or site contains this text.", maxLength: 200))
    static let limit = TypedToolArgument<Int>(
        {
            var argument = ToolArgument(
                "limit", .integer, "Counters per answer, 1 to \(maximumLimit); default \(defaultLimit).", minimum: 1,
                maximum: maximumLimit, defaultValue: .number(Double(defaultLimit)))
            argument.beyondBound = "ask for the next counters with offset"
            return argument
        }())
    static let offset = TypedToolArgument<Int>(
        ToolArgument(
            "offset", .integer, "The 1-based counter to start from: the `more.offset` of the previous answer.",
            minimum: 1, maximum: 1_000_000, defaultValue: .number(1)))

    /// `visible`: the counters a team member may read (nil: all the token reads).
    static func run(_ arguments: ToolArguments, services: any RunServices, visible: Set<Int>? = nil) async throws
        -> MCPToolResult
    {
        // The currency the history remembers (no request per counter); no database, no currencies.
        let history = try? await services.historyLoader(offline: true).store
        var (all, warning) = try await CounterList.fetch(
            client: try await services.client(), search: arguments[search], history: history)
        if let visible { all = all.filter { visible.contains($0.counter.id) } }
        let offset = arguments[Self.offset] ?? 1
        let limit = arguments[Self.limit] ?? defaultLimit
        let items = Array(all.dropFirst(offset - 1).prefix(limit))
        var members: [(String, JSONValue)] = [
            ("counters", .array(items.map(CounterListing.json))), ("total", .number(Double(all.count)))
        ]
        let document = JSONValue.object(members)
        var text: String
        if items.isEmpty {
            text =
                (all.isEmpty
                    ? CounterListing.emptyText
                    : "No counters from offset \(offset): there are \(GetReportTool.grouped(all.count)).") + "\n"
        } else {
            text = CounterListing.table(items, columns: .withZoneAndCurrency).render(maxWidth: GetReportTool.tableWidth)
            // Never two full copies past the budget: the text lists the first counters, the JSON all.
            if TokenBudget.tokens(text) + TokenBudget.tokens(document.serialized()) > TokenBudget.target,
                items.count > compactRows
            {
                text = CounterListing.table(Array(items.prefix(compactRows)), columns: .withZoneAndCurrency).render(
                    maxWidth: GetReportTool.tableWidth)
                text +=
                    "The table shows the first \(compactRows); structuredContent.counters holds all \(items.count) of this answer "
                    + "(or call list_counters again with offset \(offset + compactRows) and limit \(compactRows) for the next as a table).\n"
            }
        }
        let next = offset + items.count
        // The notes a model needs, in the text and in the structured view alike.
        var notes: [String] = []
        if !items.isEmpty, next - 1 < all.count {
            members.append(
                ("more", .object([("offset", .number(Double(next))), ("rows_total", .number(Double(all.count)))])))
            let paging =
                "Showing counters \(GetReportTool.grouped(offset))–\(GetReportTool.grouped(next - 1)) of \(GetReportTool.grouped(all.count)); "
                + "call list_counters again with offset \(next) for the next, or narrow the list with search."
            text += paging + "\n"
            notes.append(paging)
        } else if !items.isEmpty {
            text += "\(GetReportTool.grouped(all.count)) \(all.count == 1 ? "counter" : "counters") in all.\n"
        } else if offset > 1, !all.isEmpty {
            notes.append("No counters from offset \(offset): there are \(GetReportTool.grouped(all.count)).")
        }
        if let warning {
            text += warning + "\n"
            notes.append(warning)
        }
        return MCPToolResult(
            content: [.text(text)], structuredContent: StructuredView.adding(notes: notes, to: .object(members)))
    }
}

/// `list_goals`: what `metrika goals` shows.
enum ListGoalsTool {
    static let spec = ToolSpec(
        name: "list_goals",
        title: "A counter's goals",
        description: """
            The goals of one Yandex.Metrika counter: id, name, type (url, action, number, step…). A goal's id makes the metrics \
            goal<ID>reaches (conversions, a count), goal<ID>conversionRate (percent of visits) and goal<ID>revenue (money) of \
            get_report. Quota: one Management API request. Example: {"counter_id": 1001}.
            """,
        arguments: [counterID.argument],
        outputSchema: schema(
            "object",
            properties: [
                ("counter_id", schema("integer")),
                ("goals", schema("array", "id, name, type", items: schema("object")))
            ], required: ["counter_id", "goals"]))

    static let counterID = TypedToolArgument<Int>(
        ToolArgument(
            "counter_id", .integer, "The counter whose goals to list (see list_counters).", required: true,
            minimum: 1, maximum: Int(Int32.max)))

    static func run(_ arguments: ToolArguments, services: any RunServices) async throws -> MCPToolResult {
        let id = arguments[counterID] ?? 0
        let goals = try await services.client().fetchGoals(counterID: id)
        let document = GoalListing.document(counterID: id, goals: goals, versioned: false)
        let text =
            goals.isEmpty
            ? GoalListing.emptyText(counterID: id) + "\n"
            : GoalListing.table(goals).render(maxWidth: GetReportTool.tableWidth)
        return MCPToolResult(content: [.text(text)], structuredContent: document)
    }
}
