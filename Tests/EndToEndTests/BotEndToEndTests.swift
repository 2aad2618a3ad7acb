import Foundation
import MetrikaTestSupport
import Testing

private let botSimulator = FakeAPI.shared()

/// `metrika bot` built, against both simulators: Metrika's (one per suite) and the Bot API's
/// (`metrika-fake-api --telegram`, started by the test and stopped at its end).
@Suite(.serialized, .blockingLanes, .stops(botSimulator))
struct BotEndToEndTests {
    static let token = TelegramBotEndToEndTests.token

    func messages(_ telegram: TelegramBotEndToEndTests.BotAPI) throws -> [[String: Any]] {
        try telegram.sent().filter { $0["method"] as? String == "sendMessage" }
    }

    func queue(_ telegram: TelegramBotEndToEndTests.BotAPI, chat: Int64, _ text: String) throws {
        let body = try JSONSerialization.data(withJSONObject: ["chat_id": chat, "text": text])
        _ = try telegram.control("POST", "__tg/updates", String(decoding: body, as: UTF8.self))
    }

    @Test func answersAllowedChatsOnceAndStrangersNever() throws {
        let api = try botSimulator.get()
        let telegram = try TelegramBotEndToEndTests.BotAPI()
        defer { telegram.stop() }
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path, extra: [
            "METRIKA_TELEGRAM_TOKEN": Self.token, "METRIKA_TELEGRAM_API_URL": telegram.baseURL.absoluteString,
        ])
        func bot(_ arguments: [String]) throws -> ProcessResult {
            let result = try metrika(["bot"] + arguments, environment: environment, timeout: 60)
            let secret = String(Self.token.split(separator: ":")[1])
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "the bot's token shown")
            return result
        }

        // A stranger alone: no answer, no request to Metrika, its id named once.
        try api.reset()
        try queue(telegram, chat: 77, "/report 1001 lastWeek")
        try queue(telegram, chat: 77, "/counters")
        var result = try bot(["--allow", "42", "--once"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try messages(telegram).isEmpty)
        #expect(try api.requests().isEmpty, "a stranger caused requests to Metrika")
        #expect(result.stderr.components(separatedBy: "chat 77").count == 2, "\(result.stderr)")

        // The allowed chat: its report in <pre>, the counters with HTML-hostile names escaped.
        try queue(telegram, chat: 42, "/report 1001 lastWeek")
        try queue(telegram, chat: 42, "/counters")
        try queue(telegram, chat: 42, "/report 1001 someday")
        try queue(telegram, chat: 42, "/frobnicate")
        result = try bot(["--allow", "42,43", "--once"])
        #expect(result.status == 0, "\(result.stderr)")
        let sent = try messages(telegram)
        let texts = sent.compactMap { $0["text"] as? String }
        #expect(sent.count == 4 && sent.allSatisfy { $0["chat_id"] as? String == "42" }, "\(sent)")
        #expect(texts.first?.hasPrefix("<pre>") == true && texts.first?.contains("Visits") == true, "\(texts)")
        #expect(texts.count > 1 && texts[1].contains("<code>1002</code> &lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; Co") && !texts[1].contains("<script>"), "\(texts)")
        #expect(texts.count > 2 && texts[2].contains("the period of /report") && !texts[2].contains("--period"), "\(texts)")
        #expect(texts.count > 3 && texts[3].contains("/report"), "\(texts)")

        // A second run answers nothing new: the offset was kept in the history database.
        result = try bot(["--allow", "42", "--once"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try messages(telegram).count == 4)

        // /today as a table, /chart as a PNG with its caption escaped.
        try ToolCheck.require("rsvg-convert", package: "librsvg2-bin")
        try queue(telegram, chat: 42, "/today 1001")
        try queue(telegram, chat: 42, "/chart 1002 lastWeek")
        result = try bot(["--allow", "42", "--once"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try messages(telegram).count == 5)
        let today = try messages(telegram).last?["text"] as? String ?? ""
        #expect(today.hasPrefix("<pre>") && today.contains("Visits"), "\(today)")
        let photo = try #require(try telegram.sent().first { $0["method"] as? String == "sendPhoto" })
        #expect(photo["file_bytes"] as? Int ?? 0 > 1_000)
        #expect((photo["caption"] as? String ?? "").hasPrefix("<b>&lt;script&gt;"), "\(photo)")

        // Without the token: a configuration error naming the variable, nothing sent.
        var bare = environment
        bare["METRIKA_TELEGRAM_TOKEN"] = nil
        let missing = try metrika(["bot", "--allow", "42", "--once"], environment: bare)
        #expect(missing.status == 78 && missing.stderr.contains("METRIKA_TELEGRAM_TOKEN"), "\(missing.stderr)")
    }

    /// Served until SIGTERM: the waiting command answered, then the long poll given up at once and exit 0.
    @Test func sigtermEndsTheLongPollWithExitZero() throws {
        let api = try botSimulator.get()
        let telegram = try TelegramBotEndToEndTests.BotAPI()
        defer { telegram.stop() }
        let home = try TemporaryDirectory()
        try queue(telegram, chat: 42, "/help")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.metrika)
        process.arguments = ["bot", "--allow", "42"]
        process.environment = metrikaEnvironment(api: api, home: home.path, extra: [
            "METRIKA_TELEGRAM_TOKEN": Self.token, "METRIKA_TELEGRAM_API_URL": telegram.baseURL.absoluteString,
        ])
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        ChildProcesses.register(process.processIdentifier)
        defer {
            if process.isRunning { process.terminate() }
            ChildProcesses.unregister(process.processIdentifier)
        }
        // Until the answer went and the next long poll is waiting (polled, never a fixed sleep).
        let deadline = Date().addingTimeInterval(30)
        var calls: [String] = []
        while Date() < deadline {
            calls = try telegram.control("GET", "__tg/sent")["calls"] as? [String] ?? []
            if calls.filter({ $0 == "getUpdates" }).count >= 2 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        try #require(calls.filter { $0 == "getUpdates" }.count >= 2, "\(calls)")
        #expect(try messages(telegram).count == 1)
        let started = Date()
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(Date().timeIntervalSince(started) < 10, "the long poll kept the bot after SIGTERM")
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!stderr.contains(String(Self.token.split(separator: ":")[1])))
    }
}
