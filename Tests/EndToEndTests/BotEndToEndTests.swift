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
        let environment = metrikaEnvironment(
            api: api, home: home.path,
            extra: [
                "METRIKA_TELEGRAM_TOKEN": Self.token, "METRIKA_TELEGRAM_API_URL": telegram.baseURL.absoluteString
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
        #expect(
            texts.count > 1 && texts[1].contains("<code>1002</code> &lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; Co")
                && !texts[1].contains("<script>"), "\(texts)")
        #expect(
            texts.count > 2 && texts[2].contains("the period of /report") && !texts[2].contains("--period"), "\(texts)")
        #expect(texts.count > 3 && texts[3].contains("/report"), "\(texts)")

        // A second run answers nothing new: the offset was kept in the history database.
        result = try bot(["--allow", "42", "--once"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try messages(telegram).count == 4)

        // The same question again is answered from the history database: no request to Metrika at all.
        try api.reset()
        try queue(telegram, chat: 42, "/report 1001 lastWeek")
        result = try bot(["--allow", "42", "--once"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try messages(telegram).count == 5)
        #expect(
            try messages(telegram).last?["text"] as? String == texts.first,
            "the repeated /report differs from the first")
        let reportRequests = try api.requests()
        #expect(reportRequests.isEmpty, "a repeated /report asked Metrika: \(reportRequests)")

        // /today as a table, /chart as a PNG with its caption escaped.
        try ToolCheck.require("rsvg-convert", package: "librsvg2-bin")
        try queue(telegram, chat: 42, "/today 1001")
        try queue(telegram, chat: 42, "/chart 1002 lastWeek")
        result = try bot(["--allow", "42", "--once"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try messages(telegram).count == 6)
        let today = try messages(telegram).last?["text"] as? String ?? ""
        #expect(today.hasPrefix("<pre>") && today.contains("Visits"), "\(today)")
        let photo = try #require(try telegram.sent().first { $0["method"] as? String == "sendPhoto" })
        #expect(photo["file_bytes"] as? Int ?? 0 > 1_000)
        #expect((photo["caption"] as? String ?? "").hasPrefix("<b>&lt;script&gt;"), "\(photo)")

        // The same chart again: drawn from the history database, no request to Metrika.
        try api.reset()
        try queue(telegram, chat: 42, "/chart 1002 lastWeek")
        result = try bot(["--allow", "42", "--once"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try telegram.sent().filter { $0["method"] as? String == "sendPhoto" }.count == 2)
        let chartRequests = try api.requests()
        #expect(chartRequests.isEmpty, "a repeated /chart asked Metrika: \(chartRequests)")

        // Without the token: a configuration error naming the variable, nothing sent.
        var bare = environment
        bare["METRIKA_TELEGRAM_TOKEN"] = nil
        let missing = try metrika(["bot", "--allow", "42", "--once"], environment: bare)
        #expect(missing.status == 78 && missing.stderr.contains("METRIKA_TELEGRAM_TOKEN"), "\(missing.stderr)")
    }

    /// `/explain`: yesterday's change explained in the chat (the simulator's explain scenario: search
    /// traffic gone on Monday 2026-11-30), the headline first, valid HTML within one message; bad
    /// arguments and a counter the token cannot read answered in the bot's words.
    @Test func explainsYesterdayInTheChat() throws {
        let now = "2026-12-01T06:00:00Z"
        let api = try FakeAPI(fixtures: "explain", arguments: ["--now", now])
        defer { api.stop() }
        let telegram = try TelegramBotEndToEndTests.BotAPI()
        defer { telegram.stop() }
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: api, home: home.path,
            extra: [
                "METRIKA_TELEGRAM_TOKEN": Self.token, "METRIKA_TELEGRAM_API_URL": telegram.baseURL.absoluteString,
                "METRIKA_NOW": now
            ])
        try queue(telegram, chat: 42, "/explain 530001")
        try queue(telegram, chat: 42, "/explain 530001 lastWeek")
        try queue(telegram, chat: 42, "/explain <b>")
        try queue(telegram, chat: 42, "/explain")
        try queue(telegram, chat: 42, "/explain 530001 2026-11-30")
        let result = try metrika(["bot", "--allow", "42", "--once"], environment: environment, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains(String(Self.token.split(separator: ":")[1])))
        let texts = try messages(telegram).compactMap { $0["text"] as? String }
        try #require(texts.count == 5, "\(texts)")
        let explained = texts[0]
        #expect(explained.hasPrefix("<b>-") && explained.contains(": Search engine traffic -"), "\(explained)")
        #expect(
            explained.contains(
                "\nVisits on 2026-11-30 against median of 2026-10-19, 2026-10-26, 2026-11-02, 2026-11-09, 2026-11-16, "
                    + "2026-11-23\n"),
            "\(explained)")
        #expect(explained.contains("\n\n<b>Traffic source</b>\nSearch engine traffic -"), "\(explained)")
        #expect(explained.utf16.count <= 4096)
        #expect(texts[1].contains("/explain takes a day as yesterday, 3daysAgo or 2026-11-23"), "\(texts[1])")
        #expect(texts[2].contains("counter number") && !texts[2].contains("<b>"), "\(texts[2])")
        #expect(texts[3].contains("Which counter?") && texts[3].contains("/explain 1001"), "\(texts[3])")
        #expect(texts[4] == explained, "the day given is the day explained")
        #expect(!texts.joined().contains("--"), "CLI words in the chat: \(texts)")
        // An annotation on the explained day (issue 48 target 6): its line under the same answer.
        let annotate = try metrika(
            ["annotate", "--counter", "530001", "--date", "2026-11-30", "--title", "Новый шаблон сайта"],
            environment: environment)
        #expect(annotate.status == 0, "\(annotate.stderr)")
        try queue(telegram, chat: 42, "/explain 530001")
        let again = try metrika(["bot", "--allow", "42", "--once"], environment: environment, timeout: 60)
        #expect(again.status == 0, "\(again.stderr)")
        let annotated = try messages(telegram).compactMap { $0["text"] as? String }.last
        #expect(annotated?.hasPrefix(explained + "\nannotation on Mon 2026-11-30: ") == true, "\(annotated ?? "")")
        #expect(annotated?.contains("Новый шаблон сайта") == true)
    }

    /// The bot's token kept in the keyring (`"telegram": {"keyring": "telegram"}` in the config):
    /// read with `secret-tool lookup` when the environment and the config hold none; an entry that
    /// is not there is a configuration error naming the command that stores it (78); a keyring that
    /// cannot be reached, one line and 69.
    @Test func theTokenFromTheKeyring() throws {
        let api = try botSimulator.get()
        let telegram = try TelegramBotEndToEndTests.BotAPI()
        defer { telegram.stop() }
        let home = try TemporaryDirectory()
        let tool = try FakeSecretTool()
        try FileManager.default.createDirectory(
            atPath: home.path + "/config/metrika", withIntermediateDirectories: true)
        try Data(#"{"telegram": {"keyring": "telegram"}}"#.utf8).write(
            to: URL(fileURLWithPath: home.path + "/config/metrika/config.json"))
        var environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_TELEGRAM_API_URL": telegram.baseURL.absoluteString])
        environment["PATH"] = tool.directory + ":/usr/bin:/bin"
        let secret = String(Self.token.split(separator: ":")[1])

        // The entry is not there yet: 78, the way to store it named, nothing sent.
        var result = try metrika(["bot", "--allow", "42", "--once"], environment: environment)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(
            result.stderr.contains("secret-tool store --label='metrika Telegram bot' service metrika account telegram"),
            "\(result.stderr)")
        #expect(try telegram.control("GET", "__tg/sent")["calls"] as? [String] ?? [] == [])

        // Stored (secret-tool keeps what it reads on stdin; a trailing newline is no part of the token).
        try Data((Self.token + "\n").utf8).write(to: URL(fileURLWithPath: tool.secretPath))
        try queue(telegram, chat: 42, "/help")
        result = try metrika(["bot", "--allow", "42", "--once"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try messages(telegram).count == 1)
        #expect(tool.arguments.contains("lookup service metrika account telegram\n"), "\(tool.arguments)")
        #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
        #expect(!tool.environments.contains("METRIKA_"))

        // The environment's token comes first: the keyring is not asked.
        let calls = tool.arguments
        var direct = environment
        direct["METRIKA_TELEGRAM_TOKEN"] = Self.token
        result = try metrika(["bot", "--allow", "42", "--once"], environment: direct)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(tool.arguments == calls)

        // A keyring that cannot be reached: one line, 69.
        let broken = try TemporaryDirectory()
        try ExecutableFile.write(
            "#!/bin/sh\necho 'Cannot autolaunch D-Bus without X11 $DISPLAY' >&2\nexit 1\n",
            to: broken.path + "/secret-tool")
        environment["PATH"] = broken.path + ":/usr/bin:/bin"
        result = try metrika(["bot", "--allow", "42", "--once"], environment: environment)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("Error: Cannot use the Secret Service keyring: reading failed")
                && result.stderr.contains("D-Bus"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")

        // No secret-tool at all: one line, 69, naming the package and the bot token's other places.
        environment["PATH"] = broken.path + "/none"
        result = try metrika(["bot", "--allow", "42", "--once"], environment: environment)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "secret-tool is not installed (Debian/Ubuntu: apt-get install libsecret-tools); or give the bot's token in METRIKA_TELEGRAM_TOKEN"
            )
                && !result.stderr.contains("metrika login"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    /// Allowed chats whose answers the Bot API refuses badly (the simulator's chat 999 answers
    /// garbage, 6000 a body past the 4 MiB bound; a hang is TelegramBotEndToEndTests'): each is one
    /// line on stderr, the others are served, the bot exits 0 and never shows its token.
    @Test func chatsTheBotAPIAnswersBadlyForAreNotedAndTheOthersServed() throws {
        let api = try botSimulator.get()
        let telegram = try TelegramBotEndToEndTests.BotAPI()
        defer { telegram.stop() }
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: api, home: home.path,
            extra: [
                "METRIKA_TELEGRAM_TOKEN": Self.token, "METRIKA_TELEGRAM_API_URL": telegram.baseURL.absoluteString
            ])
        for chat: Int64 in [999, 6000, 42] { try queue(telegram, chat: chat, "/help") }
        let result = try metrika(["bot", "--allow", "999,6000,42", "--once"], environment: environment, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        for chat in ["999", "6000"] {
            #expect(
                lines.filter { $0.contains("Telegram chat \(chat) was not answered") }.count == 1, "\(result.stderr)")
        }
        #expect(try messages(telegram).compactMap { $0["chat_id"] as? String } == ["42"])
        #expect(!result.stderr.contains(String(Self.token.split(separator: ":")[1])))
        #expect(lines.contains("Answered 1 message, 2 left unanswered."), "\(result.stderr)")
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
        process.environment = metrikaEnvironment(
            api: api, home: home.path,
            extra: [
                "METRIKA_TELEGRAM_TOKEN": Self.token, "METRIKA_TELEGRAM_API_URL": telegram.baseURL.absoluteString
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
