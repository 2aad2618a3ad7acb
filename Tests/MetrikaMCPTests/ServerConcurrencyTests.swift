import MetrikaMCP
import MetrikaRender
import Synchronization
import Testing

/// Calls in flight: out-of-order answers, cancellation, progress, the 3-at-once bound, end of input.
@Suite struct ServerConcurrencyTests {
    @Test func pipelinedCallsAreAnsweredOutOfOrderEachOnce() async throws {
        let catalogue = FakeCatalogue()
        let harness = ServerHarness(catalogue: catalogue)
        try await harness.initialize()
        harness.send(ServerHarness.call(id: "1", tool: "slow", arguments: #"{"tag":"a"}"#))
        harness.send(ServerHarness.call(id: "2", tool: "echo"))
        #expect(member(try await harness.next(), "id") == .number(2), "the quick call is not held behind the slow one")
        catalogue.latch.open()
        #expect(member(try await harness.next(), "id") == .number(1))
        #expect(await harness.close().isEmpty, "each answered once")
    }

    @Test func cancelledStopsTheCallAndItGetsNoResponse() async throws {
        let catalogue = FakeCatalogue()
        let harness = ServerHarness(catalogue: catalogue)
        try await harness.initialize()
        harness.send(ServerHarness.call(id: "\"job\"", tool: "slow", arguments: #"{"tag":"c"}"#))
        #expect(await catalogue.log.waitForStarts(1))
        harness.send(
            #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"job","reason":"user"}}"#)
        // Cancelling an id that is not at work is ignored.
        harness.send(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":404}}"#)
        harness.send(#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#)
        #expect(member(try await harness.next(), "id") == .number(5))
        let rest = await harness.close()
        #expect(catalogue.log.cancelled == ["\"c\""], "the call's Task was cancelled, so its work stopped")
        #expect(rest.isEmpty, "no response for a cancelled request: \(rest)")
    }

    @Test func atMostThreeCallsWorkAtOnceTheRestWaitTheirTurn() async throws {
        let catalogue = FakeCatalogue()
        let harness = ServerHarness(catalogue: catalogue)
        try await harness.initialize()
        for id in 1...6 { harness.send(ServerHarness.call(id: "\(id)", tool: "slow", arguments: #"{"tag":\#(id)}"#)) }
        #expect(await catalogue.log.waitForStarts(3))
        // Every request has been read and dispatched once the ping behind them is answered.
        harness.send(#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#)
        #expect(member(try await harness.next(), "id") == .string("p"))
        for _ in 0..<200 { await Task.yield() }
        #expect(catalogue.log.started.count == 3, "three at work, three waiting")
        // A waiting call that is cancelled leaves the queue without a turn.
        harness.send(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}"#)
        catalogue.latch.open()
        var answered: Set<String> = []
        for _ in 0..<5 { answered.insert(member(try await harness.next(), "id")?.serialized() ?? "") }
        #expect(answered == ["1", "2", "3", "4", "5"])
        #expect(await harness.close().isEmpty)
        #expect(catalogue.log.mostAtWork == 3)
        #expect(await harness.server.mostCallsAtOnce == 3)
        #expect(!catalogue.log.started.contains("6"))
    }

    @Test func progressGoesToTheTokenIncreasingAndBeforeTheResult() async throws {
        let harness = ServerHarness()
        try await harness.initialize()
        harness.send(ServerHarness.call(id: "1", tool: "progress", meta: #""_meta":{"progressToken":"tok-1"}"#))
        var progress: [JSONValue] = []
        while true {
            let line = try await harness.next()
            if member(line, "method") == .string("notifications/progress") {
                #expect(member(line, "params", "progressToken") == .string("tok-1"))
                #expect(member(line, "params", "total") == .number(5))
                progress.append(member(line, "params", "progress") ?? .null)
                continue
            }
            #expect(member(line, "id") == .number(1))
            break
        }
        #expect(progress == (1...5).map { .number(Double($0)) }, "increasing only; the step backwards is dropped")
        // Without a token, no notifications.
        harness.send(ServerHarness.call(id: "2", tool: "progress"))
        #expect(member(try await harness.next(), "id") == .number(2))
        #expect(await harness.close().isEmpty)
    }

    @Test func progressIsThrottled() async throws {
        var options = ServerHarness.testOptions
        options.progressInterval = .seconds(3600)
        let harness = ServerHarness(options: options)
        try await harness.initialize()
        harness.send(ServerHarness.call(id: "1", tool: "progress", meta: #""_meta":{"progressToken":7}"#))
        let first = try await harness.next()
        #expect(member(first, "params", "progress") == .number(1))
        #expect(member(first, "params", "progressToken") == .number(7))
        let last = try await harness.next()
        #expect(member(last, "params", "progress") == .number(5), "the one reaching the total always goes")
        #expect(member(try await harness.next(), "id") == .number(1))
        _ = await harness.close()
    }

    @Test func endOfInputLetsQuickWorkFinishAndCancelsWhatHangs() async throws {
        let catalogue = FakeCatalogue()
        let harness = ServerHarness(catalogue: catalogue)
        try await harness.initialize()
        harness.send(ServerHarness.call(id: "1", tool: "slow", arguments: #"{"tag":"hang"}"#))
        harness.send(ServerHarness.call(id: "2", tool: "echo"))
        #expect(await catalogue.log.waitForStarts(1))
        let rest = await harness.close()
        #expect(rest.count == 1 && rest[0].contains(#""id":2"#), "\(rest)")
        #expect(catalogue.log.cancelled == ["\"hang\""])
    }

    /// `metrika mcp < requests.jsonl`: stdin ends at once, yet every call still at work is finished
    /// and answered (bounded by the calls' own limits, no grace clock of the server's).
    @Test func byDefaultEndOfInputAnswersEveryCallStillAtWork() async throws {
        let catalogue = FakeCatalogue()
        let slept = Mutex(false)
        var options = MCPServerOptions()
        options.progressInterval = .zero
        // Any grace would be over at once on this clock.
        options.sleep = { _ in slept.withLock { $0 = true } }
        let harness = ServerHarness(catalogue: catalogue, options: options)
        try await harness.initialize()
        harness.send(ServerHarness.call(id: "2", tool: "slow", arguments: #"{"tag":"check"}"#))
        harness.send(ServerHarness.call(id: "3", tool: "slow", arguments: #"{"tag":"explain"}"#))
        #expect(await catalogue.log.waitForStarts(2))
        async let rest = harness.close()
        for _ in 0..<50 { await Task.yield() }
        catalogue.latch.open()
        let lines = await rest
        #expect(
            lines.count == 2 && lines.contains { $0.contains(#""id":2"#) }
                && lines.contains { $0.contains(#""id":3"#) }, "\(lines)")
        #expect(catalogue.log.cancelled.isEmpty)
        #expect(!slept.withLock { $0 }, "no grace clock started")
    }

    @Test func endOfInputWaitsForWorkThatEndsInTime() async throws {
        let catalogue = FakeCatalogue()
        var options = ServerHarness.testOptions
        options.endOfInputGrace = .seconds(60)
        let harness = ServerHarness(catalogue: catalogue, options: options)
        try await harness.initialize()
        harness.send(ServerHarness.call(id: "1", tool: "slow", arguments: #"{"tag":"ok"}"#))
        #expect(await catalogue.log.waitForStarts(1))
        async let rest = harness.close()
        catalogue.latch.open()
        let lines = await rest
        #expect(lines.count == 1 && lines[0].contains("slow \\\"ok\\\" done"), "\(lines)")
        #expect(catalogue.log.cancelled.isEmpty)
    }
}
