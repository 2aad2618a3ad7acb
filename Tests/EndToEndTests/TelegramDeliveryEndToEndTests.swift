import Foundation
import MetrikaTestSupport
import Testing

/// `metrika alert --today --telegram CHAT` end to end: the built binary against the Metrika simulator
/// (Fixtures/alerts, Tuesday 2026-12-01 17:30 in Moscow: counter 520008 stopped at 14:00) and the Bot
/// API simulator (`metrika-fake-api --telegram`), each started once for the suite and stopped at its end.
/// The Bot API simulator refuses HTML it could not parse, so an accepted message is valid HTML.
private let deliverySimulator = FakeAPI.shared(fixtures: "alerts", arguments: ["--now", "2026-12-01T14:30:00Z"])
private let digestSimulator = FakeAPI.shared()
private let botSimulator = SuiteFixture<TelegramBotEndToEndTests.BotAPI>(
    start: { try TelegramBotEndToEndTests.BotAPI() }, stop: { $0.stop() })

@Suite(.serialized, .blockingLanes, .stops(deliverySimulator, digestSimulator, botSimulator))
struct TelegramDeliveryEndToEndTests {
    static let token = TelegramBotEndToEndTests.token
    static let now = "2026-12-01T14:30:00Z"
    static let counter = ["--counter", "520008"]

    func environment(
        _ api: FakeAPI, _ bot: TelegramBotEndToEndTests.BotAPI, _ home: TemporaryDirectory, token: String = token
    ) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path,
            extra: [
                "METRIKA_NOW": Self.now, "METRIKA_DB": home.path + "/h.sqlite",
                "METRIKA_TELEGRAM_TOKEN": token, "METRIKA_TELEGRAM_API_URL": bot.baseURL.absoluteString
            ])
    }

    /// The sends accepted for `chat` after the first `start` of the log.
    func sends(_ bot: TelegramBotEndToEndTests.BotAPI, to chat: String, after start: Int) throws -> [[String: Any]] {
        try bot.sent().dropFirst(start).filter {
            "\($0["chat_id"] ?? "")" == chat && $0["method"] as? String == "sendMessage"
        }
    }

    @Test func anAlertReachesTheChatAsHTMLAndTheTokenIsNeverShown() throws {
        let api = try deliverySimulator.get()
        let bot = try botSimulator.get()
        let home = try TemporaryDirectory()
        let start = try bot.sent().count
        let run = try metrika(
            ["alert", "--today", "--verbose", "--telegram", "123456789"] + Self.counter,
            environment: environment(api, bot, home))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("520008 Магазин «До обеда»: visits stopped at 14:00"), "\(run.stdout)")
        let sent = try sends(bot, to: "123456789", after: start)
        #expect(sent.count == 1, "\(sent)")
        let message = try #require(sent.first)
        #expect(message["parse_mode"] as? String == "HTML")
        let text = message["text"] as? String ?? ""
        // The counter's «» name arrives escaped-as-needed and the line as on stdout.
        #expect(text.contains("520008 Магазин «До обеда»: visits stopped at 14:00"), "\(text)")
        #expect(text.hasPrefix("<b>"))
        // The token (and its secret half) is in no output, --verbose included.
        let secretHalf = String(Self.token.split(separator: ":")[1])
        for output in [run.stdout, run.stderr] {
            #expect(!output.contains(Self.token))
            #expect(!output.contains(secretHalf))
        }
    }

    /// A chat not found is said once and given up (exit 69 that run only); the alert is not told
    /// again, and nothing more goes to that chat for it.
    @Test func aChatNotFoundIsSaidOnceAndGivenUp() throws {
        let api = try deliverySimulator.get()
        let bot = try botSimulator.get()
        let home = try TemporaryDirectory()
        let failed = try metrika(
            ["alert", "--today", "--telegram", "404"] + Self.counter, environment: environment(api, bot, home))
        #expect(failed.status == 69, "\(failed.stderr)")
        #expect(failed.stderr.contains("Telegram chat 404 was not found"), "\(failed.stderr)")
        #expect(failed.stderr.contains("given up: 1 message to Telegram chat 404 not sent"), "\(failed.stderr)")
        #expect(!failed.stderr.contains(Self.token))
        // The next runs are silent: told once, given up once.
        for _ in 0..<2 {
            let again = try metrika(
                ["alert", "--today", "--telegram", "404"] + Self.counter, environment: environment(api, bot, home))
            #expect(again.status == 0 && again.stdout.isEmpty && again.stderr.isEmpty, "\(again.stdout)\(again.stderr)")
        }
    }

    /// Issue 45: `--telegram 111,404` run 3 times (404: chat not found) gave chat 111 the same message
    /// 3 times. Now 111 gets it once; 404 is said once and given up; runs 2 and 3 send nothing.
    @Test func oneBadChatDoesNotRepeatTheMessageToTheGoodOne() throws {
        let api = try deliverySimulator.get()
        let bot = try botSimulator.get()
        let home = try TemporaryDirectory()
        let start = try bot.sent().count
        var statuses: [Int32] = []
        var errors = ""
        for _ in 0..<3 {
            let run = try metrika(
                ["alert", "--today", "--telegram", "111,404"] + Self.counter, environment: environment(api, bot, home))
            statuses.append(run.status)
            errors += run.stderr
        }
        #expect(statuses == [69, 0, 0], "\(errors)")
        #expect(try sends(bot, to: "111", after: start).count == 1)
        #expect(errors.components(separatedBy: "Telegram chat 404 was not found").count == 2, "\(errors)")
    }

    /// Issue 45: SIGTERM while the Bot API answers 429 with retry_after 40 waited 38 s, and the alert
    /// was marked told though nothing reached the chat; the next run sent nothing. Now the run stops
    /// within 10 s (exit 143), the message stays in the outbox, `--status` says so, and the next run
    /// delivers it.
    @Test func sigtermDuringARetryAfterStopsAtOnceAndTheNextRunDelivers() throws {
        let api = try deliverySimulator.get()
        let bot = try botSimulator.get()
        let home = try TemporaryDirectory()
        _ = try bot.control("POST", "__tg/flood", #"{"retry_after": 40}"#)
        defer { _ = try? bot.control("POST", "__tg/reset") }
        let process = try RunningMetrika.start(
            ["alert", "--today", "--telegram", "111"] + Self.counter, environment: environment(api, bot, home))
        Thread.sleep(forTimeInterval: 2)
        let signalled = Date()
        process.terminate()
        let result = process.wait()
        let took = Date().timeIntervalSince(signalled)
        #expect(result.status == 143, "\(result.stderr)")
        #expect(took < 10, "took \(took) s")
        #expect(result.stderr.contains("Stopped: 1 message kept in the outbox"), "\(result.stderr)")
        let status = try metrika(["alert", "--status"], environment: environment(api, bot, home))
        #expect(status.stdout.contains("Not yet delivered: 1 message to Telegram chat 111"), "\(status.stdout)")
        // And in JSON, one object per message (was: not listed at all).
        let json = try metrika(["alert", "--status", "--json"], environment: environment(api, bot, home))
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let undelivered = object?["undelivered"] as? [[String: Any]]
        #expect(undelivered?.count == 1 && object?["version"] as? Int == 1, "\(json.stdout)")
        #expect(undelivered?.first?["channel"] as? String == "telegram", "\(json.stdout)")
        #expect(undelivered?.first?["recipient"] as? String == "111", "\(json.stdout)")
        #expect(undelivered?.first?["next_try"] is String && undelivered?.first?["tries"] is Int, "\(json.stdout)")
        _ = try bot.control("POST", "__tg/reset")
        let start = try bot.sent().count
        let next = try metrika(
            ["alert", "--today", "--telegram", "111"] + Self.counter, environment: environment(api, bot, home))
        #expect(next.status == 0 && next.stdout.isEmpty, "\(next.stdout)\(next.stderr)")
        let delivered = try sends(bot, to: "111", after: start)
        #expect(delivered.count == 1)
        let text = delivered.first?["text"] as? String
        #expect(text?.contains("520008") == true, "\(delivered)")
    }

    /// `alert --test`: one line per channel and recipient, exit 0 only when all were delivered
    /// (issue 45: a wrong token or chat showed only on the day an alert fired).
    @Test func aTestAlertSaysPerChatWhetherItWasDelivered() throws {
        let api = try deliverySimulator.get()
        let bot = try botSimulator.get()
        let home = try TemporaryDirectory()
        let start = try bot.sent().count
        let good = try metrika(["alert", "--test", "--telegram", "111"], environment: environment(api, bot, home))
        #expect(good.status == 0 && good.stdout == "Telegram chat 111: delivered\n", "\(good.stdout)\(good.stderr)")
        let mixed = try metrika(["alert", "--test", "--telegram", "111,404"], environment: environment(api, bot, home))
        #expect(mixed.status == 69, "\(mixed.stderr)")
        #expect(mixed.stdoutLines.first == "Telegram chat 111: delivered")
        let refused = "Telegram chat 404: not delivered: Telegram chat 404 was not found"
        #expect(mixed.stdoutLines.last?.hasPrefix(refused) == true, "\(mixed.stdout)")
        let wrong = try metrika(
            ["alert", "--test", "--telegram", "111"],
            environment: environment(api, bot, home, token: "111:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"))
        #expect(wrong.status == 77 && wrong.stdout.contains("Telegram refused the bot token"), "\(wrong.stdout)")
        #expect(try sends(bot, to: "111", after: start).count == 2)
        // Nothing is remembered: no alert is open, nothing waits in the outbox.
        let status = try metrika(["alert", "--status"], environment: environment(api, bot, home))
        #expect(!status.stdout.contains("Not yet delivered"), "\(status.stdout)")
    }

    @Test func a429IsHonouredBeforeTheMessageGoes() throws {
        let api = try deliverySimulator.get()
        let bot = try botSimulator.get()
        _ = try bot.control("POST", "__tg/reset")
        let home = try TemporaryDirectory()
        let began = Date()
        let run = try metrika(
            ["alert", "--today", "--telegram", "429"] + Self.counter, environment: environment(api, bot, home))
        let took = Date().timeIntervalSince(began)
        #expect(run.status == 0, "\(run.stderr)")
        // The simulator's retry_after is 3 s: the retry waited that long, no less.
        #expect(took >= 3, "took \(took) s")
        #expect(try sends(bot, to: "429", after: 0).count == 1)
    }

    @Test func aWrongTokenIsOneLineAndExit77() throws {
        let api = try deliverySimulator.get()
        let bot = try botSimulator.get()
        let home = try TemporaryDirectory()
        let wrong = "111:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        let run = try metrika(
            ["alert", "--today", "--telegram", "123456789"] + Self.counter,
            environment: environment(api, bot, home, token: wrong))
        #expect(run.status == 77, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("Telegram refused the bot token"))
        #expect(!run.stderr.contains(wrong) && !run.stdout.contains("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"))
    }

    @Test func aTokenInAConfigFileOthersMayReadIsRefused() throws {
        let api = try deliverySimulator.get()
        let bot = try botSimulator.get()
        let home = try TemporaryDirectory()
        let directory = home.path + "/config/metrika"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/config.json"
        try Data("{\"telegram\": {\"token\": \"\(Self.token)\", \"chat\": 123456789}}".utf8).write(
            to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        var env = environment(api, bot, home)
        env["METRIKA_TELEGRAM_TOKEN"] = nil
        let refused = try metrika(["alert", "--today"] + Self.counter, environment: env)
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(refused.stderr.contains("it holds a Telegram bot token but others may read it"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(Self.token))
        // Private, the config's token and chat deliver without --telegram.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let start = try bot.sent().count
        let run = try metrika(["alert", "--today"] + Self.counter, environment: env)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try sends(bot, to: "123456789", after: start).count == 1)
    }

    @Test func theDigestArrivesAsItsSummaryAndPNGPhotos() throws {
        let api = try digestSimulator.get()
        let bot = try botSimulator.get()
        let home = try TemporaryDirectory()
        let start = try bot.sent().count
        var env = metrikaEnvironment(
            api: api, home: home.path,
            extra: [
                "METRIKA_TELEGRAM_TOKEN": Self.token, "METRIKA_TELEGRAM_API_URL": bot.baseURL.absoluteString
            ])
        env["METRIKA_DB"] = home.path + "/h.sqlite"
        let run = try metrika(["mail", "--counter", "1001", "--telegram", "123456789", "--verbose"], environment: env)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty, "no mail without --to: \(run.stdout)")
        let sent = try bot.sent().dropFirst(start).filter { "\($0["chat_id"] ?? "")" == "123456789" }
        let text = try #require(sent.first { $0["method"] as? String == "sendMessage" }?["text"] as? String)
        #expect(text.contains("(1001)") && text.contains("Visits: "), "\(text)")
        let photos = sent.filter { $0["method"] as? String == "sendPhoto" }
        #expect(!photos.isEmpty, "\(sent)")
        #expect(photos.allSatisfy { ($0["file_name"] as? String)?.hasSuffix(".png") == true })
        // Issue 45: 0 of 164 photos had a caption. Each says the counter (name and id) and the metric.
        let captions = photos.map { $0["caption"] as? String ?? "" }
        #expect(captions.allSatisfy { $0.contains("(1001) · ") && $0.hasPrefix("<b>") }, "\(captions)")
        #expect(captions.contains { $0.contains("Visits") }, "\(captions)")
        #expect(!run.stderr.contains(Self.token) && !run.stderr.contains(String(Self.token.split(separator: ":")[1])))

        // The same digest again, after a run killed half-way: it resumes, nothing is sent twice.
        let resumed = try bot.sent().count
        let pending = try metrika(["mail", "--counter", "1001", "--telegram", "123456789"], environment: env)
        #expect(pending.status == 0, "\(pending.stderr)")
        #expect(try bot.sent().count == resumed + sent.count, "a finished digest run again is sent again, whole")
    }

    /// `mail --telegram` killed mid-digest (issue 45: the rerun sent everything again from the start):
    /// the rerun sends what is left only.
    @Test func aDigestKilledHalfWayResumesFromTheOutbox() throws {
        let api = try digestSimulator.get()
        let bot = try botSimulator.get()
        let arguments = ["mail", "--counter", "1001", "--telegram", "777"]
        var env: [String: String] = [:]
        var start = 0
        var first = 0
        var homes: [TemporaryDirectory] = []
        // Paced at one message per 1.05 s: killed 0.2 s after the summary went, before the photo (a
        // loaded machine may see both go first: then once more, on a fresh history).
        for _ in 0..<3 {
            let home = try TemporaryDirectory()
            homes.append(home)
            env = metrikaEnvironment(
                api: api, home: home.path,
                extra: [
                    "METRIKA_TELEGRAM_TOKEN": Self.token, "METRIKA_TELEGRAM_API_URL": bot.baseURL.absoluteString,
                    "METRIKA_DB": home.path + "/h.sqlite"
                ])
            start = try bot.sent().count
            let process = try RunningMetrika.start(arguments, environment: env)
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, try bot.sent().dropFirst(start).isEmpty { usleep(5_000) }
            Thread.sleep(forTimeInterval: 0.2)
            process.signal(SIGKILL)
            _ = process.wait(timeout: 10)
            first = try bot.sent().dropFirst(start).count
            if first == 1 { break }
        }
        try #require(first == 1, "the digest was never caught half-way")
        let rerun = try metrika(arguments, environment: env)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stderr.contains("Resuming the digest an earlier run did not finish"), "\(rerun.stderr)")
        let all = try bot.sent().dropFirst(start)
        let photos = all.filter { $0["method"] as? String == "sendPhoto" }.map { $0["caption"] as? String ?? "" }
        #expect(Set(photos).count == photos.count, "a photo sent twice: \(photos)")
        #expect(all.filter { $0["method"] as? String == "sendMessage" }.count == 1)
        #expect(all.count > first, "\(first) sent before the kill")
    }
}
