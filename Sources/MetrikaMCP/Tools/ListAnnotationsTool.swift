import MetrikaModel
import MetrikaRender
import MetrikaServices

/// `list_annotations`: the notes a counter's owner wrote on Metrika's charts, the context of a change
/// (read only: MCP writes nothing).
enum ListAnnotationsTool {
    static let spec = ToolSpec(
        name: "list_annotations",
        title: "A counter's chart annotations",
        description: """
            The annotations the owner of one Yandex.Metrika counter wrote on its charts ("new site template", \
            "sale started"): date, time, title, message, group (A–E). Context for a change get_report or explain_change \
            shows: a day with an annotation may explain it. Read only. Quota: one Management API request. \
            Example: {"counter_id": 1001}.
            """,
        arguments: [counterID.argument],
        outputSchema: schema(
            "object",
            properties: [
                ("counter_id", schema("integer")),
                ("annotations", schema("array", "date, time, title, message, group", items: schema("object")))
            ], required: ["counter_id", "annotations"]))

    static let counterID = TypedToolArgument<Int>(
        ToolArgument(
            "counter_id", .integer, "The counter whose annotations to list (see list_counters).", required: true,
            minimum: 1, maximum: Int(Int32.max)))

    static func run(_ arguments: ToolArguments, services: any RunServices) async throws -> MCPToolResult {
        let id = arguments[counterID] ?? 0
        let annotations = try await services.client().fetchAnnotations(counterID: id)
        let items: [JSONValue] = annotations.map { note in
            .object([
                ("date", .string(note.day.iso)), ("time", note.time.map(JSONValue.string) ?? .null),
                ("title", .string(note.title)), ("message", .string(note.message)), ("group", .string(note.group))
            ])
        }
        let document = JSONValue.object([("counter_id", .number(Double(id))), ("annotations", .array(items))])
        let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let lines = annotations.map { note in
            "annotation on \(weekdays[note.day.weekday - 1]) \(note.day.iso)\(note.time.map { " \($0)" } ?? ""): "
                + "\"\(note.title)\"\(note.message.isEmpty ? "" : " — \(note.message)") (group \(note.group))"
        }
        let text =
            annotations.isEmpty
            ? "Counter \(id) has no chart annotations.\n" : lines.joined(separator: "\n") + "\n"
        return MCPToolResult(content: [.text(text)], structuredContent: document)
    }
}
