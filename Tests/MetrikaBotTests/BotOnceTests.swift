import Foundation
import MetrikaStore
import MetrikaTestSupport
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaBot
@testable import MetrikaModel
@testable import MetrikaUseCases

/// One bot per token, each update claimed before its answer and recorded after, and a long-running
/// bot that waits out an outage (the binary: EndToEndTests/BotEndToEndTests).
@Suite struct BotOnceTests {
    /// A Bot API shared by several bots: getUpdates drops what an offset confirms, as Telegram does;
    /// sends are recorded (after a yield, so two bots' answers interleave).
    final class SharedBotAPI: HTTPTransport {
        private let state = Mutex((updates: [String](), ids: [Int](), sent: [String]()))

        init(messages: Int) {
            state.withLock { s in
                for id in 1...messages {
                    s.updates.append(BotServerTests.update(id, chat: 42, "/help"))
                    s.ids.append(id)
                }
            }
        }

        var sent: [String] { state.withLock { $0.sent } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let body = (try? JSONSerialization.jsonObject(with: request.body ?? Data())) as? [String: Any] ?? [:]
            switch request.url.lastPathComponent {
            case "getMe":
                return ok(#"{"id":987654321,"first_name":"m","username":"metrika_bot"}"#)
            case "getUpdates":
                await Task.yield()
                let found = state.withLock { s -> [String] in
                    if let offset = body["offset"] as? Int {
                        let kept = s.ids.indices.filter { s.ids[$0] >= offset }
                        s.updates = kept.map { s.updates[$0] }
                        s.ids = kept.map { s.ids[$0] }
                    }
                    return s.updates
                }
                return ok("[" + found.joined(separator: ",") + "]")
            case "sendMessage":
                await Task.yield()
                try await Task.sleep(nanoseconds: 1_000_000)
                state.withLock { $0.sent.append(body["text"] as? String ?? "") }
                return ok(#"{"message_id":1,"chat":{"id":42}}"#)
            default:
                return ok("true")
            }
        }

        private func ok(_ result: String) -> HTTPResponse {
            HTTPResponse(status: 200, body: Data(#"{"ok":true,"result":\#(result)}"#.utf8))
        }
    }

    /// Requests to stop sent by hand.
    final class ManualStop: StopRequests {
        private let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)
        func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> @Sendable () -> Void {
            self.handler.withLock { $0 = handler }
            return { self.handler.withLock { $0 = nil } }
        }
        func send() { handler.withLock { $0 }?(SIGTERM) }
    }

    func server(
        _ transport: any HTTPTransport, store: HistoryStore, activity: RecordedActivity = RecordedActivity(),
        stop: ManualStop? = nil, sleep: @escaping @Sendable (Double) async throws -> Void = { _ in }
    ) throws -> BotServer {
        let bot = try TelegramBot(
            token: BotServerTests.token, transport: transport, timeout: 5, sleep: { _ in }, now: { testNow })
        let backend = BotCommands.Backend(
            counters: { [] }, loader: { _ in throw BotUsage("no history here") }, alerts: { [] },
            activity: activity, defaultCounter: nil)
        return BotServer(
            bot: bot, allowed: [42], store: store, commands: BotCommands(backend: backend), now: { testNow },
            stopRequests: stop, stranger: { _ in }, limited: { _ in }, sleep: sleep)
    }

    /// Measured on main: two `bot --once` started together answered 15 of 15 messages twice.
    @Test func twoOnceRunsTogetherAnswerEachMessageOnce() async throws {
        let database = try TemporaryDatabase()
        let api = SharedBotAPI(messages: 15)
        let first = try await HistoryStore.open(path: database.path)
        let second = try await HistoryStore.open(path: database.path)
        async let one = server(api, store: first).run(once: true)
        async let two = server(api, store: second).run(once: true)
        let (a, b) = try await (one, two)
        #expect(api.sent.count == 15, "\(api.sent.count) answers to 15 messages")
        #expect(a.answered + b.answered == 15)
        #expect(try await first.botOffset(botID: 987_654_321) == 16)
    }

    /// Measured on main: the offset was kept before the answer, so a run that died mid-answer lost
    /// the message. Now it stays claimed and the next run answers it.
    @Test func anUpdateWhoseAnswerDidNotGoIsAnsweredByTheNextRun() async throws {
        let database = try TemporaryDatabase()
        let store = try await HistoryStore.open(path: database.path)
        let identity = BotServerTests.ok(#"{"id":987654321,"first_name":"m","username":"metrika_bot"}"#)
        let pending = BotServerTests.ok("[" + BotServerTests.update(5, chat: 42, "/help") + "]")
        let down = FakeTransport(
            [identity, BotServerTests.ok("true"), BotServerTests.ok("true"), pending]
                + Array(repeating: .fail(.cannotConnect("refused")), count: 5))
        await #expect(throws: TelegramError.self) { try await server(down, store: store).run(once: true) }
        #expect(try await store.botOffset(botID: 987_654_321) == nil, "the offset moved past an unanswered message")

        let activity = RecordedActivity()
        let up = FakeTransport([
            identity, BotServerTests.ok("true"), BotServerTests.ok("true"), pending,
            BotServerTests.ok(#"{"message_id":1,"chat":{"id":42}}"#), BotServerTests.ok("[]")
        ])
        let summary = try await server(up, store: store, activity: activity).run(once: true)
        #expect(summary.answered == 1)
        #expect(up.requests.filter { $0.url.lastPathComponent == "sendMessage" }.count == 1)
        #expect(try await store.botOffset(botID: 987_654_321) == 6)
        #expect(activity.notes.contains { $0.contains("update 5 was being answered") }, "\(activity.notes)")

        // Answered and recorded: a Bot API that hands it out again gets no second answer.
        let again = FakeTransport([
            identity, BotServerTests.ok("true"), BotServerTests.ok("true"), pending, BotServerTests.ok("[]")
        ])
        #expect(try await server(again, store: store).run(once: true).answered == 0)
        #expect(again.requests.allSatisfy { $0.url.lastPathComponent != "sendMessage" })
    }

    /// A long-running bot whose lease another live one holds ends at once in one line (75); a
    /// `--once` run facing it too; a lease left by a process that is gone is taken.
    @Test func aSecondLongRunningBotEndsInOneLine() async throws {
        let database = try TemporaryDatabase()
        let store = try await HistoryStore.open(path: database.path)
        let other = BotLeaseHolder(
            id: "other", pid: getpid(), host: BotServer.hostName, serving: true, since: testNow)
        #expect(
            try await store.takeBotLease(
                botID: 987_654_321, holder: other, now: testNow, seconds: 120, isAlive: BotServer.isAlive) == nil)
        for once in [false, true] {
            let transport = SharedBotAPI(messages: 1)
            do {
                try await server(transport, store: store).run(once: once)
                Issue.record("a second bot ran (once: \(once))")
            } catch let error as BotLeaseError {
                #expect(error.exitCode == 75)
                #expect(
                    error.message.hasPrefix("Another metrika bot with this bot token is serving (pid \(getpid())")
                        && !error.message.contains("\n"), "\(error.message)")
            }
            #expect(transport.sent.isEmpty)
        }
        // Its process gone (killed with SIGKILL): the lease is free at once.
        try await store.releaseBotLease(botID: 987_654_321, holderID: "other")
        let gone = BotLeaseHolder(id: "gone", pid: Int32.max, host: BotServer.hostName, serving: true, since: testNow)
        _ = try await store.takeBotLease(
            botID: 987_654_321, holder: gone, now: testNow, seconds: 120, isAlive: { _ in true })
        let transport = SharedBotAPI(messages: 2)
        #expect(try await server(transport, store: store).run(once: true).answered == 2)
    }

    /// Measured on main: the long-running bot exited 69 about 7 s after the Bot API stopped
    /// answering. Now it waits (1 s, doubling, at most a minute apart), says so once, and once that
    /// it is back.
    @Test func theLongRunningBotWaitsOutAnOutage() async throws {
        let database = try TemporaryDatabase()
        let store = try await HistoryStore.open(path: database.path)
        let steps: [FakeTransport.Step] =
            [
                .fail(.cannotConnect("refused")), .fail(.cannotConnect("refused")), .fail(.cannotConnect("refused")),
                .fail(.cannotConnect("refused")),
                .fail(.cannotConnect("refused")),
                BotServerTests.ok(#"{"id":987654321,"first_name":"m","username":"metrika_bot"}"#),
                BotServerTests.ok("true"), BotServerTests.ok("true")
            ]
            + Array(repeating: FakeTransport.Step.fail(.timedOut), count: 40)
            + [
                BotServerTests.ok("[" + BotServerTests.update(1, chat: 42, "/help") + "]"),
                BotServerTests.ok(#"{"message_id":1,"chat":{"id":42}}"#)
            ]
        let transport = FakeTransport(steps)
        let activity = RecordedActivity()
        let stop = ManualStop()
        let waits = Mutex([Double]())
        let summary = try await server(
            transport, store: store, activity: activity, stop: stop,
            sleep: { seconds in
                // After the answer the steps run out (500 each): the second outage's first wait stops it.
                if waits.withLock({
                    $0.append(seconds)
                    return $0.count
                }) == 10 {
                    stop.send()
                }
            }
        ).run(once: false)
        #expect(summary.answered == 1)
        #expect(waits.withLock { $0 } == [1, 1, 2, 4, 8, 16, 32, 60, 60, 1], "\(waits.withLock { $0 })")
        let waiting = activity.notes.filter { $0.contains("Waiting: trying again") }
        let back = activity.notes.filter { $0.contains("answers again") }
        #expect(waiting.count == 3 && back.count == 2, "\(activity.notes)")
        #expect(!activity.notes.joined().contains("secretPart"))
        #expect(try await store.botOffset(botID: 987_654_321) == 2)
    }

    /// Found by the bot's fault drill (DeliveryDrillEndToEndTests): a SIGTERM while `bot --once`
    /// answered the first of a batch let it answer the whole batch (up to 100 updates, each maybe a
    /// report) before it stopped. Now the answer in flight finishes and the rest waits for the next run.
    @Test func aStopMidBatchFinishesTheAnswerInFlightAndLeavesTheRest() async throws {
        final class StopOnFirstAnswer: HTTPTransport {
            let api = SharedBotAPI(messages: 5)
            let stop = ManualStop()
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                if request.url.lastPathComponent == "sendMessage", api.sent.isEmpty { stop.send() }
                return try await api.send(request)
            }
        }
        let database = try TemporaryDatabase()
        let store = try await HistoryStore.open(path: database.path)
        let transport = StopOnFirstAnswer()
        let first = try await server(transport, store: store, stop: transport.stop).run(once: true)
        #expect(first.answered == 1, "a stop mid-batch answered \(first.answered) of 5")
        #expect(transport.api.sent.count == 1)
        #expect(try await store.botOffset(botID: 987_654_321) == 2)
        let second = try await server(transport.api, store: store).run(once: true)
        #expect(second.answered == 4)
        #expect(transport.api.sent.count == 5)
    }
}
