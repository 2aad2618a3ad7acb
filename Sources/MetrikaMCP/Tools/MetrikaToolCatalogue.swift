import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaServices
import MetrikaUseCases

/// metrika's tools: the five of issue #29, each over the use case its command calls (`list_counters`
/// ↔ `metrika counters`, `get_report` ↔ `report --json`, `list_goals` ↔ `goals`, `check_alerts` ↔
/// `alert --dry-run`, `draw_chart` ↔ `chart`). Nothing a tool does changes anything at Yandex, sends
/// mail or a webhook, or marks an alert as told. Arguments and schemas come from `specs`.
package struct MetrikaToolCatalogue: MCPToolCatalogue {
    package let services: any RunServices
    /// The counters a team member may read (`metrika mcp --listen`); nil: every counter the token reads.
    package let scope: CounterScope?

    package init(services: any RunServices, scope: CounterScope? = nil) {
        self.services = services
        self.scope = scope
    }

    /// The table: every tool, in the order `tools/list` gives them.
    package static let specs: [ToolSpec] = [
        ListCountersTool.spec, GetReportTool.spec, ListGoalsTool.spec, CheckAlertsTool.spec, DrawChartTool.spec,
        ExplainChangeTool.spec, ListMetricsTool.spec, ListAnnotationsTool.spec
    ]

    package var tools: [MCPToolDescription] { Self.specs.map(\.toolDescription) }

    package func call(_ name: String, arguments: [(String, JSONValue)], activity: any MCPCallActivity) async throws
        -> MCPToolResult
    {
        guard let spec = Self.specs.first(where: { $0.name == name }) else {
            throw MCPInvalidParams(
                "Unknown tool '\(ToolArguments.quoted(name))'; the tools are \(Self.specs.map(\.name).joined(separator: ", "))"
            )
        }
        var arguments = arguments
        if let scope {
            if let refusal = scope.refusal(arguments) { return masked(.failure(refusal)) }
            arguments = scope.completing(arguments, for: name)
        }
        let decoded: ToolArguments
        do {
            decoded = try ToolArguments.decode(arguments, for: spec)
        } catch let invalid as ToolArgumentError {
            // SEP-1303: a tool result the model reads and corrects, masked like every text a tool returns.
            return masked(.failure(invalid.message))
        }
        do {
            let result: MCPToolResult
            switch name {
            case ListCountersTool.spec.name:
                result = try await ListCountersTool.run(decoded, services: services, visible: scope?.counters)
            case GetReportTool.spec.name:
                result = try await GetReportTool.run(decoded, services: services, call: activity)
            case ListGoalsTool.spec.name: result = try await ListGoalsTool.run(decoded, services: services)
            case CheckAlertsTool.spec.name:
                result = try await CheckAlertsTool.run(decoded, services: services, call: activity)
            case ExplainChangeTool.spec.name: result = try await ExplainChangeTool.run(decoded, services: services)
            case ListMetricsTool.spec.name: result = ListMetricsTool.run()
            case ListAnnotationsTool.spec.name: result = try await ListAnnotationsTool.run(decoded, services: services)
            default: result = try await DrawChartTool.run(decoded, services: services)
            }
            // The structured view holds what the text says, compactly (StructuredView).
            var compacted = result
            compacted.structuredContent = result.structuredContent.map(StructuredView.compact)
            return masked(compacted)
        } catch is CancellationError {
            throw CancellationError()
        } catch let invalid as ToolArgumentError {
            return masked(.failure(invalid.message))
        } catch {
            if Task.isCancelled { throw CancellationError() }
            return masked(.failure(Self.sentence(error)))
        }
    }

    /// The sentence of a failure, as `CLI.run` words it after its `Error: ` but in the tools' words
    /// (`MCPFailureWords`): a failure's own message; an interrupted job's account of what it kept;
    /// anything else in the generic sentence, never the value's own description (a Swift dump).
    package static func sentence(_ error: any Error) -> String {
        // The command line's fixes (`metrika login`, `--accuracy`) in a tool's words; an access error
        // names its counter: a model that asked for several must know which one.
        if let words = MCPFailureWords.sentence(error) { return words }
        switch error {
        case let failure as any MetrikaFailure: return ParameterNaming.mcp.message(of: failure)
        case let interruption as Interruption: return interruption.account
        default: return MCPFailureWords.unexpected
        }
    }

    /// The result with every known secret masked out of its text (the token never leaves the run).
    private func masked(_ result: MCPToolResult) -> MCPToolResult {
        let secrets = services.secrets
        guard !secrets.isEmpty else { return result }
        var copy = result
        copy.content = result.content.map { block in
            if case .text(let text) = block { return .text(TerminalText.masking(secrets, in: text)) }
            return block
        }
        // The notes are the text's sentences again: masked the same way.
        if case .object(var members) = result.structuredContent,
            let index = members.firstIndex(where: { $0.0 == "notes" }),
            case .array(let notes) = members[index].1
        {
            members[index].1 = .array(
                notes.map { note in
                    if case .string(let text) = note { return .string(TerminalText.masking(secrets, in: text)) }
                    return note
                })
            copy.structuredContent = .object(members)
        }
        return copy
    }
}

/// The counters one member of a team may read: a call naming another is a tool result with `isError`
/// naming it (as an access error is), a call naming none reads these.
package struct CounterScope: Sendable {
    package var member: String
    package var counters: Set<Int>

    package init(member: String, counters: Set<Int>) {
        self.member = member
        self.counters = counters
    }

    /// The sentence refusing a call that names a counter outside the scope; nil when it names none.
    func refusal(_ arguments: [(String, JSONValue)]) -> String? {
        var named: [Int] = []
        for (key, value) in arguments {
            switch (key, value) {
            case ("counter_id", .number(let id)): named.append(Int(exactly: id) ?? -1)
            case ("counter_ids", .array(let ids)):
                for case .number(let id) in ids { named.append(Int(exactly: id) ?? -1) }
            default: continue
            }
        }
        guard let outside = named.first(where: { !counters.contains($0) }) else { return nil }
        let allowed = counters.sorted().map(String.init).joined(separator: ", ")
        return "Access denied to counter \(outside): this server lets \(member) read counters \(allowed) only. "
            + "Call list_counters for them, or ask the user to have the server's owner widen the member's counters."
    }

    /// The arguments of a call that names no counter, with the scope's counters where the tool reads
    /// every counter by default (check_alerts, get_report and draw_chart without counter_ids).
    func completing(_ arguments: [(String, JSONValue)], for tool: String) -> [(String, JSONValue)] {
        let takesIDs = [CheckAlertsTool.spec.name, GetReportTool.spec.name, DrawChartTool.spec.name].contains(tool)
        guard takesIDs, !arguments.contains(where: { $0.0 == "counter_ids" }) else { return arguments }
        let ids = counters.sorted().prefix(20).map { JSONValue.number(Double($0)) }
        return arguments + [("counter_ids", .array(Array(ids)))]
    }
}

// MARK: - Shared arguments and reading

/// Arguments several tools take, worded once.
enum SharedArguments {
    static func counterIDs(required: Bool, description: String) -> ToolArgument {
        var argument = ToolArgument(
            "counter_ids", .integers, description, required: required, minimum: 1, maximum: Int(Int32.max), maxItems: 20
        )
        argument.example = "[1001]"
        argument.beyondBound = "ask for the others in another call"
        return argument
    }

    static let from = TypedToolArgument<String>(ToolArgument(declared: ReportFields.from))
    static let to = TypedToolArgument<String>(ToolArgument(declared: ReportFields.to))
    static let period = TypedToolArgument<String>(ToolArgument(declared: ReportFields.period))
    static func metrics(_ description: String) -> ToolArgument {
        ToolArgument("metrics", .strings, description, maxLength: 100, maxItems: 20)
    }

    /// The ids given, each once, in the order given.
    static func ids(_ given: [Int]?) -> [Int] {
        var ids: [Int] = []
        for id in given ?? [] where !ids.contains(id) { ids.append(id) }
        return ids
    }

    /// The days `from`, `to` and `period` name (a tool that takes them lists the three).
    static func dates(_ arguments: ToolArguments, defaultFrom: String) throws -> ReportDates {
        try ReportDates.parse(
            from: arguments[from], to: arguments[to], period: arguments[period], defaultFrom: defaultFrom)
    }
}

/// A loose JSON Schema (`type` and a description), for output schemas.
func schema(
    _ type: String, _ description: String? = nil, properties: [(String, JSONValue)]? = nil, items: JSONValue? = nil,
    required: [String] = []
) -> JSONValue {
    var members: [(String, JSONValue)] = [("type", .string(type))]
    if let description { members.append(("description", .string(description))) }
    if let properties { members.append(("properties", .object(properties))) }
    if let items { members.append(("items", items)) }
    if !required.isEmpty { members.append(("required", .array(required.map { .string($0) }))) }
    return .object(members)
}
