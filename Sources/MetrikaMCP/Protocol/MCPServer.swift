import Foundation
import MetrikaModel
import MetrikaRender
import Synchronization

/// The server's limits and identity.
package struct MCPServerOptions: Sendable {
    /// Longer request lines are skipped and answered -32600.
    package var maxLineBytes = LineFramer.defaultMaxLineBytes
    /// A tool result whose JSON-RPC line would be longer is replaced by an error result saying so.
    package var maxResponseBytes = 1 << 20
    /// Tool calls at work at once (the API's 3-parallel-requests quota).
    package var maxConcurrentCalls = 3
    /// At most one `notifications/progress` per call in this interval (the last one always goes).
    package var progressInterval: Duration = .milliseconds(100)
    /// At stdin's end, how long calls still at work may take before they are cancelled; nil (the
    /// default): every call is finished and answered, bounded by its own limits (the API's timeout
    /// and retry policy). A signal still ends the process at once.
    package var endOfInputGrace: Duration? = nil
    /// How the grace is waited (a test's clock).
    package var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// How long a 2026-07-28 client may keep `server/discover` and `tools/list` (the list is fixed per binary).
    package var listTTLMilliseconds = 3_600_000
    package var serverName = "metrika"
    package var serverVersion = MetrikaVersion.current

    package init() {}
}

/// An MCP server over newline-delimited JSON-RPC 2.0: reads frames, answers on one writer (lines are
/// whole and never interleave), runs each `tools/call` in its own Task (at most
/// `maxConcurrentCalls` at work), cancels on `notifications/cancelled`, reports progress when asked,
/// and ends when the input ends. It knows the tools only through `MCPToolCatalogue`.
package final class MCPServer: Sendable {
    private let catalogue: any MCPToolCatalogue
    private let options: MCPServerOptions
    private let diagnostics: @Sendable (String) -> Void
    private let gate: CallGate
    private let calls = Mutex<[String: Task<Void, Never>]>([:])

    /// Text for the client's system prompt (`instructions` of initialize and discover).
    static let instructions = """
        metrika answers Yandex.Metrika questions with the same numbers its command-line reports print: units on \
        every column (durations in seconds, rates in percent, money with its currency), correct totals, \
        sampling and missing days said. Every tool is read-only. Each call may cost API quota \
        (3 requests at once per token); repeated daily questions come from the local history.
        """

    package init(
        catalogue: any MCPToolCatalogue, options: MCPServerOptions = MCPServerOptions(),
        diagnostics: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.catalogue = catalogue
        self.options = options
        self.diagnostics = diagnostics
        self.gate = CallGate(limit: options.maxConcurrentCalls)
    }

    /// The most tool calls seen at work at once (tests check the bound).
    package var mostCallsAtOnce: Int {
        get async { await gate.mostAtOnce }
    }

    /// The connection's era: decided by the first request.
    private enum Era {
        case undecided
        /// The handshake era; `version` is nil until `initialize`.
        case handshake(version: String?)
        case stateless
    }

    /// Serves until `frames` ends, then lets calls at work finish and answers them (cancelling what
    /// is still at work after `endOfInputGrace`, when one is set), writes the last lines and returns.
    package func serve(frames: AsyncStream<MCPFrame>, write: @escaping @Sendable (String) async -> Void) async {
        let writer = LineWriter(sink: write)
        var era = Era.undecided
        for await frame in frames {
            handle(frame, era: &era, writer: writer)
        }
        await endOfInput()
        await writer.close()
    }

    /// One message of a Streamable HTTP request: handled as on a connection of its own whose era the
    /// message decides (`initialize` or the 2026-07-28 envelope) or, for any other message of the
    /// handshake era, `handshakeVersion` (the request's MCP-Protocol-Version header). A call it starts
    /// is awaited; every line (progress, then the response) goes to `write`. Cancelling the caller
    /// cancels the call.
    package func serveMessage(
        _ bytes: [UInt8], handshakeVersion: String, write: @escaping @Sendable (String) async -> Void
    ) async {
        let writer = LineWriter(sink: write)
        var era = Era.undecided
        handle(.line(bytes), era: &era, writer: writer, presetVersion: handshakeVersion)
        await withTaskCancellationHandler {
            for task in calls.withLock({ Array($0.values) }) { await task.value }
        } onCancel: {
            for task in calls.withLock({ Array($0.values) }) { task.cancel() }
        }
        await writer.close()
    }

    /// Cancels the call at work under the request id `key` (`RequestID.key`), as a
    /// `notifications/cancelled` naming it does (a remote member's, sent in a request of its own).
    package func cancel(requestKey key: String) {
        calls.withLock { $0[key] }?.cancel()
    }

    // MARK: - One frame

    private func handle(_ frame: MCPFrame, era: inout Era, writer: LineWriter, presetVersion: String? = nil) {
        let bytes: [UInt8]
        switch frame {
        case .tooLong(let idText):
            // The request's id when its edges name one: its client then stops waiting for it.
            let id = idText.flatMap { text in
                (try? BoundedJSONParser.parse(Array(text.utf8))).flatMap { RequestID(value: $0.value, raw: text) }
            }
            writer.send(
                JSONRPCLine.error(
                    id: id, code: JSONRPCError.invalidRequest,
                    message: "Invalid request: a message longer than \(options.maxLineBytes >> 20) MB was skipped"))
            return
        case .line(let line):
            bytes = line
        }
        let parsed: (value: JSONValue, rawID: String?)
        do {
            parsed = try BoundedJSONParser.parse(bytes)
        } catch {
            writer.send(
                JSONRPCLine.error(id: nil, code: JSONRPCError.parseError, message: "Parse error: \(error.message)"))
            return
        }
        switch IncomingMessage.classify(parsed.value, rawID: parsed.rawID) {
        case .response:
            return
        case .invalid(let id, let message):
            writer.send(JSONRPCLine.error(id: id, code: JSONRPCError.invalidRequest, message: message))
        case .notification(let method, let params):
            notification(method, params: params, era: &era)
        case .request(let id, let method, let params):
            if case .undecided = era {
                era =
                    method != "initialize" && MCPRevision.hasStatelessEnvelope(params)
                    ? .stateless : .handshake(version: method == "initialize" ? nil : presetVersion)
            }
            do {
                try request(id: id, method: method, params: params, era: &era, writer: writer)
            } catch let failure as RPCFailure {
                writer.send(JSONRPCLine.error(id: id, code: failure.code, message: failure.message, data: failure.data))
            } catch {
                writer.send(JSONRPCLine.error(id: id, code: JSONRPCError.internalError, message: "Internal error"))
            }
        }
    }

    private func notification(_ method: String, params: JSONValue?, era: inout Era) {
        switch method {
        case "notifications/cancelled":
            guard let requestID = ProtocolParams.of(params).requestID, let key = RequestID.key(of: requestID) else {
                return
            }
            let task = calls.withLock { $0[key] }
            task?.cancel()
        default:
            // notifications/initialized and anything else: nothing to do (unknown notifications are ignored).
            return
        }
    }

    private func request(id: RequestID, method: String, params: JSONValue?, era: inout Era, writer: LineWriter) throws {
        if let params, case .object = params {
        } else if params != nil {
            throw RPCFailure.invalidParams("Invalid params: \"params\" must be an object")
        }
        switch era {
        case .undecided:
            return
        case .handshake(let version):
            if method != "initialize", MCPRevision.hasStatelessEnvelope(params) {
                throw RPCFailure.invalidRequest(
                    "Invalid request: this connection speaks the handshake revisions (it began with initialize); requests with the 2026-07-28 envelope are not accepted on it"
                )
            }
            switch method {
            case "initialize":
                guard version == nil else {
                    throw RPCFailure.invalidRequest("Invalid request: the connection is already initialized")
                }
                guard let requested = ProtocolParams.of(params).protocolVersion else {
                    throw RPCFailure.invalidParams("Invalid params: initialize needs \"protocolVersion\" (a string)")
                }
                let negotiated = MCPRevision.negotiate(requested)
                era = .handshake(version: negotiated)
                writer.send(JSONRPCLine.result(id: id, initializeResult(version: negotiated)))
            case "ping":
                writer.send(JSONRPCLine.result(id: id, .object([])))
            case "tools/list", "tools/call":
                guard let version else { throw RPCFailure.invalidRequest("Invalid request: send initialize first") }
                if method == "tools/list" {
                    try refuseCursor(params)
                    writer.send(JSONRPCLine.result(id: id, toolsList(version: version, stateless: false)))
                } else {
                    try startCall(id: id, params: params, version: version, stateless: false, writer: writer)
                }
            default:
                throw RPCFailure.methodNotFound(method)
            }
        case .stateless:
            let version = try envelopeVersion(method: method, params: params)
            switch method {
            case "server/discover":
                writer.send(JSONRPCLine.result(id: id, discoverResult()))
            case "tools/list":
                try refuseCursor(params)
                writer.send(JSONRPCLine.result(id: id, toolsList(version: version, stateless: true)))
            case "tools/call":
                try startCall(id: id, params: params, version: version, stateless: true, writer: writer)
            default:
                // ping, logging/setLevel and the handshake are gone in 2026-07-28.
                throw RPCFailure.methodNotFound(method)
            }
        }
    }

    /// The 2026-07-28 envelope check (the Python SDK's ladder): `_meta` with the version and the
    /// client's capabilities, a version this server speaks; `initialize` is refused naming the versions.
    private func envelopeVersion(method: String, params: JSONValue?) throws -> String {
        let supported = JSONValue.array(MCPRevision.stateless.map { .string($0) })
        if method == "initialize" {
            var data: [(String, JSONValue)] = [("supported", supported)]
            if let requested = ProtocolParams.of(params).protocolVersion {
                data.append(("requested", .string(requested)))
            }
            throw RPCFailure(
                code: JSONRPCError.unsupportedProtocolVersion,
                message:
                    "This connection speaks the stateless 2026-07-28 revision (it began without initialize); the initialize handshake is not accepted on it",
                data: .object(data))
        }
        guard case .value(let meta) = ProtocolParams.of(params).meta else {
            throw RPCFailure.invalidParams(
                "Invalid params: params._meta must be an object carrying \"\(MCPRevision.protocolVersionKey)\" and \"\(MCPRevision.clientCapabilitiesKey)\""
            )
        }
        let given = [
            (MCPRevision.protocolVersionKey, meta.hasVersion),
            (MCPRevision.clientCapabilitiesKey, meta.hasClientCapabilities)
        ]
        let missing = given.filter { !$0.1 }.map(\.0)
        guard missing.isEmpty else {
            throw RPCFailure.invalidParams("Invalid params: params._meta is missing \(missing.joined(separator: ", "))")
        }
        guard case .value(let version) = meta.protocolVersion else {
            throw RPCFailure.invalidParams("Invalid params: \(MCPRevision.protocolVersionKey) must be a string")
        }
        guard MCPRevision.stateless.contains(version) else {
            throw RPCFailure(
                code: JSONRPCError.unsupportedProtocolVersion, message: "Unsupported protocol version \(version)",
                data: .object([("supported", supported), ("requested", .string(version))]))
        }
        return version
    }

    private func refuseCursor(_ params: JSONValue?) throws {
        if ProtocolParams.of(params).cursor != nil {
            throw RPCFailure.invalidParams("Invalid params: unknown cursor (the tool list has one page)")
        }
    }

    // MARK: - Results

    private var serverInfo: JSONValue {
        .object([
            ("name", .string(options.serverName)), ("title", .string("metrika — Yandex.Metrika reports")),
            ("version", .string(options.serverVersion))
        ])
    }

    private func initializeResult(version: String) -> JSONValue {
        .object([
            ("protocolVersion", .string(version)),
            ("capabilities", .object([("tools", .object([("listChanged", .bool(false))]))])),
            ("serverInfo", serverInfo),
            ("instructions", .string(Self.instructions))
        ])
    }

    /// `resultType`, the caching hints of list results and the `serverInfo` stamp of 2026-07-28.
    private func stateless(_ members: [(String, JSONValue)], cacheable: Bool) -> JSONValue {
        var members = members
        members.append(("resultType", .string("complete")))
        if cacheable {
            members.append(("ttlMs", .number(Double(options.listTTLMilliseconds))))
            members.append(("cacheScope", .string("private")))
        }
        members.append(("_meta", .object([(MCPRevision.serverInfoKey, serverInfo)])))
        return .object(members)
    }

    private func discoverResult() -> JSONValue {
        stateless(
            [
                ("supportedVersions", .array(MCPRevision.stateless.map { .string($0) })),
                ("capabilities", .object([("tools", .object([]))])),
                ("instructions", .string(Self.instructions))
            ], cacheable: true)
    }

    private func toolsList(version: String, stateless isStateless: Bool) -> JSONValue {
        let structured = isStateless || MCPRevision.hasStructuredContent(version)
        let annotated = isStateless || MCPRevision.hasAnnotations(version)
        let tools = catalogue.tools.map { tool -> JSONValue in
            var members: [(String, JSONValue)] = [("name", .string(tool.name))]
            if structured { members.append(("title", .string(tool.title))) }
            members.append(("description", .string(tool.description)))
            members.append(("inputSchema", tool.inputSchema))
            if structured, let output = tool.outputSchema { members.append(("outputSchema", output)) }
            if annotated {
                // Every hint said, none left to a client's default (destructive and open-world by default).
                var annotations: [(String, JSONValue)] = [("title", .string(tool.title))]
                annotations.append(("readOnlyHint", .bool(tool.readOnly)))
                annotations.append(("destructiveHint", .bool(!tool.readOnly)))
                annotations.append(("idempotentHint", .bool(tool.idempotent)))
                annotations.append(("openWorldHint", .bool(tool.openWorld)))
                members.append(("annotations", .object(annotations)))
            }
            return .object(members)
        }
        if isStateless { return stateless([("tools", .array(tools))], cacheable: true) }
        return .object([("tools", .array(tools))])
    }

    private func callResult(_ result: MCPToolResult, version: String, stateless isStateless: Bool) -> JSONValue {
        let content = result.content.map { block -> JSONValue in
            switch block {
            case .text(let text):
                return .object([("type", .string("text")), ("text", .string(text))])
            case .image(let data, let mimeType):
                return .object([
                    ("type", .string("image")), ("data", .string(Data(data).base64EncodedString())),
                    ("mimeType", .string(mimeType))
                ])
            }
        }
        var members: [(String, JSONValue)] = [("content", .array(content))]
        if let structured = result.structuredContent {
            // Handshake revisions from 2025-06-18 take an object only; earlier ones have no such field.
            if isStateless {
                members.append(("structuredContent", structured))
            } else if MCPRevision.hasStructuredContent(version), case .object = structured {
                members.append(("structuredContent", structured))
            }
        }
        members.append(("isError", .bool(result.isError)))
        if isStateless { return stateless(members, cacheable: false) }
        return .object(members)
    }

    // MARK: - Tool calls

    private func startCall(
        id: RequestID, params: JSONValue?, version: String, stateless isStateless: Bool, writer: LineWriter
    ) throws {
        let call = params.flatMap { try? JSONValueDecoder.decode(ToolCallParams.self, from: $0) }
        guard let name = call?.name else {
            throw RPCFailure.invalidParams("Invalid params: tools/call needs \"name\" (a string)")
        }
        let arguments: [(String, JSONValue)]
        switch call?.arguments {
        case nil, .absent?, .value(.null)?: arguments = []
        case .value(.object(let members))?: arguments = members
        default: throw RPCFailure.invalidParams("Invalid params: \"arguments\" must be an object")
        }
        let activity: ProgressReporter? = call?.progressToken.flatMap { token in
            RequestID.key(of: token) == nil
                ? nil : ProgressReporter(token: token, interval: options.progressInterval, writer: writer)
        }
        try calls.withLock { calls in
            guard calls[id.key] == nil else {
                throw RPCFailure.invalidRequest("Invalid request: id \(id.raw) is already in use by a call at work")
            }
            calls[id.key] = Task {
                await self.runCall(
                    id: id, name: name, arguments: arguments, activity: activity, version: version,
                    stateless: isStateless, writer: writer)
                _ = self.calls.withLock { $0.removeValue(forKey: id.key) }
            }
        }
    }

    private func runCall(
        id: RequestID, name: String, arguments: [(String, JSONValue)], activity: ProgressReporter?, version: String,
        stateless isStateless: Bool, writer: LineWriter
    ) async {
        do {
            try await gate.acquire()
        } catch {
            return
        }
        let outcome: Result<MCPToolResult, any Error>
        do {
            outcome = .success(
                try await catalogue.call(name, arguments: arguments, activity: activity ?? SilentActivity()))
        } catch {
            outcome = .failure(error)
        }
        await gate.release()
        activity?.finish()
        // A cancelled request gets no response (the cancellation page); a late result is dropped.
        if Task.isCancelled { return }
        switch outcome {
        case .success(let result):
            var line = JSONRPCLine.result(id: id, callResult(result, version: version, stateless: isStateless))
            if line.utf8.count > options.maxResponseBytes {
                let refusal = MCPToolResult.failure(
                    "The answer was larger than \(options.maxResponseBytes >> 20) MB of JSON and was not sent: ask for less (a shorter period, fewer metrics or dimensions, a smaller limit, then offset for the rest)."
                )
                line = JSONRPCLine.result(id: id, callResult(refusal, version: version, stateless: isStateless))
            }
            writer.send(line)
        case .failure(let error as MCPInvalidParams):
            writer.send(JSONRPCLine.error(id: id, code: JSONRPCError.invalidParams, message: error.message))
        case .failure(is CancellationError):
            return
        case .failure:
            diagnostics("metrika mcp: the tool \(name) failed unexpectedly")
            let failure = MCPToolResult.failure(
                "The tool \(name) failed unexpectedly; nothing was changed. Try again; if it fails again, tell the user (the server's log names the failure)."
            )
            writer.send(JSONRPCLine.result(id: id, callResult(failure, version: version, stateless: isStateless)))
        }
    }

    private func endOfInput() async {
        let atWork = calls.withLock { Array($0.values) }
        guard !atWork.isEmpty else { return }
        // A script piping requests in closes stdin at once: its calls still get their answers.
        guard let grace = options.endOfInputGrace else {
            for task in atWork { await task.value }
            return
        }
        let sleep = options.sleep
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for task in atWork { await task.value }
            }
            group.addTask {
                try? await sleep(grace)
            }
            await group.next()
            // Either all ended or the grace is over: cancel what is still at work (the group then
            // ends, its first child waiting for those calls to stop, which they do promptly).
            for task in calls.withLock({ Array($0.values) }) { task.cancel() }
            group.cancelAll()
        }
    }
}

/// The activity of a call without a progress token: progress goes nowhere.
private struct SilentActivity: MCPCallActivity {
    func progress(_ done: Double, total: Double?, message: String?) {}
}

/// Sends `notifications/progress` for one call: increasing values only, at most one per `interval`
/// (the one that reaches `total` always goes), none after the call's response.
final class ProgressReporter: MCPCallActivity {
    private struct State {
        var last: Double?
        var lastSent: ContinuousClock.Instant?
        var finished = false
    }
    private let token: JSONValue
    private let interval: Duration
    private let writer: LineWriter
    private let state = Mutex(State())

    init(token: JSONValue, interval: Duration, writer: LineWriter) {
        self.token = token
        self.interval = interval
        self.writer = writer
    }

    func progress(_ done: Double, total: Double?, message: String?) {
        guard done.isFinite else { return }
        let now = ContinuousClock.now
        let send = state.withLock { state -> Bool in
            if state.finished { return false }
            if let last = state.last, done <= last { return false }
            let final = total.map { done >= $0 } ?? false
            if !final, let sent = state.lastSent, now - sent < interval { return false }
            state.last = done
            state.lastSent = now
            return true
        }
        guard send else { return }
        var params: [(String, JSONValue)] = [("progressToken", token), ("progress", .number(done))]
        if let total, total.isFinite { params.append(("total", .number(total))) }
        if let message { params.append(("message", .string(message))) }
        // Sent inside the lock's order: the writer keeps the order of `send` calls.
        state.withLock { state in
            if !state.finished {
                writer.send(JSONRPCLine.notification(method: "notifications/progress", params: .object(params)))
            }
        }
    }

    func finish() {
        state.withLock { $0.finished = true }
    }
}

/// The one writer of stdout: lines are queued in order and written whole, one after another, by a
/// single task; `close` writes what is queued and returns.
final class LineWriter: Sendable {
    private let continuation: AsyncStream<String>.Continuation
    private let drain: Task<Void, Never>

    init(sink: @escaping @Sendable (String) async -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        self.continuation = continuation
        self.drain = Task {
            for await line in stream { await sink(line + "\n") }
        }
    }

    func send(_ line: String) {
        continuation.yield(line)
    }

    func close() async {
        continuation.finish()
        await drain.value
    }
}
