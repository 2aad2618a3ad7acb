import Foundation
import MetrikaRender
import MetrikaStore
import MetrikaSystem
import MetrikaTestSupport
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaBot
@testable import MetrikaModel
@testable import MetrikaUseCases

/// `BotServer` over a scripted Bot API and a fixed clock: strangers, the commands a minute, the
/// offset kept before answering (the binary against both simulators: EndToEndTests/BotEndToEndTests).
@Suite struct BotServerTests {
    static let token = "987654321:AAH-secretPart_0123456789abcdefghijk"

    final class Calls: Sendable {
        let strangers = Mutex([Int64]())
        let limited = Mutex([Int64]())
        let reports = Mutex(0)
    }

    static func ok(_ result: String) -> FakeTransport.Step { .respond(200, #"{"ok":true,"result":\#(result)}"#) }

    static func update(_ id: Int, chat: Int64, _ text: String, type: String = "private") -> String {
        #"{"update_id":\#(id),"message":{"message_id":\#(id),"chat":{"id":\#(chat),"type":"\#(type)"},"text":"\#(text)"}}"#
    }

    func server(
        _ transport: FakeTransport, store: HistoryStore, calls: Calls, allowed: Set<Int64> = [42],
        activity: RecordedActivity = RecordedActivity()
    ) throws -> BotServer {
        let bot = try TelegramBot(
            token: Self.token, transport: transport, timeout: 5, sleep: { _ in }, now: { testNow })
        let backend = BotCommands.Backend(
            counters: {
                calls.reports.withLock { $0 += 1 }
                return []
            },
            loader: { _ in
                calls.reports.withLock { $0 += 1 }
                throw BotUsage("no history here")
            },
            alerts: { [] }, activity: activity, defaultCounter: nil)
        return BotServer(
            bot: bot, allowed: allowed, store: store, commands: BotCommands(backend: backend), now: { testNow },
            stopRequests: nil,
            stranger: { id in calls.strangers.withLock { $0.append(id) } },
            limited: { id in calls.limited.withLock { $0.append(id) } })
    }

    @Test func answersAllowedChatsWithinTheirMinuteAndKeepsTheOffset() async throws {
        let database = try TemporaryDatabase()
        let store = try await HistoryStore.open(path: database.path)
        // 22 commands from chat 42 within one minute, 2 from a stranger, then nothing more.
        var updates = (1...22).map { Self.update($0, chat: 42, "/help") }
        updates += [Self.update(23, chat: 77, "/counters"), Self.update(24, chat: 77, "/report 1001")]
        var steps = [
            Self.ok(#"{"id":987654321,"first_name":"m","username":"metrika_bot"}"#), Self.ok("true"), Self.ok("true"),
            Self.ok("[" + updates.joined(separator: ",") + "]")
        ]
        steps += (1...20).map { Self.ok(#"{"message_id":\#($0),"chat":{"id":42}}"#) }
        steps.append(Self.ok("[]"))
        let transport = FakeTransport(steps)
        let calls = Calls()
        let summary = try await server(transport, store: store, calls: calls).run(once: true)
        #expect(summary == BotServer.Summary(answered: 20, ignored: 4))
        #expect(calls.strangers.withLock { $0 } == [77], "the stranger named once")
        #expect(calls.limited.withLock { $0 } == [42], "the chat over its minute told once")
        #expect(calls.reports.withLock { $0 } == 0, "a stranger causes no request to Metrika")
        #expect(try await store.botOffset(botID: 987_654_321) == 25)
        let sends = transport.requests.filter { $0.url.lastPathComponent == "sendMessage" }
        #expect(sends.count == 20)
        // The second poll asked from the kept offset.
        let polls = transport.requests.filter { $0.url.lastPathComponent == "getUpdates" }
        let last = try #require(JSONSerialization.jsonObject(with: polls.last?.body ?? Data()) as? [String: Any])
        #expect(last["offset"] as? Int == 25)
    }

    @Test func commandsAreWordedInTheBotsOwnWords() async throws {
        let backend = BotCommands.Backend(
            counters: { [] }, loader: { _ in throw BotUsage("unused") }, alerts: { [] }, activity: RecordedActivity(),
            defaultCounter: nil)
        let commands = BotCommands(backend: backend)
        let period = try #require(await commands.answer("/report 1001 someday", botUsername: "metrika_bot"))
        #expect(period.contains("the period of /report") && !period.contains("--period"), "\(period)")
        #expect(
            await commands.answer("/report@other_bot 1001", botUsername: "metrika_bot") == nil, "another bot's command")
        #expect(await commands.answer("/report", botUsername: nil)?.contains("Which counter?") == true)
        #expect(await commands.answer("/frobnicate", botUsername: nil) == BotCommands.unknownText)
        #expect(await commands.answer("/counters now", botUsername: nil)?.contains("takes nothing") == true)
    }

    /// A Bot API whose getUpdates answers garbage, too much or nothing at all (hangs until the
    /// timeout, every retry): the run ends with one typed line without the token, nothing answered,
    /// no request to Metrika, the offset untouched. (A timeout ends a `--once` run; the long-running
    /// bot waits it out: BotOnceTests.)
    @Test(arguments: [
        ([FakeTransport.Step.respond(200, "<html><body>upstream says hi</body></html>")], "garbage"),
        ([.respond(200, #"{"ok":true,"result":[{"update_id":"#)], "garbage"),
        ([.fail(.tooLarge(limit: TelegramBot.maxResponseBytes))], "too large"),
        (Array(repeating: .fail(.timedOut), count: 12), "timed out")
    ])
    func aBotAPIThatAnswersBadlyEndsTheRunInOneLine(steps: [FakeTransport.Step], kind: String) async throws {
        let database = try TemporaryDatabase()
        let store = try await HistoryStore.open(path: database.path)
        let transport = FakeTransport(
            [Self.ok(#"{"id":987654321,"first_name":"m"}"#), Self.ok("true"), Self.ok("true")] + steps)
        let calls = Calls()
        do {
            _ = try await server(transport, store: store, calls: calls).run(once: kind == "timed out")
            Issue.record("the run went on after \(kind)")
        } catch let error as TelegramError {
            switch (kind, error) {
            case ("garbage", .garbage), ("too large", .answerTooLarge), ("timed out", .timedOut): break
            default: Issue.record("\(kind): \(error)")
            }
            #expect(!error.message.contains("secretPart") && !error.message.contains("\n"), "\(error.message)")
        }
        #expect(transport.requests.allSatisfy { $0.url.lastPathComponent != "sendMessage" })
        #expect(calls.reports.withLock { $0 } == 0)
        #expect(try await store.botOffset(botID: 987_654_321) == nil)
    }

    /// A repeated /counters within five minutes is answered from the list already fetched; after
    /// them (or a clock set back) it is asked for again.
    @Test func aRepeatedCountersQuestionMakesNoRequestForFiveMinutes() async throws {
        let fetches = Mutex(0)
        let clock = Mutex(testNow)
        let item = CounterListing.Item(counter: Counter(id: 1001, name: "<Shop>", site: "shop.example"), currency: nil)
        let counters = BotCommands.keptCounters(
            {
                fetches.withLock { $0 += 1 }
                return [item]
            }, now: { clock.withLock { $0 } })
        let commands = BotCommands(
            backend: BotCommands.Backend(
                counters: counters, loader: { _ in throw BotUsage("unused") }, alerts: { [] },
                activity: RecordedActivity(), defaultCounter: nil))
        let first = await commands.answer("/counters", botUsername: nil)
        #expect(first == "<code>1001</code> &lt;Shop&gt; · shop.example")
        clock.withLock { $0 += 299 }
        #expect(await commands.answer("/counters", botUsername: nil) == first)
        #expect(fetches.withLock { $0 } == 1)
        clock.withLock { $0 += 1 }
        _ = await commands.answer("/counters", botUsername: nil)
        #expect(fetches.withLock { $0 } == 2)
        clock.withLock { $0 -= 3600 }
        _ = await commands.answer("/counters", botUsername: nil)
        #expect(fetches.withLock { $0 } == 3, "a clock set back keeps nothing")
    }

    /// A counter the Metrika token cannot read, or a token Metrika refuses: said in the chat's words
    /// (what the person there can do), never the command line of the bot's owner.
    @Test func apiRefusalsAreSaidInTheChatsWords() async throws {
        let denied = BotCommands(
            backend: BotCommands.Backend(
                counters: { throw APIError.invalidToken },
                loader: { _ in throw APIError.accessDenied("No access to counter 1009.", counterID: 1009) },
                alerts: { [] }, activity: RecordedActivity(), defaultCounter: nil,
                explain: { id, _ in throw APIError.accessDenied("No access.", counterID: id) }))
        let report = try #require(await denied.answer("/report 1009", botUsername: nil))
        #expect(
            report
                == "Counter 1009 cannot be read with this bot's Metrika access: check the number (/counters lists the ones it can read)."
        )
        let explain = try #require(await denied.answer("/explain 1010", botUsername: nil))
        #expect(explain.hasPrefix("Counter 1010 cannot be read") && !explain.contains("`"), "\(explain)")
        let counters = try #require(await denied.answer("/counters", botUsername: nil))
        #expect(counters.contains("must sign in again") && !counters.contains("METRIKA_TOKEN"), "\(counters)")
    }

    @Test func aChatThatBlockedTheBotIsNotedAndTheOthersServed() async throws {
        let database = try TemporaryDatabase()
        let store = try await HistoryStore.open(path: database.path)
        let updates = [Self.update(5, chat: 43, "/help"), Self.update(6, chat: 42, "/help")]
        let transport = FakeTransport([
            Self.ok(#"{"id":987654321,"first_name":"m"}"#), Self.ok("true"), Self.ok("true"),
            Self.ok("[" + updates.joined(separator: ",") + "]"),
            .respond(403, #"{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}"#),
            Self.ok(#"{"message_id":1,"chat":{"id":42}}"#), Self.ok("[]")
        ])
        let activity = RecordedActivity()
        let summary = try await server(transport, store: store, calls: Calls(), allowed: [42, 43], activity: activity)
            .run(once: true)
        #expect(summary == BotServer.Summary(answered: 1, ignored: 1))
        #expect(
            activity.notes.contains { $0.contains("chat 43 was not answered") && $0.contains("blocked") },
            "\(activity.notes)")
        #expect(!activity.notes.joined().contains("secretPart"))
        #expect(try await store.botOffset(botID: 987_654_321) == 7)
    }

    /// In an allowed group the members' chatter gets nothing back (it got the usage line each time);
    /// commands, bare or addressed to this bot, are answered.
    @Test func aGroupsChatterIsNotAnswered() async throws {
        let database = try TemporaryDatabase()
        let store = try await HistoryStore.open(path: database.path)
        // A busy group: its chatter is not counted against the chat's 20 commands a minute either.
        let chatter = (10...40).map { Self.update($0, chat: -42, "message \($0)", type: "group") }
        let updates =
            chatter + [
                Self.update(1, chat: -100123, "just chatting in the group", type: "supergroup"),
                Self.update(2, chat: -100123, "/start@other_bot", type: "supergroup"),
                Self.update(3, chat: -100123, "/help@metrika_bot", type: "supergroup"),
                Self.update(4, chat: -42, "lunch?", type: "group"),
                Self.update(5, chat: -42, "/help", type: "group"),
                Self.update(6, chat: 42, "hello")
            ]
        var steps = [
            Self.ok(#"{"id":987654321,"first_name":"m","username":"metrika_bot"}"#), Self.ok("true"), Self.ok("true"),
            Self.ok("[" + updates.joined(separator: ",") + "]")
        ]
        steps += (1...3).map { Self.ok(#"{"message_id":\#($0),"chat":{"id":42}}"#) }
        steps.append(Self.ok("[]"))
        let transport = FakeTransport(steps)
        let calls = Calls()
        let summary = try await server(transport, store: store, calls: calls, allowed: [42, -42, -100123]).run(
            once: true)
        #expect(summary.answered == 3)
        #expect(calls.limited.withLock { $0 }.isEmpty, "chatter counted as commands")
        let sends = transport.requests.filter { $0.url.lastPathComponent == "sendMessage" }.compactMap { request in
            (try? JSONSerialization.jsonObject(with: request.body ?? Data())) as? [String: Any]
        }
        #expect(sends.map { "\($0["chat_id"] ?? "")" } == ["-100123", "-42", "42"], "\(sends)")
        #expect((sends.last?["text"] as? String) == BotCommands.unknownText, "a private chat still gets the usage line")
    }

    @Test func inAGroupOnlyCommandsForThisBotAreAnswered() async throws {
        let commands = BotCommands(
            backend: BotCommands.Backend(
                counters: { [] }, loader: { _ in throw BotUsage("unused") }, alerts: { [] },
                activity: RecordedActivity(), defaultCounter: nil))
        #expect(await commands.answer("just chatting in the group", botUsername: "metrika_bot", inGroup: true) == nil)
        #expect(
            await commands.answer("/frobnicate", botUsername: "metrika_bot", inGroup: true) == nil,
            "maybe another bot's")
        #expect(
            await commands.answer("/frobnicate@metrika_bot", botUsername: "metrika_bot", inGroup: true)
                == BotCommands.unknownText)
        #expect(
            await commands.answer("/help@Metrika_Bot", botUsername: "metrika_bot", inGroup: true)?.hasPrefix(
                "metrika answers") == true)
        #expect(await commands.answer("/help@other_bot", botUsername: "metrika_bot", inGroup: true) == nil)
        #expect(await commands.answer("just chatting", botUsername: "metrika_bot") == BotCommands.unknownText)
        #expect(
            BotCommands.command(in: "/Report@Metrika_Bot 1001  lastWeek", botUsername: "metrika_bot", inGroup: true)?
                .arguments == ["1001", "lastWeek"])
        #expect(
            BotCommands.isGroup("group") && BotCommands.isGroup("supergroup") && !BotCommands.isGroup("private")
                && !BotCommands.isGroup(nil))
    }

    /// `/explain [counter] [day]`: the day goes to Explain as the CLI's `--date` would.
    @Test func explainTakesADayAfterTheCounter() async throws {
        let commands = BotCommands(
            backend: BotCommands.Backend(
                counters: { [] }, loader: { _ in throw BotUsage("unused") }, alerts: { [] },
                activity: RecordedActivity(), defaultCounter: 1001,
                explain: { id, day in throw BotUsage("explained \(id) on \(day ?? "yesterday")") }))
        #expect(
            await commands.answer("/explain 530001 2026-11-23", botUsername: nil) == "explained 530001 on 2026-11-23")
        #expect(await commands.answer("/explain 530001 3daysAgo", botUsername: nil) == "explained 530001 on 3daysAgo")
        #expect(
            await commands.answer("/explain 2026-11-23", botUsername: nil) == "explained 1001 on 2026-11-23",
            "the default counter")
        #expect(await commands.answer("/explain 530001", botUsername: nil) == "explained 530001 on yesterday")
        let period = try #require(await commands.answer("/explain 530001 lastWeek", botUsername: nil))
        #expect(
            period.contains("yesterday, 3daysAgo or 2026-11-23") && period.contains("lastWeek")
                && !period.contains("--"), "\(period)")
        #expect(
            await commands.answer("/explain 530001 2026-11-23 more", botUsername: nil)?.contains(
                "takes a counter and a day") == true)
        #expect(
            await commands.answer("/explain <b>", botUsername: nil)?.contains("takes a counter number, then a day")
                == true)
        // Explain's own refusal of the day (today, the future) names it as the bot does.
        #expect(ParameterNaming.bot.name("date") == "the day of /explain")
        #expect(ParameterNaming.bot.name(.period) == "the period of /report")
    }

    /// Issue 48: /today without a counter hints /today; /explain of a day before 2008 or not over
    /// says so in the chat's words (not "the format is wrong", not a leftover list of parameters);
    /// /chart without its rasterizer tells the chat a sentence for it, the log the owner's fix.
    @Test func todayExplainAndChartAnswerInTheChatsWords() async throws {
        struct NoRSVG: ChartRasterizer {
            func png(fromSVG svg: Data, scale: Double) async throws -> Data {
                throw ChartRasterizerError(
                    "rsvg-convert is not installed: apt-get install librsvg2-bin, or set METRIKA_RSVG_CONVERT")
            }
        }
        let api = RuleAPI()
        let store = try await HistoryStore.open(path: ":memory:")
        let client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: api,
            requestTimeout: 5, sleep: { _ in }, now: { testNow })
        let activity = RecordedActivity()
        let commands = BotCommands(
            backend: BotCommands.Backend(
                counters: { [] },
                loader: { _ in HistoryLoader(store: store, client: client, now: { testNow }, unsettledDays: 2) },
                alerts: { [] }, activity: activity, defaultCounter: nil, rasterizer: NoRSVG(),
                explain: { _, day in
                    throw ParameterError(.period, .badDay(value: day ?? "")) { naming in
                        "the period \(day ?? "") is in the future: explain earlier days (\(naming.alternatives("date", .from, .to)))"
                    }
                }, now: { testNow }))
        #expect(await commands.answer("/today", botUsername: nil) == "Which counter? /today 1001 (see /counters)")
        let early = try #require(await commands.answer("/explain 515151 2007-01-01", botUsername: nil))
        #expect(early.contains("2007-01-01 is before 2008-01-01") && !early.contains("takes a day as"), "\(early)")
        let future = try #require(await commands.answer("/explain 515151 2030-01-01", botUsername: nil))
        #expect(
            future == "/explain explains a finished day; 2030-01-01 is not finished yet: try /explain 515151 yesterday",
            "\(future)")
        let chart = try #require(await commands.answer("/chart 1001 lastWeek", botUsername: nil))
        #expect(
            chart == "/chart cannot draw pictures on the bot's machine right now (its log says why); try /report",
            "\(chart)")
        #expect(!chart.contains("METRIKA_") && !chart.contains("apt-get"))
        #expect(activity.notes.contains { $0.contains("METRIKA_RSVG_CONVERT") }, "\(activity.notes)")
    }

    /// `/report 1001 last400days` sent 6 messages of daily rows: over 35 days by week, over 182 by
    /// month (`metrika mail`'s rule), said, in one message.
    @Test(
        arguments: [("last30days", nil), ("last60days", "By week: 60 days"), ("last400days", "By month: 400 days")]
            as [(String, String?)])
    func aLongReportIsGroupedToFitOneMessage(period: String, said: String?) async throws {
        let api = RuleAPI()
        let store = try await HistoryStore.open(path: ":memory:")
        let client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: api,
            requestTimeout: 5, sleep: { _ in }, now: { testNow })
        let commands = BotCommands(
            backend: BotCommands.Backend(
                counters: { [] },
                loader: { _ in HistoryLoader(store: store, client: client, now: { testNow }, unsettledDays: 2) },
                alerts: { [] }, activity: RecordedActivity(), defaultCounter: nil, now: { testNow }))
        let answer = try #require(await commands.answer("/report 1001 \(period)", botUsername: nil))
        #expect(answer.contains("<pre>"), "\(answer)")
        #expect(TelegramHTML.length(answer) <= TelegramHTML.messageLimit, "\(TelegramHTML.length(answer)) characters")
        if let said {
            #expect(
                answer.hasPrefix(said + " are more rows than a chat shows by day (35 at most).\n<pre>"),
                "\(answer.prefix(120))")
        } else {
            #expect(answer.hasPrefix("<pre>"), "\(answer.prefix(120))")
        }
    }
}
