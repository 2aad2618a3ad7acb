import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaUseCases

/// `list_counters`: what `metrika counters --json` knows, plus each counter's currency where the
/// history database has seen it.
enum ListCountersTool {
    /// Counters listed in one answer (an agency's account can hold thousands: `search` narrows it).
    static let maximumListed = 1_000

    static let spec = ToolSpec(
        name: "list_counters",
        title: "Yandex.Metrika counters",
        description: """
        The Yandex.Metrika counters (tags) this token can read: id, name, site, time zone, currency (the one revenue is kept \
        in, when metrika has seen it in an answer; else null), permission (own, view, edit) and status. The ids are what \
        get_report, list_goals, check_alerts and draw_chart take. Quota: one Management API request per 1,000 counters. \
        At most \(maximumListed) are listed; search narrows the list. Example: {"search": "shop"}.
        """,
        arguments: [
            ToolArgument("search", .string, "Only counters whose id, name or site contains this text.", maxLength: 200),
        ],
        outputSchema: schema("object", properties: [
            ("counters", schema("array", "id, name, site, time_zone, currency, permission, status", items: schema("object"))),
            ("left_out", schema("integer", "Counters not listed (more than the answer holds): narrow with search")),
        ], required: ["counters"]))

    static func run(_ arguments: ToolArguments, services: any MCPServices) async throws -> MCPToolResult {
        let client = try await services.client()
        let (all, warning) = try await client.fetchCounterList(search: arguments.string("search"))
        let counters = Array(all.prefix(maximumListed))
        // The currency the history remembers (no request per counter); no database, no currencies.
        let store = try? await services.historyLoader(offline: true).store
        var table = TextTable(columns: [.init("ID", alignment: .right), .init("Name"), .init("Site"), .init("Time zone"), .init("Currency"), .init("Permission")])
        var items: [JSONValue] = []
        for counter in counters {
            let currency = (try? store?.counterCurrency(id: counter.id))??.code
            items.append(.object([
                ("id", .number(Double(counter.id))), ("name", .string(counter.name)), ("site", .string(counter.site)),
                ("time_zone", .string(counter.timeZoneName)), ("currency", .string(currency)), ("permission", .string(counter.permission)),
                ("status", .string(counter.status)),
            ]))
            table.append([String(counter.id), counter.displayName, counter.site, counter.timeZoneName, currency ?? "", counter.permission])
        }
        var members: [(String, JSONValue)] = [("counters", .array(items))]
        var text = counters.isEmpty ? "No counters found.\n" : table.render(maxWidth: GetReportTool.tableWidth)
        if all.count > counters.count {
            members.append(("left_out", .number(Double(all.count - counters.count))))
            text += "\(GetReportTool.grouped(all.count - counters.count)) more counters are not listed: narrow the list with search.\n"
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
        var table = TextTable(columns: [.init("ID", alignment: .right), .init("Name"), .init("Type")])
        for goal in goals { table.append([String(goal.id), goal.name, goal.type]) }
        let document = JSONValue.object([
            ("counter_id", .number(Double(id))),
            ("goals", .array(goals.map { .object([("id", .number(Double($0.id))), ("name", .string($0.name)), ("type", .string($0.type))]) })),
        ])
        let text = goals.isEmpty ? "Counter \(id) has no goals.\n" : table.render(maxWidth: GetReportTool.tableWidth)
        return MCPToolResult(content: [.text(text)], structuredContent: document)
    }
}
