import MetrikaRender

// The seam between the MCP server (framing, the protocol's revisions, dispatch, cancellation and
// progress: `Protocol/`) and the tools it serves (`Tools/`): the server knows tools only through
// `MCPToolCatalogue`, the tools know the protocol only through these values.

/// One tool as `tools/list` describes it.
package struct MCPToolDescription: Sendable {
    /// The tool's name (`get_report`): snake_case, stable.
    package var name: String
    /// A short human title.
    package var title: String
    /// Written for a model: what it answers, the units, what it costs in API quota, an example.
    package var description: String
    /// JSON Schema of the arguments (an object schema).
    package var inputSchema: JSONValue
    /// JSON Schema of `structuredContent`, when the tool returns one.
    package var outputSchema: JSONValue?
    /// The tool changes nothing anywhere (annotations.readOnlyHint); every metrika tool is read-only.
    package var readOnly: Bool
    /// The same call again has no further effect (annotations.idempotentHint).
    package var idempotent: Bool
    /// The tool reaches a world outside the server, here Yandex.Metrika (annotations.openWorldHint);
    /// false for one that answers from what metrika itself knows.
    package var openWorld: Bool

    package init(
        name: String, title: String, description: String, inputSchema: JSONValue, outputSchema: JSONValue? = nil,
        readOnly: Bool = true,
        idempotent: Bool = true, openWorld: Bool = true
    ) {
        self.name = name
        self.title = title
        self.description = description
        self.inputSchema = inputSchema
        self.outputSchema = outputSchema
        self.readOnly = readOnly
        self.idempotent = idempotent
        self.openWorld = openWorld
    }
}

/// One block of a tool result's `content`.
package enum MCPContent: Sendable, Equatable {
    case text(String)
    /// Raw bytes; the server base64-encodes them.
    case image(data: [UInt8], mimeType: String)
}

/// What `tools/call` answers (a failure of the work itself is a result with `isError`, never a
/// JSON-RPC error).
package struct MCPToolResult: Sendable {
    package var content: [MCPContent]
    package var structuredContent: JSONValue?
    package var isError: Bool

    package init(content: [MCPContent], structuredContent: JSONValue? = nil, isError: Bool = false) {
        self.content = content
        self.structuredContent = structuredContent
        self.isError = isError
    }

    /// A failed call: the sentence the CLI prints, as the only text block.
    package static func failure(_ sentence: String) -> MCPToolResult {
        MCPToolResult(content: [.text(sentence)], isError: true)
    }
}

/// A call refused before any work because it names no tool the catalogue has. The server answers
/// JSON-RPC -32602 with `message`. Arguments that do not fit a known tool (a wrong type, a value out
/// of bounds, an unknown name, a bad date) are tool results with `isError: true` instead (SEP-1303):
/// the model reads those and corrects its call.
package struct MCPInvalidParams: Error, Sendable, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
}

/// What a running call may tell its client: progress, sent as `notifications/progress` when the
/// client's request carried a `progressToken` (otherwise dropped).
package protocol MCPCallActivity: Sendable {
    func progress(_ done: Double, total: Double?, message: String?)
}

/// The tools a server serves.
package protocol MCPToolCatalogue: Sendable {
    /// Every tool, in the fixed order `tools/list` gives them.
    var tools: [MCPToolDescription] { get }
    /// Runs one tool. Throws `MCPInvalidParams` for an unknown tool only; bad arguments and a failure of
    /// the work are results with `isError: true`. Cancellation (`notifications/cancelled`) cancels the
    /// calling Task: the call ends promptly (throwing `CancellationError` is fine; no result is sent).
    func call(_ name: String, arguments: [(String, JSONValue)], activity: any MCPCallActivity) async throws
        -> MCPToolResult
}
