import Foundation
import MetrikaTestSupport
import Testing

/// `metrika mcp` driven by the official MCP Python SDK (PyPI `mcp` 2.3.x, the reference client) in
/// both of its connect modes — `legacy` (the initialize handshake) and `auto` (probes the stateless
/// `server/discover`) — plus raw lines on stdin for what a well-behaved client never sends.
/// One simulator for the whole suite; tool cases add steps to `MCPDriver.run` (see Support/mcp_driver.py).
@Suite("MCP end to end", .blockingLanes, .stops(MCPSimulators.plain))
struct MCPEndToEndTests {
    /// The simulator the suite's servers talk to, started once and stopped at the suite's end.
    static var api: SuiteFixture<FakeAPI> { MCPSimulators.plain }
    /// A home directory (config, history) shared by the suite's runs.
    static let home = Result { try TemporaryDirectory() }

    static func environment(extra: [String: String] = [:]) throws -> [String: String] {
        metrikaEnvironment(api: try api.get(), home: try home.get().path, extra: extra)
    }

    @Test(arguments: ["legacy", "auto"])
    func handshakeListAndPing(mode: String) throws {
        let answer = try MCPDriver.run(
            mode: mode, environment: try Self.environment(),
            steps: [
                ["op": "list_tools"],
                ["op": "ping"],
                ["op": "call", "name": "no_such_tool", "arguments": [:]],
                ["op": "list_tools"]
            ])
        let results = try #require(answer["results"] as? [[String: Any]])
        try #require(results.count == 4)
        let serverInfo = try #require(answer["server_info"] as? [String: Any])
        #expect(serverInfo["name"] as? String == "metrika")
        let listing = try #require(results[0]["result"] as? [String: Any], "\(results[0])")
        let tools = try #require(listing["tools"] as? [[String: Any]])
        for tool in tools {
            #expect(tool["inputSchema"] is [String: Any], "\(tool)")
            #expect((tool["description"] as? String)?.isEmpty == false, "\(tool)")
        }
        let again = try #require(results[3]["result"] as? [String: Any])
        #expect(
            (again["tools"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                == tools.compactMap { $0["name"] as? String }, "the order is fixed")
        let unknown = try #require(results[2]["error"] as? [String: Any], "\(results[2])")
        #expect(unknown["code"] as? Int == -32602)
        if mode == "legacy" {
            #expect(answer["protocol_version"] as? String == "2025-11-25")
            #expect(
                results[1]["result"] as? [String: Any] != nil, "ping answers {} in the handshake era: \(results[1])")
        } else {
            #expect(answer["protocol_version"] as? String == "2026-07-28")
            #expect(listing["resultType"] as? String == "complete")
            #expect((listing["ttlMs"] as? Int ?? 0) > 0)
            #expect(listing["cacheScope"] as? String == "private")
            let ping = try #require(results[1]["error"] as? [String: Any], "ping is gone in 2026-07-28: \(results[1])")
            #expect(ping["code"] as? Int == -32601)
        }
    }

    @Test func aBadLineIsAnsweredAndTheServerGoesOnUntilStdinCloses() throws {
        let initialize =
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#
        let lines = [
            "this is not JSON",
            initialize,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            #"{"jsonrpc":"2.0","id":"three","method":"no/such/method"}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":7}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"ping"}"#
        ]
        let run = try metrika(
            ["mcp"], environment: try Self.environment(), stdin: lines.joined(separator: "\n") + "\n", timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let answers = try run.stdoutLines.map { line in
            try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                "stdout carries JSON-RPC lines only: \(line)")
        }
        try #require(answers.count == 6, "\(run.stdout)")
        func code(_ answer: [String: Any]) -> Int? { (answer["error"] as? [String: Any])?["code"] as? Int }
        #expect(code(answers[0]) == -32700 && answers[0]["id"] is NSNull)
        #expect((answers[1]["result"] as? [String: Any])?["protocolVersion"] as? String == "2025-06-18")
        #expect(code(answers[2]) == -32600, "a batch is not MCP")
        #expect(code(answers[3]) == -32601 && answers[3]["id"] as? String == "three")
        #expect(code(answers[4]) == -32602 && answers[4]["id"] as? Int == 4)
        #expect(answers[5]["id"] as? Int == 5 && answers[5]["result"] is [String: Any])
        #expect(!run.stdout.contains(demoToken) && !run.stderr.contains(demoToken))
    }

    @Test func theStatelessRevisionOverRawLines() throws {
        let envelope =
            #""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#
        let lines = [
            #"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{\#(envelope)}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{\#(envelope)}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"ping","params":{\#(envelope)}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#
        ]
        let run = try metrika(
            ["mcp"], environment: try Self.environment(), stdin: lines.joined(separator: "\n") + "\n", timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let answers = try run.stdoutLines.map { line in
            try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                "stdout carries JSON-RPC lines only: \(line)")
        }
        try #require(answers.count == 5, "\(run.stdout)")
        func code(_ answer: [String: Any]) -> Int? { (answer["error"] as? [String: Any])?["code"] as? Int }
        let discover = try #require(answers[0]["result"] as? [String: Any])
        #expect(discover["supportedVersions"] as? [String] == ["2026-07-28"])
        #expect(discover["resultType"] as? String == "complete" && discover["cacheScope"] as? String == "private")
        let list = try #require(answers[1]["result"] as? [String: Any])
        #expect(list["resultType"] as? String == "complete" && (list["ttlMs"] as? Int ?? 0) > 0)
        #expect(code(answers[2]) == -32601, "no ping in 2026-07-28")
        #expect(code(answers[3]) == -32022, "no handshake on a stateless connection")
        #expect(code(answers[4]) == -32602, "every request carries the envelope")
    }

    @Test func anUnknownProfileFailsAtStartLikeEveryCommand() throws {
        let run = try metrika(
            ["mcp", "--profile", "nowhere"], environment: try Self.environment(), stdin: "", timeout: 60)
        #expect(run.status == 78, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("nowhere"))
    }
}

/// Runs Tests/EndToEndTests/Support/mcp_driver.py with the python3 on the test's PATH; skips the test
/// when python3 or the `mcp` package is missing.
enum MCPDriver {
    static let installHint = "scripts/setup installs it: python3 -m pip install 'mcp>=2.3,<2.4'"

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Support/mcp_driver.py").path
    }

    /// The python3 on the test's PATH (the driver itself says, by exit 3, when it lacks the SDK).
    static let python = ToolCheck.locate("python3")

    /// The driver's answer (see the driver's header) for `steps` against `metrika mcp` in `environment`.
    static func run(
        mode: String, environment: [String: String], arguments: [String] = ["mcp"], steps: [[String: Any]],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        guard let python else {
            try Test.cancel(
                "skipped: python3 with the MCP SDK is missing (\(installHint))", sourceLocation: sourceLocation)
        }
        let spec: [String: Any] = [
            "command": [Binaries.metrika] + arguments, "env": environment, "mode": mode, "steps": steps
        ]
        let input = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let run = try runProcess(
            python, [script], environment: ProcessInfo.processInfo.environment, stdin: input, timeout: 120)
        if run.status == 3 {
            try Test.cancel("skipped: the Python MCP SDK is missing (\(installHint))", sourceLocation: sourceLocation)
        }
        guard run.status == 0,
            let answer = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        else {
            throw SimpleError("mcp_driver.py (\(mode)) exited \(run.status): \(run.stderr)\n\(run.stdout)")
        }
        return answer
    }
}
