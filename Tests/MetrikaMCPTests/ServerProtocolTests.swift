import MetrikaMCP
import MetrikaRender
import Testing

/// The JSON-RPC framing and error codes, in process with a fake catalogue.
@Suite struct ServerErrorCodeTests {
    @Test func aNonJSONLineIsAParseErrorWithANullIDAndServingGoesOn() async throws {
        let harness = ServerHarness()
        harness.send("not json at all")
        let answer = try await harness.next()
        #expect(errorCode(answer) == -32700)
        #expect(member(answer, "id") == .null)
        harness.send(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        #expect(member(try await harness.next(), "result") == .object([]))
        _ = await harness.close()
    }

    @Test func invalidRequestsAreAnsweredMinus32600() async throws {
        let harness = ServerHarness()
        let cases: [(String, JSONValue)] = [
            (#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, .null),
            (#"42"#, .null),
            (#"{"id":2,"method":"ping"}"#, .number(2)),
            (#"{"jsonrpc":"1.0","id":"v","method":"ping"}"#, .string("v")),
            (#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#, .null),
            (#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, .null),
            (#"{"jsonrpc":"2.0","id":3,"method":7}"#, .number(3)),
            (#"{"jsonrpc":"2.0","id":4}"#, .number(4))
        ]
        for (line, id) in cases {
            harness.send(line)
            let answer = try await harness.next()
            #expect(errorCode(answer) == -32600, "\(line)")
            #expect(member(answer, "id") == id, "\(line)")
        }
        harness.send(frame: .tooLong(idText: nil))
        #expect(errorCode(try await harness.next()) == -32600)
        harness.send(frame: .tooLong(idText: "11"))
        let oversized = try await harness.next()
        #expect(errorCode(oversized) == -32600 && member(oversized, "id") == .number(11))
        // A response from the client (this server asks nothing) and unknown notifications: no answer.
        harness.send(#"{"jsonrpc":"2.0","id":9,"result":{}}"#)
        harness.send(#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#)
        harness.send(#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#)
        #expect(member(try await harness.next(), "id") == .number(5))
        _ = await harness.close()
    }

    /// Mangled messages through the whole server: every answer is one valid JSON-RPC line, and it still serves.
    @Test func fuzzedLinesGetValidAnswersAndServingGoesOn() async throws {
        let harness = ServerHarness()
        try await harness.initialize()
        var generator = SystemRandomNumberGenerator()
        let sample = Array(
            ServerHarness.call(id: "1", tool: "echo", arguments: #"{"counter_ids":[1001],"from":"2024-01-01"}"#).utf8)
        for _ in 0..<300 {
            var mutated = sample
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) {
                mutated = Array(mutated[..<Int.random(in: 0..<mutated.count, using: &generator)])
            }
            harness.send(frame: .line(mutated.filter { $0 != 0x0A }))
        }
        harness.send(#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#)
        var answers = 0
        while true {
            let answer = try await harness.next()
            answers += 1
            #expect(member(answer, "jsonrpc") == .string("2.0"))
            if member(answer, "id") == .string("last") { break }
        }
        #expect(answers <= 301)
        _ = await harness.close()
    }

    @Test func idsAreEchoedExactly() async throws {
        let harness = ServerHarness()
        for id in ["1.0", "12345678901234567890", "-0", #""abc""#, #""\u0041""#, "7e0"] {
            harness.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"ping"}"#)
            let line = try #require(await harness.output.next())
            #expect(line == #"{"jsonrpc":"2.0","id":\#(id),"result":{}}"# + "\n")
        }
        _ = await harness.close()
    }

    @Test func unknownMethodsAndBadParams() async throws {
        let harness = ServerHarness()
        try await harness.initialize()
        let cases: [(String, Double)] = [
            (#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#, -32601),
            (#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}"#, -32601),
            (#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1]}"#, -32602),
            (#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":[1,2]}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nothing"}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"zzz"}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#, -32600)
        ]
        for (line, code) in cases {
            harness.send(line)
            #expect(errorCode(try await harness.next()) == code, "\(line)")
        }
        harness.send(ServerHarness.call(id: "9", tool: "invalid"))
        let invalid = try await harness.next()
        #expect(errorCode(invalid) == -32602)
        #expect(member(invalid, "error", "message") == .string("counter_ids must be a list of numbers"))
        _ = await harness.close()
    }

    @Test func requestsBeforeInitializeAreRefusedButPingAnswers() async throws {
        let harness = ServerHarness()
        harness.send(#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        #expect(errorCode(try await harness.next()) == -32600)
        harness.send(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#)
        #expect(member(try await harness.next(), "result") == .object([]))
        _ = await harness.close()
    }
}

/// Results of tools/call: content blocks, structured content, errors, the size bound.
@Suite struct ServerCallResultTests {
    @Test func textStructuredContentAndImages() async throws {
        let harness = ServerHarness()
        try await harness.initialize("2025-06-18")
        harness.send(ServerHarness.call(id: "1", tool: "echo", arguments: #"{"counter_ids":[1001]}"#))
        let echo = try await harness.next()
        #expect(
            member(echo, "result", "content")
                == .array([.object([("type", .string("text")), ("text", .string("echo"))])]))
        #expect(member(echo, "result", "structuredContent", "arguments", "counter_ids") == .array([.number(1001)]))
        #expect(member(echo, "result", "isError") == .bool(false))
        #expect(member(echo, "result", "resultType") == nil, "no resultType before 2026-07-28")
        harness.send(ServerHarness.call(id: "2", tool: "image"))
        let image = try await harness.next()
        #expect(
            member(image, "result", "content")
                == .array([
                    .object([
                        ("type", .string("image")), ("data", .string("iVBORw==")), ("mimeType", .string("image/png"))
                    ]),
                    .object([("type", .string("text")), ("text", .string("a chart"))])
                ]))
        // Through 2025-11-25 structuredContent must be an object: an array is left out.
        harness.send(ServerHarness.call(id: "3", tool: "array"))
        #expect(member(try await harness.next(), "result", "structuredContent") == nil)
        _ = await harness.close()
    }

    @Test func anUnexpectedFailureIsAnErrorResultWithoutTheSwiftError() async throws {
        let harness = ServerHarness()
        try await harness.initialize()
        harness.send(ServerHarness.call(id: "1", tool: "unexpected"))
        let answer = try await harness.next()
        #expect(member(answer, "result", "isError") == .bool(true))
        let text = answer.serialized()
        #expect(!text.contains("SomeUnexpectedError"))
        #expect(harness.diagnostics.all.count == 1)
        _ = await harness.close()
    }

    @Test func anAnswerOverTheBoundIsReplacedByAnErrorResultSayingSo() async throws {
        let harness = ServerHarness()
        try await harness.initialize()
        harness.send(ServerHarness.call(id: "1", tool: "huge"))
        let line = try #require(await harness.output.next())
        #expect(line.utf8.count < 1 << 20)
        let answer = try BoundedJSONParser.parse(String(line.dropLast()))
        #expect(member(answer, "result", "isError") == .bool(true))
        #expect(line.contains("larger than 1 MB"))
        _ = await harness.close()
    }
}
