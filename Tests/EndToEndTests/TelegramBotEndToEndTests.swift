import Foundation
import MetrikaTestSupport
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaUseCases

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// TelegramBot against the built Bot API simulator (`metrika-fake-api --telegram`) over real loopback
/// HTTP through libcurl: one server for the suite, started by its one test and stopped at its end.
/// Waits (429's retry_after, backoff) go through a recording sleep, so nothing really waits.
@Suite("Telegram Bot API end to end", .blockingLanes)
struct TelegramBotEndToEndTests {
    static let token = "123456789:AAE-simulated_TOKEN_0123456789abcdefgh"

    /// A running `metrika-fake-api --telegram` on a free port.
    final class BotAPI: @unchecked Sendable {
        let process = Process()
        let port: Int
        var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

        init() throws {
            process.executableURL = URL(fileURLWithPath: Binaries.fakeAPI)
            process.arguments = [
                "--telegram", "--port", "0", "--token", TelegramBotEndToEndTests.token,
                "--parent-pid", String(getpid())
            ]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            ChildProcesses.register(process.processIdentifier)
            port = try readAnnouncedPort(of: process, from: out, name: "metrika-fake-api --telegram")
        }

        func stop() {
            ChildProcesses.end(process)
        }

        func control(_ method: String, _ path: String, _ body: String? = nil) throws -> [String: Any] {
            var request = URLRequest(url: baseURL.appendingPathComponent(path))
            request.httpMethod = method
            request.httpBody = body.map { Data($0.utf8) }
            let data = try blockingRequest(request)
            return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        }

        func sent() throws -> [[String: Any]] { try control("GET", "__tg/sent")["sent"] as? [[String: Any]] ?? [] }
    }

    /// The bot's clock: it moves only when the bot sleeps, and records each sleep.
    final class Sleeps: Sendable {
        private let state = Mutex((now: Date(timeIntervalSince1970: 1_780_000_000), waits: [Double]()))
        var all: [Double] { state.withLock { $0.waits } }
        var now: Date { state.withLock { $0.now } }
        func add(_ seconds: Double) {
            state.withLock {
                $0.waits.append(seconds)
                $0.now += seconds
            }
        }
    }

    func bot(_ api: BotAPI, token: String = token, sleeps: Sleeps, timeout: Double = 10) throws -> TelegramBot {
        try TelegramBot(
            token: token, baseURL: api.baseURL, transport: CurlTransport(), timeout: timeout,
            retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.01, maxTotalWait: 1),
            sleep: { sleeps.add($0) }, now: { sleeps.now })
    }

    @Test func theClientAgainstTheSimulator() async throws {
        let api = try BotAPI()
        defer { api.stop() }
        let sleeps = Sleeps()
        let bot = try bot(api, sleeps: sleeps)

        // The token and the identity.
        #expect(try await bot.getMe().username == "metrika_test_bot")
        let stranger = try self.bot(api, token: "111:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", sleeps: sleeps)
        await #expect(throws: TelegramError.unauthorized) { _ = try await stranger.getMe() }

        // HTML-hostile text from Metrika, escaped once, arrives whole; a long digest in several messages.
        let hostile = "<b>" + TelegramHTML.escape(#"<script>alert("x")</script> & Co"#) + "</b>"
        try await bot.sendText(hostile, to: TelegramChatID(42))
        let digest = (1...5000).map { "<code>\($0)</code> " + TelegramHTML.escape("Ромашка <\($0)> & visits") }.joined(
            separator: "\n")
        let ids = try await bot.sendText("<pre>" + digest + "</pre>", to: TelegramChatID(42))
        #expect(ids.count > 10)
        var sent = try api.sent()
        #expect(sent.first?["text"] as? String == hostile)
        #expect(sent.count == 1 + ids.count)

        // A PNG photo with its caption, an SVG as a document.
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 1, count: 2048)
        try await bot.sendPhoto(
            png, fileName: "visits.png", caption: "<b>Visits</b> " + TelegramHTML.escape("<1001>"),
            to: TelegramChatID(42))
        try await bot.sendDocument(
            Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8), fileName: "visits.svg",
            contentType: "image/svg+xml",
            to: TelegramChatID(42))
        sent = try api.sent()
        let photo = try #require(sent.first { $0["method"] as? String == "sendPhoto" })
        #expect(photo["file_bytes"] as? Int == png.count)
        #expect(photo["caption"] as? String == "<b>Visits</b> &lt;1001&gt;")
        #expect(
            sent.contains { $0["method"] as? String == "sendDocument" && $0["file_name"] as? String == "visits.svg" })

        // 429: waited exactly retry_after, then sent; 502 retried; a migrated group followed.
        try await bot.sendText("flood", to: TelegramChatID(429))
        #expect(sleeps.all.last == 3)
        // The digest's messages went one per 1.05 s, and the 19th waited for the 63-second window.
        #expect(sleeps.all.contains { abs($0 - 1.05) < 0.01 })
        #expect(sleeps.all.contains { $0 > 30 })
        try await bot.sendText("gateway", to: TelegramChatID(502))
        try await bot.sendText("group", to: TelegramChatID(-4001))
        #expect(bot.migrations[TelegramChatID(-4001)] == TelegramChatID(-1_001_234_567_890))
        sent = try api.sent()
        #expect(sent.contains { $0["chat_id"] as? String == "-1001234567890" && $0["text"] as? String == "group" })
        #expect(sent.contains { $0["chat_id"] as? String == "502" })

        // Refusals, each a typed error naming the chat; the token in none of them.
        let secretHalf = String(Self.token.split(separator: ":")[1])
        let refusals: [(Int64, TelegramError)] = [
            (404, .chatNotFound(chat: "404")),
            (403, .blocked(chat: "403", reason: "bot was blocked by the user")),
            (4290, .tooManyRequests(retryAfter: 3600)),
            (
                999,
                .garbage(
                    method: "sendMessage", status: 200, detail: "it starts <html><body>upstream says hi</body></html>")
            ),
            (6000, .answerTooLarge(limit: TelegramBot.maxResponseBytes))
        ]
        for (chat, expected) in refusals {
            do {
                try await bot.sendText("x", to: TelegramChatID(chat))
                Issue.record("chat \(chat) took it")
            } catch let error as TelegramError {
                #expect(error == expected)
                #expect(!error.message.contains(secretHalf))
            }
        }
        await #expect(throws: TelegramError.self) { try await bot.sendText("<blink>x</blink>", to: TelegramChatID(42)) }

        // A Bot API that hangs: a timeout, retried, then an error without the token.
        let impatient = try self.bot(api, sleeps: sleeps, timeout: 0.5)
        do {
            try await impatient.sendText("x", to: TelegramChatID(504))
            Issue.record("a hanging chat took it")
        } catch let error as TelegramError {
            #expect(error == .timedOut(seconds: 0.5))
            #expect(!error.message.contains(secretHalf))
        }

        // The bot's side: commands, the webhook, updates with the offset.
        try await bot.setMyCommands([
            TelegramBotCommand("report", "A report"), TelegramBotCommand("today", "Today so far")
        ])
        try await bot.deleteWebhook()
        _ = try api.control("POST", "__tg/updates", #"{"chat_id": 42, "text": "/report 1001"}"#)
        _ = try api.control("POST", "__tg/updates", #"{"chat_id": -100777, "text": "/today@metrika_test_bot"}"#)
        let updates = try await bot.getUpdates(offset: nil, timeout: 0)
        #expect(updates.compactMap(\.message?.text) == ["/report 1001", "/today@metrika_test_bot"])
        let confirmed = try await bot.getUpdates(offset: updates[0].id + 1, timeout: 0)
        #expect(confirmed.map(\.id) == [updates[1].id])
        // A long poll that meets an update returns it at once.
        // (A thread of its own: the blocking control request must not wait for a free cooperative thread.)
        let typist = Thread {
            usleep(200_000)
            _ = try? api.control("POST", "__tg/updates", #"{"chat_id": 42, "text": "/help"}"#)
        }
        typist.start()
        let started = Date()
        let polled = try await bot.getUpdates(offset: updates[1].id + 1, timeout: 20)
        #expect(polled.compactMap(\.message?.text) == ["/help"])
        #expect(Date().timeIntervalSince(started) < 19)
    }
}
