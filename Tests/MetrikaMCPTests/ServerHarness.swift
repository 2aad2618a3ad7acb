import Foundation
import MetrikaMCP
import MetrikaRender
import Synchronization
import Testing

/// A server in process: lines go in through `send`, answers come out in order through `next()`.
final class ServerHarness: Sendable {
    let server: MCPServer
    let output = OutputLines()
    private let input: AsyncStream<MCPFrame>.Continuation
    private let serving: Task<Void, Never>
    let diagnostics = Diagnostics()

    init(catalogue: any MCPToolCatalogue = FakeCatalogue(), options: MCPServerOptions = ServerHarness.testOptions) {
        let (stream, continuation) = AsyncStream.makeStream(of: MCPFrame.self)
        let diagnostics = self.diagnostics
        let server = MCPServer(
            catalogue: catalogue, options: options, diagnostics: { line in diagnostics.append(line) })
        let output = self.output
        self.server = server
        self.input = continuation
        self.serving = Task { await server.serve(frames: stream) { line in await output.append(line) } }
    }

    static var testOptions: MCPServerOptions {
        var options = MCPServerOptions()
        options.progressInterval = .zero
        options.endOfInputGrace = .milliseconds(50)
        return options
    }

    func send(_ line: String) { input.yield(.line(Array(line.utf8))) }
    func send(frame: MCPFrame) { input.yield(frame) }

    /// The next line the server wrote, parsed (nil when none comes within 20 s: the test then fails).
    func next(sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let line = try #require(await output.next(), "the server wrote nothing more", sourceLocation: sourceLocation)
        #expect(
            line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil, "one whole line: \(line)",
            sourceLocation: sourceLocation)
        return try BoundedJSONParser.parse(String(line.dropLast()))
    }

    /// Ends the input and waits for the server to finish; the lines written after what `next` read.
    func close() async -> [String] {
        input.finish()
        await serving.value
        return await output.rest()
    }

    /// Initializes a handshake connection at `version`.
    func initialize(_ version: String = "2025-11-25") async throws {
        send(
            #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"\#(version)","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#
        )
        _ = try await next()
        send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
    }

    /// `_meta` of a 2026-07-28 request.
    static let envelope =
        #""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}"#

    static func call(id: String, tool: String, arguments: String = "{}", meta: String? = nil) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"\#(tool)","arguments":\#(arguments)\#(meta.map { "," + $0 } ?? "")}}"#
    }
}

/// What the server said on stderr.
final class Diagnostics: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// The lines a server wrote, read one at a time.
actor OutputLines {
    private var lines: [String] = []
    private var read = 0
    private var waiter: CheckedContinuation<String?, Never>?
    private var waiterNumber = 0

    func append(_ line: String) {
        lines.append(line)
        if let waiter {
            self.waiter = nil
            read += 1
            waiter.resume(returning: line)
        }
    }

    func next() async -> String? {
        if read < lines.count {
            read += 1
            return lines[read - 1]
        }
        waiterNumber += 1
        let number = waiterNumber
        return await withCheckedContinuation { continuation in
            waiter = continuation
            Task {
                try? await Task.sleep(for: .seconds(20))
                self.expire(number)
            }
        }
    }

    private func expire(_ number: Int) {
        guard number == waiterNumber, let waiter else { return }
        self.waiter = nil
        waiter.resume(returning: nil)
    }

    func rest() -> [String] {
        defer { read = lines.count }
        return Array(lines[read...])
    }
}

/// A gate tests open by hand; calls wait on it (cancellable).
final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until open, or until the task is cancelled (then throws).
    func wait() async throws {
        while true {
            try Task.checkCancellation()
            if state.withLock({ $0.open }) { return }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// What the fake tools saw.
final class CallLog: Sendable {
    private let state = Mutex<(started: [String], cancelled: [String], atWork: Int, mostAtWork: Int)>(([], [], 0, 0))
    var started: [String] { state.withLock { $0.started } }
    var cancelled: [String] { state.withLock { $0.cancelled } }
    var mostAtWork: Int { state.withLock { $0.mostAtWork } }

    func begin(_ tag: String) {
        state.withLock { state in
            state.started.append(tag)
            state.atWork += 1
            state.mostAtWork = max(state.mostAtWork, state.atWork)
        }
    }
    func end(cancelled tag: String?) {
        state.withLock { state in
            state.atWork -= 1
            if let tag { state.cancelled.append(tag) }
        }
    }

    /// Waits (polling) until `count` calls have started; false after 20 s.
    func waitForStarts(_ count: Int) async -> Bool {
        for _ in 0..<10_000 {
            if started.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
    }
}

struct SomeUnexpectedError: Error {}

/// Tools that exercise the server: echo, image, a slow one behind a latch, progress, failures, a huge answer.
struct FakeCatalogue: MCPToolCatalogue {
    let latch = Latch()
    let log = CallLog()

    var tools: [MCPToolDescription] {
        ["echo", "image", "slow", "progress", "invalid", "unexpected", "huge", "array"].map { name in
            MCPToolDescription(
                name: name, title: "The \(name) tool", description: "Test tool \(name).",
                inputSchema: .object([("type", .string("object")), ("properties", .object([]))]),
                outputSchema: name == "echo" ? .object([("type", .string("object"))]) : nil
            )
        }
    }

    func call(_ name: String, arguments: [(String, JSONValue)], activity: any MCPCallActivity) async throws
        -> MCPToolResult
    {
        switch name {
        case "echo":
            return MCPToolResult(
                content: [.text("echo")], structuredContent: .object([("arguments", .object(arguments))]))
        case "image":
            return MCPToolResult(content: [
                .image(data: [0x89, 0x50, 0x4E, 0x47], mimeType: "image/png"), .text("a chart")
            ])
        case "slow":
            let tag = arguments.first { $0.0 == "tag" }?.1.serialized() ?? "?"
            log.begin(tag)
            do {
                try await latch.wait()
            } catch {
                log.end(cancelled: tag)
                throw error
            }
            log.end(cancelled: nil)
            return MCPToolResult(content: [.text("slow \(tag) done")])
        case "progress":
            for step in 1...5 { activity.progress(Double(step), total: 5, message: "step \(step)") }
            activity.progress(3, total: 5, message: "backwards: dropped")
            return MCPToolResult(content: [.text("done")])
        case "invalid":
            throw MCPInvalidParams("counter_ids must be a list of numbers")
        case "unexpected":
            throw SomeUnexpectedError()
        case "huge":
            return MCPToolResult(content: [.text(String(repeating: "x", count: 2 << 20))])
        case "array":
            return MCPToolResult(content: [.text("rows")], structuredContent: .array([.number(1)]))
        default:
            throw MCPInvalidParams("Unknown tool: \(name)")
        }
    }
}
