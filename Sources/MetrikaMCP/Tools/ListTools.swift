import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaUseCases

/// `list_counters`: what `metrika counters --json` lists (the same members, Render's `CounterListing`),
/// each counter's currency where the history database has seen it.
enum ListCountersTool {
    /// Counters listed in one answer (an agency's account can hold thousands: `search` narrows it).
    static let maximumListed = 1_000

    static let spec = ToolSpec(
        name: "list_counters",
        title: "Yandex.Metrika counters",
        description: """
        The Yandex.Metrika counters (tags) this token can read: id, name, site, status, permission (own, view, edit), \
        owner login, time zone and currency (the one revenue is kept in, when metrika has seen it in an answer; else null). The ids are what \
        get_report, list_goals, check_alerts and draw_chart take. Quota: one Management API request per 1,000 counters. \
        At most \(maximumListed) are listed; search narrows the list. Example: {"search": "shop"}.
        """,
        arguments: [
            ToolArgument("search", .string, "Only counters whose id, name or site contains this text.", maxLength: 200),
        ],
        outputSchema: schema("object", properties: [
            ("counters", schema("array", "id, name, site, status, permission, owner_login, time_zone, currency", items: schema("object"))),
            ("left_out", schema("integer", "Counters not listed (more than the answer holds): narrow with search")),
        ], required: ["counters"]))

    static func run(_ arguments: ToolArguments, services: any MCPServices) async throws -> MCPToolResult {
        // The currency the history remembers (no request per counter); no database, no currencies.
        let history = try? await services.historyLoader(offline: true).store
        let (all, warning) = try await CounterList.fetch(client: try await services.client(), search: arguments.string("search"), history: history)
        let items = Array(all.prefix(maximumListed))
        var members: [(String, JSONValue)] = [("counters", .array(items.map(CounterListing.json)))]
        var text = items.isEmpty ? CounterListing.emptyText + "\n" : CounterListing.table(items, columns: .withZoneAndCurrency).render(maxWidth: GetReportTool.tableWidth)
        if all.count > items.count {
            members.append(("left_out", .number(Double(all.count - items.count))))
            text += "\(GetReportTool.grouped(all.count - items.count)) more counters are not listed: narrow the list with search.\n"
        }
        if let warning { text += warning + "\n" }
        return MCPToolResult(content: [.text(text)], structuredContent: .object(members))
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
        arguments: [
            ToolArgument("counter_id", .integer, "The counter whose goals to list (see list_counters).", required: true, minimum: 1, maximum: Int(Int32.max)),
        ],
        outputSchema: schema("object", properties: [
            ("counter_id", schema("integer")),
            ("goals", schema("array", "id, name, type", items: schema("object"))),
        ], required: ["counter_id", "goals"]))

    static func run(_ arguments: ToolArguments, services: any MCPServices) async throws -> MCPToolResult {
        let id = arguments.integer("counter_id") ?? 0
        let goals = try await services.client().fetchGoals(counterID: id)
        let document = GoalListing.document(counterID: id, goals: goals, versioned: false)
        let text = goals.isEmpty ? GoalListing.emptyText(counterID: id) + "\n" : GoalListing.table(goals).render(maxWidth: GetReportTool.tableWidth)
        return MCPToolResult(content: [.text(text)], structuredContent: document)
    }
}
