import Foundation
import MetrikaSystem
import MetrikaTestSupport
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaUseCases

/// TelegramBot over a scripted transport and a fake clock: what it sends, how it reads Telegram's
/// answers, and that the token never shows (the loopback drills are in EndToEndTests/TelegramBotEndToEndTests).
@Suite struct TelegramBotTests {
    static let token = "987654321:AAH-secretPart_0123456789abcdefghijk"
    static let chat = TelegramChatID(123_456_789)

    /// A clock that moves only when the bot sleeps; records each sleep.
    final class FakeClock: Sendable {
        private let state = Mutex((now: Date(timeIntervalSince1970: 1_780_000_000), sleeps: [Double]()))
        var now: Date { state.withLock { $0.now } }
        var sleeps: [Double] { state.withLock { $0.sleeps } }
        func sleep(_ seconds: Double) {
            state.withLock {
                $0.sleeps.append(seconds)
                $0.now = $0.now.addingTimeInterval(seconds)
            }
        }
    }

    final class Notes: Sendable {
        private let lines = Mutex([String]())
        var all: [String] { lines.withLock { $0 } }
        func add(_ line: String) { lines.withLock { $0.append(line) } }
    }

    func bot(_ transport: any HTTPTransport, clock: FakeClock = FakeClock(), notes: Notes = Notes()) throws
        -> TelegramBot
    {
        try TelegramBot(
            token: Self.token, transport: transport, timeout: 5, sleep: { clock.sleep($0) }, now: { clock.now },
            random: { 0.5 }, note: { notes.add($0) })
    }

    static func sent(_ id: Int) -> FakeTransport.Step {
        .respond(200, #"{"ok":true,"result":{"message_id":\#(id),"date":1,"chat":{"id":123456789,"type":"private"}}}"#)
    }

    static func failure(_ code: Int, _ description: String, _ parameters: String = "") -> FakeTransport.Step {
        .respond(
            code,
            #"{"ok":false,"error_code":\#(code),"description":"\#(description)"\#(parameters.isEmpty ? "" : ",\"parameters\":" + parameters)}"#
        )
    }

    func body(_ request: HTTPRequest) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any])
    }

    @Test func sendTextPostsHTMLToTheMethodsURL() async throws {
        let transport = FakeTransport([Self.sent(7)])
        let ids = try await bot(transport).sendText("<b>1001</b> &amp; co", to: Self.chat)
        #expect(ids == [7])
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://api.telegram.org/bot\(Self.token)/sendMessage")
        #expect(request.maxResponseBytes == TelegramBot.maxResponseBytes)
        let sent = try body(request)
        #expect(sent["chat_id"] as? String == "123456789")
        #expect(sent["text"] as? String == "<b>1001</b> &amp; co")
        #expect(sent["parse_mode"] as? String == "HTML")
        #expect((sent["link_preview_options"] as? [String: Any])?["is_disabled"] as? Bool == true)
        // The same bytes every time, members by name, from the one JSON writer (not JSONSerialization's
        // sortedKeys, whose locale collation loads ICU's data into the bot).
        #expect(
            String(decoding: request.body ?? Data(), as: UTF8.self)
                == #"{"chat_id":"123456789","disable_notification":false,"link_preview_options":{"is_disabled":true},"parse_mode":"HTML","text":"<b>1001</b> &amp; co"}"#
        )
    }

    @Test func aLongTextGoesAsSeveralMessages() async throws {
        let text = (1...1000).map { "line \($0) of the digest" }.joined(separator: "\n")
        let transport = FakeTransport((1...10).map { Self.sent($0) })
        let ids = try await bot(transport).sendText(text, to: Self.chat)
        #expect(ids.count > 1 && ids.count == transport.requests.count)
        let texts = try transport.requests.map { try body($0)["text"] as? String ?? "" }
        #expect(texts.allSatisfy { $0.utf16.count <= 4096 })
        #expect(texts.joined(separator: "\n") == text)
    }

    /// Answers every send as delivered, noting the fake clock's time of each.
    final class TimedTransport: HTTPTransport {
        let clock: FakeClock
        private let sends = Mutex([(time: Date, text: String)]())
        init(clock: FakeClock) { self.clock = clock }
        var sent: [(time: Date, text: String)] { sends.withLock { $0 } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let body = try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
            let count = sends.withLock { sends in
                sends.append((clock.now, body?["text"] as? String ?? ""))
                return sends.count
            }
            return HTTPResponse(
                status: 200, headers: [:],
                body: Data(
                    #"{"ok":true,"result":{"message_id":\#(count),"date":1,"chat":{"id":123456789,"type":"private"}}}"#
                        .utf8))
        }
    }

    /// A 5,000-line digest (HTML-hostile names escaped, Cyrillic, markup): messages of at most 4,096
    /// characters cut between lines, nothing lost, in order, and never more than 20 of them to the
    /// chat in any minute of the clock.
    @Test func aFiveThousandLineDigestArrivesWholeInOrderAndPaced() async throws {
        let clock = FakeClock()
        let transport = TimedTransport(clock: clock)
        let lines = (1...5000).map {
            "<code>\($0)</code> " + TelegramHTML.escape("Ромашка <\($0)> & Co: 1 234 visits, -12.5%")
        }
        let digest = lines.joined(separator: "\n")
        let ids = try await bot(transport, clock: clock).sendText(digest, to: Self.chat)
        let sent = transport.sent
        #expect(ids.count == sent.count && sent.count > 40, "\(sent.count) messages")
        #expect(sent.allSatisfy { TelegramHTML.length($0.text) <= TelegramHTML.messageLimit })
        // Whole lines only: joined back with the line breaks the cuts took, the digest is as it was.
        #expect(sent.map(\.text).joined(separator: "\n") == digest)
        #expect(sent.allSatisfy { $0.text.hasPrefix("<code>") && $0.text.hasSuffix("visits, -12.5%") })
        for index in sent.indices.dropFirst(TelegramBot.perChatPerMinute) {
            let gap = sent[index].time.timeIntervalSince(sent[index - TelegramBot.perChatPerMinute].time)
            #expect(gap >= 60, "message \(index + 1) went \(gap) s after the one 20 before it")
        }
        #expect(clock.sleeps.reduce(0, +) >= 60 * Double((sent.count - 1) / TelegramBot.perChatPerMinute))
    }

    @Test func retryAfterIsWaitedExactlyThenTheMessageIsSentAgain() async throws {
        let clock = FakeClock()
        let transport = FakeTransport([
            Self.failure(429, "Too Many Requests: retry after 7", #"{"retry_after":7}"#), Self.sent(1)
        ])
        try await bot(transport, clock: clock).sendText("hi", to: Self.chat)
        #expect(clock.sleeps == [7])
        #expect(transport.requests.count == 2)
    }

    @Test func aRetryAfterLongerThanTheBotWaitsIsTooManyRequests() async throws {
        let clock = FakeClock()
        let transport = FakeTransport([
            Self.failure(429, "Too Many Requests: retry after 3600", #"{"retry_after":3600}"#)
        ])
        await #expect(throws: TelegramError.tooManyRequests(retryAfter: 3600)) {
            try await bot(transport, clock: clock).sendText("hi", to: Self.chat)
        }
        #expect(clock.sleeps.isEmpty)
        #expect(TelegramError.tooManyRequests(retryAfter: 3600).exitCode == ExitCode.tryLater)
    }

    @Test func serverErrorsAndTimeoutsAreRetried() async throws {
        let clock = FakeClock()
        let transport = FakeTransport([
            Self.failure(502, "Bad Gateway"), .respond(503, "<html>busy</html>"), .fail(.timedOut), Self.sent(3)
        ])
        let ids = try await bot(transport, clock: clock).sendText("hi", to: Self.chat)
        #expect(ids == [3])
        #expect(clock.sleeps.count == 3)
    }

    @Test func serverErrorsThatNeverEndAreAnErrorAfterTheRetries() async throws {
        let transport = FakeTransport(Array(repeating: Self.failure(500, "Internal Server Error"), count: 10))
        await #expect(
            throws: TelegramError.serverError(method: "sendMessage", status: 500, description: "Internal Server Error")
        ) {
            try await bot(transport).sendText("hi", to: Self.chat)
        }
        #expect(transport.requests.count == RetryPolicy.standard.maxAttempts)
    }

    @Test func aMigratedGroupIsFollowedAndSaidOnce() async throws {
        let notes = Notes()
        let old = TelegramChatID(-4001)
        let transport = FakeTransport([
            Self.failure(
                400, "Bad Request: group chat was upgraded to a supergroup chat",
                #"{"migrate_to_chat_id":-1001234567890}"#),
            Self.sent(1), Self.sent(2)
        ])
        let bot = try bot(transport, notes: notes)
        try await bot.sendText("one", to: old)
        try await bot.sendText("two", to: old)
        let chats = try transport.requests.map { try body($0)["chat_id"] as? String }
        #expect(chats == ["-4001", "-1001234567890", "-1001234567890"])
        #expect(bot.migrations == [old: TelegramChatID(-1_001_234_567_890)])
        #expect(notes.all.count == 1)
        #expect(notes.all.first?.contains("-1001234567890") == true)
    }

    static let refusals: [(FakeTransport.Step, TelegramError, Int32)] = [
        (failure(401, "Unauthorized"), .unauthorized, ExitCode.noPermission),
        (failure(400, "Bad Request: chat not found"), .chatNotFound(chat: "123456789"), ExitCode.unavailable),
        (
            failure(403, "Forbidden: bot was blocked by the user"),
            .blocked(chat: "123456789", reason: "bot was blocked by the user"), ExitCode.unavailable
        ),
        (
            failure(400, "Bad Request: can't parse entities: unsupported start tag \\\"x\\\""),
            .rejected(
                method: "sendMessage", status: 400,
                description: "Bad Request: can't parse entities: unsupported start tag \"x\""), ExitCode.unavailable
        ),
        (
            .respond(200, "<html>hello</html>"),
            .garbage(method: "sendMessage", status: 200, detail: "it starts <html>hello</html>"), ExitCode.dataError
        ),
        (
            .respond(302, "", ["Location": "https://elsewhere.example/x"]),
            .redirected(status: 302, target: "https://elsewhere.example"), ExitCode.unavailable
        ),
        (
            .fail(.tooLarge(limit: TelegramBot.maxResponseBytes)), .answerTooLarge(limit: TelegramBot.maxResponseBytes),
            ExitCode.unavailable
        )
    ]

    @Test(arguments: refusals)
    func refusalsAreTypedErrorsWithTheirExitCodes(_ step: FakeTransport.Step, _ expected: TelegramError, _ code: Int32)
        async throws
    {
        let transport = FakeTransport([step])
        do {
            try await bot(transport).sendText("hi", to: Self.chat)
            Issue.record("sent")
        } catch let error as TelegramError {
            #expect(error == expected)
            #expect(error.exitCode == code)
            #expect(transport.requests.count == 1)
        }
    }

    @Test func theChatIsNamedWhenItRefuses() {
        #expect(TelegramError.chatNotFound(chat: "-1001").message.contains("-1001"))
        #expect(TelegramError.blocked(chat: "42", reason: "bot was blocked by the user").message.contains("42"))
    }

    /// Every way a call can fail, with the server and the transport echoing the token back: no
    /// error's message holds it, nor its secret half.
    @Test func theTokenNeverAppearsInAnyErrorMessage() async throws {
        let secretHalf = String(Self.token.split(separator: ":")[1])
        let echoes: [FakeTransport.Step] = [
            Self.failure(400, "Bad Request: something about /bot\(Self.token)/sendMessage"),
            Self.failure(403, "Forbidden: \(Self.token)"),
            Self.failure(500, "oops \(secretHalf)"),
            .respond(200, "<html>/bot\(Self.token)/sendMessage</html>"),
            .respond(418, "teapot \(secretHalf)"),
            .fail(.cannotConnect("Could not resolve host for https://api.telegram.org/bot\(Self.token)/sendMessage")),
            .fail(.other("curl said bot\(Self.token)")),
            .fail(.malformed("bad chunk \(secretHalf)")),
            .respond(301, "", ["Location": "https://x.example/bot\(Self.token)/"])
        ]
        for echo in echoes {
            let transport = FakeTransport(Array(repeating: echo, count: 10))
            do {
                try await bot(transport).sendText("hi", to: Self.chat)
                Issue.record("sent through \(echo)")
            } catch let error as TelegramError {
                #expect(!error.message.contains(secretHalf), "\(error.message)")
                #expect(!"\(error)".contains(secretHalf), "\(error)")
            }
        }
        do {
            _ = try TelegramBot(token: "not a token / \(secretHalf)", transport: FakeTransport([]))
            Issue.record("accepted a malformed token")
        } catch let error as TelegramError {
            #expect(error == .malformedToken(source: "METRIKA_TELEGRAM_TOKEN"))
            #expect(!error.message.contains(secretHalf))
            #expect(error.exitCode == ExitCode.config)
        }
    }

    @Test func plainHTTPIsOnlyForThisMachine() throws {
        #expect(throws: ConfigError.self) {
            _ = try TelegramBot(
                token: Self.token, baseURL: URL(string: "http://bots.example.org")!, transport: FakeTransport([]))
        }
        _ = try TelegramBot(
            token: Self.token, baseURL: URL(string: "http://127.0.0.1:8081")!, transport: FakeTransport([]))
    }

    /// Telegram's pace with a margin (issue 45: 21 messages went inside one 60-second window to one
    /// chat, and 20 in 0.12 s): one message per 1.05 s to a chat (never more than 10 in 5 s), never
    /// more than 18 in any 63 s; another chat has its own pace.
    @Test func aChatGetsAtMostOneMessageASecondAndEighteenInAnySixtyThreeSeconds() async throws {
        let clock = FakeClock()
        let transport = TimedTransport(clock: clock)
        let bot = try bot(transport, clock: clock)
        for index in 1...40 { try await bot.sendText("message \(index)", to: Self.chat) }
        let times = transport.sent.map(\.time)
        #expect(times.count == 40)
        for index in times.indices.dropFirst() {
            #expect(times[index].timeIntervalSince(times[index - 1]) >= 1.05 - 1e-6)
        }
        for index in times.indices.dropFirst(TelegramBot.perChatPerMinute) {
            #expect(times[index].timeIntervalSince(times[index - TelegramBot.perChatPerMinute]) >= 63 - 1e-6)
        }
        for start in times {
            #expect(times.filter { $0 >= start && $0 < start.addingTimeInterval(60) }.count <= 18)
            #expect(times.filter { $0 >= start && $0 < start.addingTimeInterval(5) }.count <= 10)
        }
        // Another chat has its own pace: it does not wait for the first one's.
        let before = clock.sleeps.count
        try await bot.sendText("elsewhere", to: TelegramChatID(555))
        #expect(clock.sleeps.count == before)
    }

    /// At most 25 messages in any 1.05 s over all chats (Telegram: 30 a second).
    @Test func allChatsTogetherGetAtMostTwentyFiveMessagesASecond() async throws {
        let clock = FakeClock()
        let transport = TimedTransport(clock: clock)
        let bot = try bot(transport, clock: clock)
        for index in 1...60 { try await bot.sendText("to chat \(index)", to: TelegramChatID(Int64(1000 + index))) }
        let times = transport.sent.map(\.time)
        for start in times {
            #expect(times.filter { $0 >= start && $0 < start.addingTimeInterval(1) }.count <= 25)
        }
        #expect(clock.sleeps.count >= 2)
    }

    @Test func aLongCaptionKeepsItsFirstLinesAndTheRestFollowsAsText() async throws {
        let caption = (1...200).map { "caption line \($0)" }.joined(separator: "\n")
        let transport = FakeTransport([Self.sent(1), Self.sent(2), Self.sent(3)])
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        let id = try await bot(transport).sendPhoto(png, fileName: "visits.png", caption: caption, to: Self.chat)
        #expect(id == 1)
        let photo = try #require(transport.requests.first)
        #expect(photo.url.lastPathComponent == "sendPhoto")
        let contentType = try #require(photo.headers["Content-Type"])
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let form = String(decoding: photo.body ?? Data(), as: UTF8.self)
        #expect(form.contains("name=\"photo\"; filename=\"visits.png\"\r\nContent-Type: image/png"))
        #expect(form.contains("caption line 1\n"))
        #expect(!form.contains("caption line 200"))
        #expect(transport.requests.count >= 2)
        #expect(transport.requests.dropFirst().allSatisfy { $0.url.lastPathComponent == "sendMessage" })
    }

    @Test func getUpdatesLongPollsWithTheOffsetAndReadsMessages() async throws {
        let answer =
            #"{"ok":true,"result":[{"update_id":5,"message":{"message_id":9,"date":1,"chat":{"id":-100123,"type":"supergroup"},"from":{"id":42,"is_bot":false,"first_name":"A","username":"ann"},"text":"/report@metrika_bot 1001"}},{"update_id":6,"edited_message":{}}]}"#
        let transport = FakeTransport([.respond(200, answer)])
        let updates = try await bot(transport).getUpdates(offset: 5, timeout: 25)
        #expect(updates.map(\.id) == [5, 6])
        #expect(updates[0].message?.text == "/report@metrika_bot 1001")
        #expect(updates[0].message?.chat.id == -100123)
        #expect(updates[0].message?.from?.username == "ann")
        #expect(updates[1].message == nil)
        let request = try #require(transport.requests.first)
        #expect(request.timeout == 30) // the long poll's 25 s on top of the request's 5 s
        let sent = try body(request)
        #expect(sent["offset"] as? Int == 5)
        #expect(sent["timeout"] as? Int == 25)
        #expect(sent["allowed_updates"] as? [String] == ["message"])
        #expect(
            String(decoding: request.body ?? Data(), as: UTF8.self)
                == #"{"allowed_updates":["message"],"limit":100,"offset":5,"timeout":25}"#)
        // An update id past 32 bits stays an exact integer.
        let later = FakeTransport([.respond(200, #"{"ok":true,"result":[]}"#)])
        _ = try await bot(later).getUpdates(offset: 4_294_967_301, timeout: 0)
        let big = try #require(later.requests.first)
        #expect(
            String(decoding: big.body ?? Data(), as: UTF8.self)
                == #"{"allowed_updates":["message"],"limit":100,"offset":4294967301,"timeout":0}"#)
    }

    @Test func chatListsAreReadAndBadEntriesNamed() throws {
        #expect(
            try TelegramChatID.list("123, -1001234567890,@metrika_news,123", source: "METRIKA_TELEGRAM_CHAT").map(
                \.value)
                == ["123", "-1001234567890", "@metrika_news"])
        #expect(throws: TelegramError.notAChat(source: "METRIKA_TELEGRAM_CHAT", text: "me")) {
            _ = try TelegramChatID.list("123,me", source: "METRIKA_TELEGRAM_CHAT")
        }
    }
}
