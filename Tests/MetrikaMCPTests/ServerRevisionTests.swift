import MetrikaMCP
import MetrikaRender
import Testing

/// The handshake era's negotiation and the stateless 2026-07-28 revision.
@Suite struct ServerRevisionTests {
    @Test(arguments: [
        ("2024-11-05", "2024-11-05"), ("2025-03-26", "2025-03-26"), ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"), ("1999-01-01", "2025-11-25"), ("2026-07-28", "2025-11-25")
    ])
    func initializeAnswersTheClientsVersionWhenSupportedElseTheLatest(asked: String, answered: String) async throws {
        let harness = ServerHarness()
        harness.send(
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"\#(asked)","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
        )
        let answer = try await harness.next()
        #expect(member(answer, "result", "protocolVersion") == .string(answered))
        #expect(member(answer, "result", "serverInfo", "name") == .string("metrika"))
        #expect(member(answer, "result", "capabilities", "tools") != nil)
        #expect(member(answer, "result", "resultType") == nil)
        _ = await harness.close()
    }

    @Test func toolDescriptionsFollowTheNegotiatedRevision() async throws {
        func firstTool(_ version: String) async throws -> JSONValue {
            let harness = ServerHarness()
            try await harness.initialize(version)
            harness.send(#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
            let answer = try await harness.next()
            _ = await harness.close()
            guard case .array(let tools)? = member(answer, "result", "tools"), let first = tools.first else {
                return .null
            }
            #expect(member(answer, "result", "ttlMs") == nil)
            return first
        }
        let oldest = try await firstTool("2024-11-05")
        #expect(
            member(oldest, "annotations") == nil && member(oldest, "outputSchema") == nil
                && member(oldest, "title") == nil)
        #expect(member(oldest, "inputSchema", "type") == .string("object"))
        let march = try await firstTool("2025-03-26")
        #expect(member(march, "annotations", "readOnlyHint") == .bool(true) && member(march, "outputSchema") == nil)
        let june = try await firstTool("2025-06-18")
        #expect(
            member(june, "title") == .string("The echo tool")
                && member(june, "outputSchema", "type") == .string("object"))
    }

    @Test func aHandshakeConnectionRefusesTheStatelessEnvelopeAndDiscover() async throws {
        let harness = ServerHarness()
        try await harness.initialize()
        harness.send(#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{\#(ServerHarness.envelope)}}"#)
        #expect(errorCode(try await harness.next()) == -32600)
        harness.send(#"{"jsonrpc":"2.0","id":2,"method":"server/discover"}"#)
        #expect(errorCode(try await harness.next()) == -32601)
        // A progress token alone in _meta is handshake-era traffic.
        harness.send(ServerHarness.call(id: "3", tool: "echo", meta: #""_meta":{"progressToken":1}"#))
        #expect(member(try await harness.next(), "result", "isError") == .bool(false))
        _ = await harness.close()
    }

    @Test func discoverAndListCarryResultTypeAndCachingHints() async throws {
        let harness = ServerHarness()
        harness.send(#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{\#(ServerHarness.envelope)}}"#)
        let discover = try await harness.next()
        #expect(member(discover, "result", "supportedVersions") == .array([.string("2026-07-28")]))
        #expect(member(discover, "result", "resultType") == .string("complete"))
        #expect(member(discover, "result", "ttlMs") == .number(3_600_000))
        #expect(member(discover, "result", "cacheScope") == .string("private"))
        #expect(member(discover, "result", "capabilities", "tools") != nil)
        #expect(member(discover, "result", "_meta", "io.modelcontextprotocol/serverInfo", "name") == .string("metrika"))
        var orders: [[String]] = []
        for id in 2...3 {
            harness.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"tools/list","params":{\#(ServerHarness.envelope)}}"#)
            let list = try await harness.next()
            #expect(member(list, "result", "resultType") == .string("complete"))
            #expect(member(list, "result", "cacheScope") == .string("private"))
            guard case .array(let tools)? = member(list, "result", "tools") else {
                Issue.record("no tools")
                continue
            }
            orders.append(tools.compactMap { member($0, "name")?.serialized() })
        }
        #expect(orders.count == 2 && orders[0] == orders[1] && orders[0].first == "\"echo\"")
        harness.send(ServerHarness.call(id: "4", tool: "array", meta: ServerHarness.envelope))
        let call = try await harness.next()
        #expect(member(call, "result", "resultType") == .string("complete"))
        #expect(member(call, "result", "structuredContent") == .array([.number(1)]), "any JSON value in 2026-07-28")
        #expect(member(call, "result", "ttlMs") == nil)
        _ = await harness.close()
    }

    @Test func theStatelessRevisionHasNoPingNoSetLevelNoHandshake() async throws {
        let harness = ServerHarness()
        harness.send(#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{\#(ServerHarness.envelope)}}"#)
        _ = try await harness.next()
        for (id, method) in [(2, "ping"), (3, "logging/setLevel")] {
            harness.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":{\#(ServerHarness.envelope)}}"#)
            #expect(errorCode(try await harness.next()) == -32601, "\(method)")
        }
        harness.send(
            #"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
        )
        let initialize = try await harness.next()
        #expect(errorCode(initialize) == -32022)
        #expect(member(initialize, "error", "data", "supported") == .array([.string("2026-07-28")]))
        #expect(member(initialize, "error", "data", "requested") == .string("2025-11-25"))
        _ = await harness.close()
    }

    @Test func everyStatelessRequestMustCarryASupportedEnvelope() async throws {
        let harness = ServerHarness()
        harness.send(#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{\#(ServerHarness.envelope)}}"#)
        _ = try await harness.next()
        harness.send(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        #expect(errorCode(try await harness.next()) == -32602)
        harness.send(
            #"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
        )
        #expect(errorCode(try await harness.next()) == -32602, "clientCapabilities is required")
        harness.send(
            #"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        )
        let unsupported = try await harness.next()
        #expect(errorCode(unsupported) == -32022)
        #expect(member(unsupported, "error", "data", "requested") == .string("2099-01-01"))
        _ = await harness.close()
    }
}
