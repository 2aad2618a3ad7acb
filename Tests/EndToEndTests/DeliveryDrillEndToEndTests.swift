import Foundation
import MetrikaTestSupport
import Synchronization
import Testing

/// The fault drills of issue 45 beside `alert --today`'s (OutboxDrillEndToEndTests): the daily
/// `alert --telegram`, a `mail --telegram` digest, `bot --once` and the long-running `bot`, each the
/// built binary against the Metrika and Bot API simulators, killed at a random moment (seeded:
/// SIGKILL or SIGTERM, after a random delay or just after a random number of its messages reached the
/// Bot API), then a run left to finish. Every message reaches every good chat at least once, a chat that is not found is given
/// up and said once, and the repeats are no more than the kills. The rounds of a drill run side by
/// side, each with its own history and chats, and the Telegram pace is shortened twentyfold
/// (`METRIKA_TEST_PACE_SCALE`): 8 kills a drill in a few seconds. METRIKA_DRILL_KILLS=40 runs the big
/// drills, METRIKA_DRILL_SEED=N replays one (docs/reliability.md has the figures).
private let drillAPI = FakeAPI.shared(fixtures: "alerts", arguments: ["--now", "2026-12-01T14:30:00Z"])
private let drillTelegram = SuiteFixture<TelegramBotEndToEndTests.BotAPI>(
    start: { try TelegramBotEndToEndTests.BotAPI() }, stop: { $0.stop() })

/// What the drills share: the plan of the kills, the rounds side by side, the tally.
enum Drill {
    static var kills: Int { Int(ProcessInfo.processInfo.environment["METRIKA_DRILL_KILLS"] ?? "") ?? 8 }
    static var seed: UInt64 { UInt64(ProcessInfo.processInfo.environment["METRIKA_DRILL_SEED"] ?? "") ?? 45 }

    /// One kill: the signal, and when — after `afterSends` messages of the round reached the Bot API
    /// and then `delay` seconds (a kill mid-send), or `delay` seconds after the start when none.
    struct Kill: Sendable {
        var signal: Int32
        var afterSends: Int
        var delay: Double
    }

    /// `count` kills drawn from `seed`; `sends` is how many messages a whole run sends.
    static func plan(_ count: Int, seed: UInt64, sends: Int, before: ClosedRange<Double>) -> [Kill] {
        var random = OutboxDrillEndToEndTests.Seeded(state: seed)
        return (0..<count).map { _ in
            let signal = Bool.random(using: &random) ? SIGKILL : SIGTERM
            let afterSends = Int.random(in: 0..<max(1, sends), using: &random)
            let delay =
                afterSends == 0
                ? Double.random(in: before, using: &random) : Double.random(in: 0...0.06, using: &random)
            return Kill(signal: signal, afterSends: afterSends, delay: delay)
        }
    }

    /// What one round saw.
    struct Round: Sendable {
        var sigkill = false
        /// The kill found the run still running (it did not exit on its own first).
        var landed = false
        /// Repeats: a message a chat got more than once, a refusal said more than once.
        var duplicates = 0
        /// Messages the killed run left for the next one.
        var leftOver = false
        /// The kill and what it left, for the big drill's log.
        var detail = ""
        /// The round's wall time, from its start to its checks.
        var seconds = ""
        /// The run after resumed what the killed one left (a digest).
        var resumed = false
        var problems: [String] = []
    }

    /// Runs `body` for each round on its own thread (they block on processes), `width` at a time: more
    /// at once than that starve each other on a small machine and no longer die mid-send.
    static func inParallel(_ count: Int, width: Int = 9, _ body: @escaping @Sendable (Int) -> Round) -> [Round] {
        let results = Mutex([Int: Round]())
        let group = DispatchGroup()
        let slots = DispatchSemaphore(value: width)
        for index in 0..<count {
            slots.wait()
            group.enter()
            let thread = Thread {
                let start = Date()
                var round = body(index)
                round.seconds = String(format: "%.1f", Date().timeIntervalSince(start))
                results.withLock { $0[index] = round }
                slots.signal()
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        return results.withLock { all in (0..<count).map { all[$0] ?? Round(problems: ["round \($0) vanished"]) } }
    }

    /// The accepted sends to `chats`. Asked on a connection of its own (`Connection: close`), as every
    /// request of the drills: URLSession's shared session, asked from many threads at once, answered
    /// seconds late.
    static func sent(_ telegram: TelegramBotEndToEndTests.BotAPI, to chats: Set<String>) -> [[String: Any]] {
        let all = get(port: telegram.port, "/__tg/sent").flatMap {
            (try? JSONSerialization.jsonObject(with: $0) as? [String: Any])?["sent"] as? [[String: Any]]
        }
        return (all ?? []).filter { chats.contains("\($0["chat_id"] ?? "")") }
    }

    /// A request to the loopback `port`: the answer's body, or nil.
    @discardableResult
    static func get(port: Int, _ path: String, method: String = "GET", body: String = "") -> Data? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n"
        let request = Array((head + body).utf8)
        guard write(fd, request, request.count) == request.count else { return nil }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            answer.append(contentsOf: buffer[0..<count])
        }
        guard let end = answer.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        return answer[end.upperBound...]
    }

    /// A message by what it says (its method and its text or caption).
    static func key(_ message: [String: Any]) -> String {
        "\(message["method"] ?? "")\u{1}\(message["text"] ?? message["caption"] ?? "")"
    }

    /// Starts `arguments`, kills it as `kill` says, and waits for its end; when the kill went, in seconds
    /// after the start, and whether the run had ended before it.
    static func killed(
        _ arguments: [String], environment: [String: String], kill: Kill, telegram: TelegramBotEndToEndTests.BotAPI,
        chats: Set<String>
    ) throws -> Killed {
        let start = Date()
        let process = try RunningMetrika.start(arguments, environment: environment)
        var polls = 0
        if kill.afterSends > 0 {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, process.process.isRunning, sent(telegram, to: chats).count < kill.afterSends {
                polls += 1
                usleep(3_000)
            }
        }
        Thread.sleep(forTimeInterval: kill.delay)
        process.signal(kill.signal)
        let at = Date().timeIntervalSince(start)
        let atSignal = sent(telegram, to: chats).count
        let result = process.wait(timeout: 30)
        // A send the kill interrupted is still accepted by the simulator, after its slowness.
        Thread.sleep(forTimeInterval: 0.15)
        return Killed(result: result, at: at, polls: polls, sentAtSignal: atSignal)
    }

    /// What became of a killed run.
    struct Killed {
        var result: ProcessResult
        /// Seconds from the start to the signal.
        var at: Double
        var polls: Int
        /// The messages the Bot API had accepted when the signal went.
        var sentAtSignal: Int

        /// Whether the signal ended the run (SIGTERM is handled: exit 143; `bot` exits 0).
        var landed: Bool { result.signaled || result.status == 143 }

        /// A SIGTERM finishes the message in flight and sends nothing more (one more may start in the
        /// moment the signal takes to arrive): a problem when more went.
        func overran(_ kill: Kill, sentAfter: Int) -> String? {
            guard kill.signal == SIGTERM, sentAfter - sentAtSignal > 2 else { return nil }
            return "after SIGTERM \(sentAfter - sentAtSignal) more messages went (\(sentAtSignal) before)"
        }
    }

    /// A round's kill, for the big drill's log.
    static func describe(
        _ kill: Kill, _ killed: Killed, _ sent: Int, of total: Int
    ) -> String {
        let signal = kill.signal == SIGKILL ? "SIGKILL" : "SIGTERM"
        let when = kill.afterSends > 0 ? "\(kill.afterSends) sends + " : ""
        let delay = String(format: "%.3f", kill.delay)
        return "\(signal) at \(when)\(delay) s (\(String(format: "%.2f", killed.at)) s after the start) → "
            + "exit \(killed.result.status), \(sent) of \(total) sent"
    }

    /// Every send to the shared Bot API simulator takes `seconds` before it is accepted, so that a kill
    /// after a send reached it falls while the next one is on the way.
    static func slow(_ telegram: TelegramBotEndToEndTests.BotAPI, _ seconds: Double) throws {
        try control(telegram, "/__tg/slow", #"{"seconds": \#(seconds)}"#)
    }

    /// A POST to the Bot API simulator's control endpoint `path`.
    static func control(_ telegram: TelegramBotEndToEndTests.BotAPI, _ path: String, _ body: String) throws {
        guard get(port: telegram.port, path, method: "POST", body: body) != nil else {
            throw SimpleError("POST \(path) went unanswered")
        }
    }

    /// Per chat, every message of `expected` at least once; the repeats.
    static func tally(_ sent: [[String: Any]], chats: [String], expected: [String], round: inout Round, _ label: String)
    {
        for chat in chats {
            let keys = sent.filter { "\($0["chat_id"] ?? "")" == chat }.map(key)
            for wanted in expected {
                let count = keys.filter { $0 == wanted }.count
                if count == 0 {
                    round.problems.append("\(label): chat \(chat) never got \(wanted.prefix(80))")
                }
                round.duplicates += max(0, count - 1)
            }
        }
    }

    /// Every round without a problem (nothing lost, a bad chat said once, no overrun), at most one
    /// repeat a round where one message is on the way at a time (`oneInFlight`), and no more repeats
    /// than kills in all; then the figures.
    static func judge(
        _ rounds: [Round], kills: Int, oneInFlight: Bool, _ name: String, seed: UInt64, began: Date,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (index, round) in rounds.enumerated() {
            #expect(round.problems.isEmpty, "round \(index): \(round.problems)", sourceLocation: sourceLocation)
            if oneInFlight {
                #expect(
                    round.duplicates <= (round.landed ? 1 : 0), "round \(index): \(round.detail)",
                    sourceLocation: sourceLocation)
            }
        }
        let duplicates = rounds.map(\.duplicates).reduce(0, +)
        #expect(duplicates <= kills, "\(duplicates) duplicates in \(kills) kills", sourceLocation: sourceLocation)
        report(name, rounds, seed: seed, began: began)
    }

    static func report(_ name: String, _ rounds: [Round], seed: UInt64, began: Date) {
        if ProcessInfo.processInfo.environment["METRIKA_DRILL_KILLS"] != nil {
            for (index, round) in rounds.enumerated() {
                print("  round \(index): \(round.detail), \(round.duplicates) repeated, \(round.seconds) s in all")
            }
        }
        let kills = rounds.count
        let sigkills = rounds.filter(\.sigkill).count
        print(
            "\(name) drill (seed \(seed)): \(kills) kills (\(sigkills) SIGKILL, \(kills - sigkills) SIGTERM), "
                + "\(rounds.filter(\.landed).count) while it ran, "
                + "\(rounds.filter(\.leftOver).count) left messages for the next run, "
                + "\(rounds.flatMap(\.problems).filter { $0.contains("never") }.count) lost, "
                + "\(rounds.map(\.problems.count).reduce(0, +)) problems, \(rounds.map(\.duplicates).reduce(0, +)) "
                + "duplicates, \(String(format: "%.1f", Date().timeIntervalSince(began))) s")
    }
}

@Suite(.serialized, .blockingLanes, .stops(drillAPI, drillTelegram))
struct DeliveryDrillEndToEndTests {
    func environment(_ api: FakeAPI, _ telegram: TelegramBotEndToEndTests.BotAPI, _ home: TemporaryDirectory)
        -> [String: String]
    {
        metrikaEnvironment(
            api: api, home: home.path,
            extra: [
                "METRIKA_NOW": "2026-12-01T14:30:00Z", "METRIKA_DB": home.path + "/h.sqlite",
                "METRIKA_TELEGRAM_TOKEN": TelegramBotEndToEndTests.token,
                "METRIKA_TELEGRAM_API_URL": telegram.baseURL.absoluteString, "METRIKA_TEST_PACE_SCALE": "0.05"
            ])
    }

    /// Counters whose daily check tells alerts on Tuesday 2026-12-01 (a stopped goal, a revenue drop):
    /// 3 messages a chat (the alerts, a chart each).
    static let dailyCounters = "520003,520007"
    static let not404 = "Telegram chat 404 was not found"

    /// The daily `alert --telegram A,404,B`: each round its own chats A, B and its own history.
    @Test func theDailyAlertKilledLosesNothingAndRepeatsOnlyWhatDiedBetweenSendAndRecord() throws {
        let api = try drillAPI.get()
        let telegram = try drillTelegram.get()
        let seed = Drill.seed
        let plan = Drill.plan(Drill.kills, seed: seed, sends: 6, before: 0.05...1.2)
        try Drill.slow(telegram, 0.1)
        defer { try? Drill.slow(telegram, 0) }
        let began = Date()
        // Round -1 is not killed: what a whole run sends to a chat.
        let rounds = Drill.inParallel(plan.count + 1) { index in
            var round = Drill.Round()
            do {
                let home = try TemporaryDirectory()
                let env = environment(api, telegram, home)
                let good = ["\(111_000 + index)", "\(222_000 + index)"]
                let arguments = ["alert", "--telegram", "\(good[0]),404,\(good[1])", "--counter", Self.dailyCounters]
                if index == plan.count {
                    let whole = try metrika(arguments, environment: env, timeout: 60)
                    round.problems = whole.status == 69 ? [] : ["the whole run: \(whole.status) \(whole.stderr)"]
                    return round
                }
                let kill = plan[index]
                round.sigkill = kill.signal == SIGKILL
                let killed = try Drill.killed(
                    arguments, environment: env, kill: kill, telegram: telegram, chats: Set(good))
                let before = Drill.sent(telegram, to: Set(good)).count
                round.leftOver = before < 6
                round.landed = killed.landed
                if let overran = killed.overran(kill, sentAfter: before) { round.problems.append(overran) }
                round.detail = Drill.describe(kill, killed, before, of: 6)
                let after = try metrika(arguments, environment: env, timeout: 60)
                if ![0, 69].contains(after.status) { round.problems.append("the run after: \(after.stderr)") }
                let third = try metrika(arguments, environment: env, timeout: 60)
                if third.status != 0 || !third.stdout.isEmpty || third.stderr.contains(Self.not404) {
                    round.problems.append("a third run: \(third.status) \(third.stdout)\(third.stderr)")
                }
                let said = [killed.result.stderr, after.stderr].map {
                    $0.components(separatedBy: Self.not404).count - 1
                }
                .reduce(0, +)
                if said == 0, after.status == 69 { round.problems.append("404 never said: \(after.stderr)") }
                round.duplicates += max(0, said - 1)
            } catch {
                round.problems.append("\(error)")
            }
            return round
        }
        let whole = try #require(rounds.last)
        #expect(whole.problems.isEmpty, "\(whole.problems)")
        let reference = Drill.sent(telegram, to: ["\(111_000 + plan.count)"]).map(Drill.key)
        #expect(reference.count == 3, "\(reference)")
        var killedRounds = Array(rounds.dropLast())
        for index in killedRounds.indices {
            let good = ["\(111_000 + index)", "\(222_000 + index)"]
            Drill.tally(
                Drill.sent(telegram, to: Set(good)), chats: good, expected: reference, round: &killedRounds[index],
                "round \(index)")
        }
        #expect(!Drill.sent(telegram, to: ["404"]).contains { _ in true })
        Drill.judge(killedRounds, kills: plan.count, oneInFlight: true, "Daily alert", seed: seed, began: began)
    }

    /// A `mail --telegram` digest of 4 counters (a summary and a photo each), killed mid-digest: the run
    /// after resumes it, and the chat has every part at least once. (A digest the killed run had
    /// recorded whole is sent again whole by the next run, as asked: a new digest, not a repeat.)
    @Test func aDigestKilledMidwayLosesNoPart() throws {
        let api = try drillAPI.get()
        let telegram = try drillTelegram.get()
        let seed = Drill.seed &+ 1
        let plan = Drill.plan(Drill.kills, seed: seed, sends: 5, before: 0.05...1.0)
        try Drill.slow(telegram, 0.1)
        defer { try? Drill.slow(telegram, 0) }
        let began = Date()
        let rounds = Drill.inParallel(plan.count + 1) { index in
            var round = Drill.Round()
            do {
                let home = try TemporaryDirectory()
                let env = environment(api, telegram, home)
                let chat = "\(777_000 + index)"
                let arguments = ["mail", "--telegram", chat, "--counter", "520001,520003,520004,520005"]
                if index == plan.count {
                    let whole = try metrika(arguments, environment: env, timeout: 60)
                    round.problems = whole.status == 0 ? [] : ["the whole run: \(whole.status) \(whole.stderr)"]
                    return round
                }
                let kill = plan[index]
                round.sigkill = kill.signal == SIGKILL
                let killed = try Drill.killed(
                    arguments, environment: env, kill: kill, telegram: telegram, chats: [chat])
                let before = Drill.sent(telegram, to: [chat]).count
                round.leftOver = before < 5
                round.landed = killed.landed
                if let overran = killed.overran(kill, sentAfter: before) { round.problems.append(overran) }
                round.detail = Drill.describe(kill, killed, before, of: 5)
                let after = try metrika(arguments, environment: env, timeout: 60)
                if after.status != 0 { round.problems.append("the run after: \(after.stderr)") }
                let resumed = after.stderr.contains("Resuming the digest an earlier run did not finish")
                if !resumed, (1..<5).contains(before) {
                    round.problems.append("\(before) of 5 parts sent, and the run after began again: \(after.stderr)")
                }
                round.resumed = resumed
            } catch {
                round.problems.append("\(error)")
            }
            return round
        }
        let whole = try #require(rounds.last)
        #expect(whole.problems.isEmpty, "\(whole.problems)")
        let reference = Drill.sent(telegram, to: ["\(777_000 + plan.count)"]).map(Drill.key)
        #expect(reference.count == 5, "\(reference)")
        var killedRounds = Array(rounds.dropLast())
        for index in killedRounds.indices {
            let chat = "\(777_000 + index)"
            var sent = Drill.sent(telegram, to: [chat])
            // A new digest after one recorded whole: its parts are not repeats.
            if !killedRounds[index].resumed, sent.count == 10 { sent = Array(sent.prefix(5)) }
            Drill.tally(sent, chats: [chat], expected: reference, round: &killedRounds[index], "round \(index)")
        }
        Drill.judge(killedRounds, kills: plan.count, oneInFlight: true, "mail --telegram", seed: seed, began: began)
    }

    /// `bot --once` with 8 queued messages (each from its own chat, so each answer names its message)
    /// and one from chat 404 (not found: said once),
    /// killed while answering, then run again: every message answered at least once. Each round has
    /// its own Bot API simulator (one update queue each) and history.
    @Test func theBotKilledWhileAnsweringAnswersEveryMessage() throws {
        let api = try drillAPI.get()
        let seed = Drill.seed &+ 2
        // Killed after at most 3 answers: a SIGTERM leaves 5 or more, which it must not answer first.
        let plan = Drill.plan(Drill.kills, seed: seed, sends: 4, before: 0.05...0.5)
        let questions = [
            "/report 520003", "/help", "/today 520003", "/alerts", "/counters", "/report 520007", "/help",
            "/today 520001"
        ]
        let began = Date()
        // Each round's simulator, started before the rounds.
        let simulators = try (0..<plan.count).map { _ in try TelegramBotEndToEndTests.BotAPI() }
        defer { for simulator in simulators { simulator.stop() } }
        let rounds = Drill.inParallel(plan.count) { index in
            var round = Drill.Round()
            do {
                let telegram = simulators[index]
                let home = try TemporaryDirectory()
                let env = environment(api, telegram, home)
                let chats = questions.indices.map { "\(61_000 + $0)" }
                for (chat, question) in zip(chats, questions) {
                    let body = try JSONSerialization.data(withJSONObject: ["chat_id": Int(chat)!, "text": question])
                    try Drill.control(telegram, "/__tg/updates", String(decoding: body, as: UTF8.self))
                }
                try Drill.slow(telegram, 0.1)
                // And one from a chat the answer cannot reach (chat not found): said once, never retried.
                try Drill.control(telegram, "/__tg/updates", #"{"chat_id": 404, "text": "/help"}"#)
                let arguments = ["bot", "--once", "--allow", (chats + ["404"]).joined(separator: ",")]
                let kill = plan[index]
                round.sigkill = kill.signal == SIGKILL
                let killed = try Drill.killed(
                    arguments, environment: env, kill: kill, telegram: telegram, chats: Set(chats))
                let before = Drill.sent(telegram, to: Set(chats)).count
                round.leftOver = before < chats.count
                // A stopped `bot --once` exits 0, the rest of its batch left.
                round.landed = killed.landed || kill.signal == SIGTERM && before < chats.count
                if let overran = killed.overran(kill, sentAfter: before) { round.problems.append(overran) }
                round.detail = Drill.describe(kill, killed, before, of: chats.count)
                let after = try metrika(arguments, environment: env, timeout: 60)
                if after.status != 0 { round.problems.append("the run after: \(after.status) \(after.stderr)") }
                let said = [killed.result.stderr, after.stderr].map {
                    $0.components(separatedBy: "Telegram chat 404 was not answered").count - 1
                }
                .reduce(0, +)
                if said == 0 { round.problems.append("404 never said: \(killed.result.stderr)\(after.stderr)") }
                round.duplicates += max(0, said - 1)
                let sent = Drill.sent(telegram, to: Set(chats))
                for chat in chats {
                    let count = sent.filter { "\($0["chat_id"] ?? "")" == chat }.count
                    if count == 0 { round.problems.append("round \(index): the message from \(chat) never answered") }
                    round.duplicates += max(0, count - 1)
                }
            } catch {
                round.problems.append("\(error)")
            }
            return round
        }
        Drill.judge(rounds, kills: plan.count, oneInFlight: false, "bot --once", seed: seed, began: began)
    }

    /// The long-running `bot` (no `--once`): 4 messages queued before it starts and 4 more arriving
    /// while it serves (each from its own chat, one answer each), killed at a random moment; then the
    /// next long-running bot starts at once — after a kill -9 the dead bot's lease is stale, and it must
    /// not wait for it (nor end with "Another metrika bot") — answers what is left and is stopped by
    /// SIGTERM once every message is answered (exit 0). Every message answered at least once; a SIGTERM
    /// lets at most the answer in flight go; at most one repeat a round (one answer is on the way at a
    /// time), and no more repeats than kills.
    @Test func theLongRunningBotKilledAtRandomAnswersEveryMessage() throws {
        let api = try drillAPI.get()
        let seed = Drill.seed &+ 3
        let plan = Drill.plan(Drill.kills, seed: seed, sends: 5, before: 0.05...0.6)
        let questions = ["/help", "/alerts", "/help", "/counters", "/help", "/alerts", "/help", "/counters"]
        let began = Date()
        let simulators = try (0..<plan.count).map { _ in try TelegramBotEndToEndTests.BotAPI() }
        defer { for simulator in simulators { simulator.stop() } }
        let rounds = Drill.inParallel(plan.count) { index in
            var round = Drill.Round()
            do {
                let telegram = simulators[index]
                let home = try TemporaryDirectory()
                let env = environment(api, telegram, home)
                let chats = questions.indices.map { "\(62_000 + $0)" }
                @Sendable func queue(_ range: Range<Int>) throws {
                    for (chat, question) in zip(chats[range], questions[range]) {
                        let body = try JSONSerialization.data(withJSONObject: ["chat_id": Int(chat)!, "text": question])
                        try Drill.control(telegram, "/__tg/updates", String(decoding: body, as: UTF8.self))
                    }
                }
                try queue(0..<4)
                try Drill.slow(telegram, 0.1)
                let arguments = ["bot", "--allow", chats.joined(separator: ",")]
                let kill = plan[index]
                round.sigkill = kill.signal == SIGKILL
                // The other 4 arrive while it serves (sent from a thread of their own).
                let arrived = DispatchSemaphore(value: 0)
                Thread {
                    Thread.sleep(forTimeInterval: 0.2)
                    try? queue(4..<8)
                    arrived.signal()
                }
                .start()
                let killed = try Drill.killed(
                    arguments, environment: env, kill: kill, telegram: telegram, chats: Set(chats))
                let before = Drill.sent(telegram, to: Set(chats)).count
                round.leftOver = before < chats.count
                // The long-running bot never ends on its own: every kill found it running.
                round.landed = true
                round.detail = Drill.describe(kill, killed, before, of: chats.count)
                // A SIGTERM ends it with exit 0 (or by the signal, in the moment before its handler).
                let stopped =
                    kill.signal == SIGTERM
                    ? killed.result.status == 0 || killed.result.signaled
                    : killed.result.signaled && killed.result.status == SIGKILL
                if !stopped { round.problems.append("\(round.detail): \(killed.result.stderr)") }
                if let overran = killed.overran(kill, sentAfter: before) { round.problems.append(overran) }
                // The next bot, at once (once all 8 are queued).
                arrived.wait()
                let next = try RunningMetrika.start(arguments, environment: env)
                let started = Date()
                let deadline = started.addingTimeInterval(20)
                var answered = Set<String>()
                while Date() < deadline, next.process.isRunning {
                    answered = Set(Drill.sent(telegram, to: Set(chats)).map { "\($0["chat_id"] ?? "")" })
                    if answered.count == chats.count { break }
                    usleep(10_000)
                }
                let waited = Date().timeIntervalSince(started)
                next.terminate()
                let after = next.wait(timeout: 15)
                round.detail += String(format: "; the next bot answered the rest in %.2f s", waited)
                if after.status != 0 || after.signaled {
                    round.problems.append("the next bot: \(after.status) \(after.stderr)")
                }
                if after.stderr.contains("Another metrika bot") {
                    round.problems.append("the next bot found a stale lease: \(after.stderr)")
                }
                let sent = Drill.sent(telegram, to: Set(chats))
                for chat in chats {
                    let count = sent.filter { "\($0["chat_id"] ?? "")" == chat }.count
                    if count == 0 { round.problems.append("round \(index): the message from \(chat) never answered") }
                    round.duplicates += max(0, count - 1)
                }
            } catch {
                round.problems.append("\(error)")
            }
            return round
        }
        Drill.judge(rounds, kills: plan.count, oneInFlight: true, "Long-running bot", seed: seed, began: began)
    }
}
