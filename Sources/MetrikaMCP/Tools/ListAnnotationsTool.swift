import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaServices
import MetrikaUseCases

/// `list_annotations`: the notes a counter's owner wrote on Metrika's charts, the context of a change
/// (read only: MCP writes nothing).
enum ListAnnotationsTool {
    static let spec = ToolSpec(
        name: "list_annotations",
        title: "A counter's chart annotations",
        description: """
            The annotations the owner of one Yandex.Metrika counter wrote on its charts ("new site template", \
            "sale started"): date, time, title, message, group (A–E). Context for a change get_report or explain_change \
            shows: a day with an annotation may explain it. Read only. Quota: one Management API request, none when read within the hour (kept in the history). \
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
        let annotations = try await services.historyLoader(offline: false).annotations(counterID: id).get()
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

/// The `annotations` member get_report and explain_change add when the counter's owner annotated a
/// day of the answer's period (absent otherwise, so answers without one read as before), and its text
/// lines. Context only: annotations that cannot be read leave the answer as it was.
enum AnnotationMember {
    /// The counters' annotations on `from...to`, each with its counter; empty when none or unreadable.
    /// Read as `HistoryLoader.annotations` reads them (kept for an hour; `offline`: the kept ones).
    static func read(counters: [Int], from: Day, to: Day, offline: Bool = false, services: any RunServices) async
        -> [(Int, Annotation)]
    {
        guard from <= to, let loader = try? await services.historyLoader(offline: offline) else { return [] }
        var found: [(Int, Annotation)] = []
        for id in counters {
            let read = await AnnotationText.annotations(counterID: id, on: from...to, loader: loader)
            guard case .success(let notes) = read else { continue }
            found += notes.map { (id, $0) }
        }
        return found
    }

    /// The member as get_report's and explain_change's output schemas declare it.
    static let schemaMember: (String, JSONValue) = (
        "annotations",
        schema(
            "array",
            "The owner's chart annotations on the period's days (absent: none, or none readable); kept in the "
                + "history and read again after an hour",
            items: schema(
                "object",
                properties: [
                    ("counter_id", schema("integer")), ("date", schema("string", "YYYY-MM-DD")),
                    ("time", .object([("type", .array([.string("string"), .string("null")]))])),
                    ("title", schema("string")), ("message", schema("string")), ("group", schema("string", "A to E"))
                ], required: ["counter_id", "date", "title"]))
    )

    /// `document` with `annotations` appended (unchanged when there are none).
    static func adding(_ notes: [(Int, Annotation)], to document: JSONValue) -> JSONValue {
        AnnotationText.adding(notes.map { (counterID: $0.0, note: $0.1) }, to: document)
    }

    /// One `annotation on Sun 2026-11-29: "…"` line each (the counter named when several are reported).
    static func text(_ notes: [(Int, Annotation)], namingCounters: Bool) -> String {
        notes.map { id, note in (namingCounters ? "\(id): " : "") + AnnotationText.line(note) + "\n" }.joined()
    }
}
