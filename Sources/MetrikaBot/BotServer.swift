import Foundation
import MetrikaModel
import MetrikaStore
import MetrikaUseCases
import Synchronization

/// `metrika bot`: answers the commands of allowed chats by long polling (core.telegram.org/bots/api#getupdates).
///
/// - One running bot per bot token: a run takes the bot's lease in the history database (`bot_leases`)
///   and renews it while it serves. Another long-running bot holding it is `BotLeaseError.held` (exit
///   75); a `--once` run holding it is waited for, so cron's runs and a service take turns.
/// - `deleteWebhook` once (getUpdates answers 409 while a webhook is set), the menu by `setMyCommands`,
///   then `getUpdates` from the offset kept in the history database. Each update is claimed before it
///   is answered and recorded after; the offset moves past recorded updates only. A run that died
///   mid-answer leaves its update claimed: the next run gets it again and answers it (at least once).
/// - The long-running bot never stops on a transient failure (unreachable, timeout, 5xx, 429): it
///   waits 1 s, doubling up to `maxBackoff`, says once that it waits and once that it is back. `--once`
///   ends with the error instead (its update stays for the next run).
/// - In a group or supergroup only commands are answered (`/cmd@this_bot` or a bare `/cmd` this bot
///   knows); a private chat's other text gets the short usage line.
/// - A chat not in `allowed` gets no answer and causes no request to Metrika; `stranger` is told its
///   id once per run.
/// - At most `perChatPerMinute` commands a minute per chat on the injected clock; more are left
///   unanswered (`limited` says so once a minute per chat).
/// - `once`: answers what is waiting and returns. A request to stop (`StopRequests`) ends the poll
///   (or a wait) at once but lets the answer in progress finish; `run` then returns normally.
package struct BotServer: Sendable {
    package static let perChatPerMinute = 20
    /// Seconds one long poll waits for an update.
    package static let pollSeconds = 25
    /// The longest wait between two tries of the long-running bot in an outage.
    package static let maxBackoff: Double = 60
    /// Seconds a lease lasts unless renewed (each poll and answer renews it).
    package static let leaseSeconds: Double = 120
    /// Seconds between two looks at a lease another `--once` run holds.
    package static let leaseWait: Double = 1

    package let bot: TelegramBot
    package let allowed: Set<Int64>
    package let store: HistoryStore
    package let commands: BotCommands
    package let now: @Sendable () -> Date
    package let stopRequests: (any StopRequests)?
    /// A chat not allowed wrote (its id, once per run).
    package let stranger: @Sendable (Int64) -> Void
    /// A chat went past the commands a minute.
    package let limited: @Sendable (Int64) -> Void
    /// Waits (the backoff of an outage, the turn of a lease); cancelled by a stop request.
    package let sleep: @Sendable (Double) async throws -> Void

    package init(
        bot: TelegramBot, allowed: Set<Int64>, store: HistoryStore, commands: BotCommands,
        now: @escaping @Sendable () -> Date,
        stopRequests: (any StopRequests)?, stranger: @escaping @Sendable (Int64) -> Void,
        limited: @escaping @Sendable (Int64) -> Void,
        sleep: @escaping @Sendable (Double) async throws -> Void = {
            try await Task.sleep(nanoseconds: UInt64(max(0, $0) * 1e9))
        }
    ) {
        self.bot = bot
        self.allowed = allowed
        self.store = store
        self.commands = commands
        self.now = now
        self.stopRequests = stopRequests
        self.stranger = stranger
        self.limited = limited
        self.sleep = sleep
    }

    /// What a run did.
    package struct Summary: Sendable, Equatable {
        package var answered = 0
        package var ignored = 0
    }

    private final class Control: Sendable {
        struct State {
            var stopping = false
            /// Cancels the poll or the wait under way.
            var cancel: (@Sendable () -> Void)?
        }
        let state = Mutex(State())

        func stop() {
            let cancel = state.withLock { s -> (@Sendable () -> Void)? in
                s.stopping = true
                return s.cancel
            }
            cancel?()
        }

        var stopping: Bool { state.withLock { $0.stopping } }

        /// Runs `work` so that a stop request cancels it; nil when it was stopped.
        func interruptibly<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T? {
            let task = Task { try await work() }
            let stopped = state.withLock { s -> Bool in
                s.cancel = { task.cancel() }
                return s.stopping
            }
            if stopped { task.cancel() }
            defer { state.withLock { $0.cancel = nil } }
            do {
                return try await task.value
            } catch {
                if stopping { return nil }
                throw error
            }
        }
    }

    /// The long-running bot's outage: failures in a row, whether the wait was said.
    private struct Outage {
        var failures = 0
        var since: Date?
        var said = false
    }

    /// Whether `error` passes (an outage of the Bot API or the network): the long-running bot waits it out.
    package static func isTransient(_ error: any Error) -> Bool {
        switch error as? TelegramError {
        case .unreachable, .timedOut, .serverError, .tooManyRequests: return true
        default: return false
        }
    }

    /// Serves until stopped (or, `once`, until nothing is waiting).
    @discardableResult
    package func run(once: Bool) async throws -> Summary {
        let control = Control()
        let unwatch = stopRequests?.watch { _ in control.stop() }
        defer { unwatch?() }
        var outage = Outage()
        guard
            let identity = try await patiently(
                once, control, &outage,
                { [bot] in
                    let identity = try await bot.getMe()
                    try await bot.deleteWebhook()
                    try await bot.setMyCommands(BotCommands.menu)
                    return identity
                })
        else { return Summary() }
        let holder = BotLeaseHolder(
            id: UUID().uuidString, pid: getpid(), host: Self.hostName, serving: !once, since: now())
        guard try await takeLease(botID: identity.id, holder: holder, control: control) else { return Summary() }
        do {
            let summary = try await serve(identity: identity, holder: holder, once: once, control: control, &outage)
            try? await store.releaseBotLease(botID: identity.id, holderID: holder.id)
            return summary
        } catch {
            try? await store.releaseBotLease(botID: identity.id, holderID: holder.id)
            throw error
        }
    }

    /// Takes the bot's lease, waiting while a `--once` run has it; false when stopped while waiting.
    private func takeLease(botID: Int64, holder: BotLeaseHolder, control: Control) async throws -> Bool {
        while !control.stopping {
            guard
                let other = try await store.takeBotLease(
                    botID: botID, holder: holder, now: now(), seconds: Self.leaseSeconds, isAlive: Self.isAlive)
            else { return true }
            if other.serving { throw BotLeaseError.held(pid: other.pid, host: other.host, since: other.since) }
            guard try await control.interruptibly({ [sleep] in try await sleep(Self.leaseWait) }) != nil else {
                return false
            }
        }
        return false
    }

    private func serve(
        identity: TelegramBotIdentity, holder: BotLeaseHolder, once: Bool, control: Control, _ outage: inout Outage
    ) async throws -> Summary {
        var summary = Summary()
        var strangers: Set<Int64> = []
        var recent: [Int64: [Date]] = [:]
        var toldLimited: [Int64: Date] = [:]
        while !control.stopping {
            try await renew(botID: identity.id, holder: holder)
            let offset = try await store.botOffset(botID: identity.id)
            guard
                let updates = try await patiently(
                    once, control, &outage,
                    { [bot] in
                        try await bot.getUpdates(offset: offset, timeout: once ? 0 : Self.pollSeconds)
                    })
            else { break }
            var failure: (any Error)?
            for update in updates.sorted(by: { $0.id < $1.id }) {
                // Stopped: the answer in flight finished; the rest of the batch waits, unclaimed.
                if control.stopping { break }
                switch try await store.claimBotUpdate(
                    botID: identity.id, updateID: update.id, holderID: holder.id, at: now())
                {
                case .answered:
                    try await store.finishBotUpdate(botID: identity.id, updateID: update.id, at: now())
                    continue
                case .unfinished:
                    commands.backend.activity.note(
                        "Telegram update \(update.id) was being answered when the bot stopped: answered again.")
                case .new: break
                }
                do {
                    try await answer(
                        update, identity: identity, &summary, &strangers, &recent, &toldLimited)
                } catch  where Self.isTransient(error) {
                    // Left claimed, not recorded: the next poll gets it again.
                    failure = error
                    break
                }
                try await store.finishBotUpdate(botID: identity.id, updateID: update.id, at: now())
                try await renew(botID: identity.id, holder: holder)
            }
            if let failure {
                guard
                    try await patiently(once, control, &outage, { () async throws -> Bool in throw failure }) != nil
                else { break }
                continue
            }
            if once, updates.isEmpty { break }
        }
        return summary
    }

    /// Renews the lease; another run that took it (this one stalled past the lease) is `BotLeaseError`.
    private func renew(botID: Int64, holder: BotLeaseHolder) async throws {
        if let other = try await store.takeBotLease(
            botID: botID, holder: holder, now: now(), seconds: Self.leaseSeconds, isAlive: Self.isAlive)
        {
            throw BotLeaseError.held(pid: other.pid, host: other.host, since: other.since)
        }
    }

    /// Runs `work`; for the long-running bot a transient failure is waited out and `work` tried again
    /// (1 s, doubling up to a minute; said once, and once when it is back). Nil when stopped.
    private func patiently<T: Sendable>(
        _ once: Bool, _ control: Control, _ outage: inout Outage, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        while !control.stopping {
            do {
                guard let value = try await control.interruptibly(work) else { return nil }
                if outage.said, let since = outage.since {
                    commands.backend.activity.note(
                        "Telegram's Bot API answers again (after "
                            + "\(Self.duration(now().timeIntervalSince(since)))): serving."
                    )
                }
                outage = Outage()
                return value
            } catch  where !once && Self.isTransient(error) {
                outage.failures += 1
                if outage.since == nil { outage.since = now() }
                if !outage.said {
                    outage.said = true
                    let words = (error as? TelegramError)?.message(commands.backend.activity.naming) ?? "\(error)"
                    commands.backend.activity.note(
                        "\(words) Waiting: trying again, at most a minute apart, until it answers.")
                }
                let delay = min(Self.maxBackoff, pow(2, Double(min(outage.failures - 1, 6))))
                guard try await control.interruptibly({ [sleep] in try await sleep(delay) }) != nil else { return nil }
            }
        }
        return nil
    }

    /// `12 s`, `3 min`, `2 h 5 min`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds).rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }

    /// Answers one update (or leaves it, said): a transient failure of its answer is thrown.
    private func answer(
        _ update: TelegramUpdate, identity: TelegramBotIdentity, _ summary: inout Summary,
        _ strangers: inout Set<Int64>, _ recent: inout [Int64: [Date]], _ toldLimited: inout [Int64: Date]
    ) async throws {
        guard let message = update.message, let text = message.text else { return }
        let chat = message.chat.id
        let inGroup = BotCommands.isGroup(message.chat.type)
        // A group's chatter and other bots' commands: not for this bot, not counted against the chat's minute.
        guard BotCommands.command(in: text, botUsername: identity.username, inGroup: inGroup) != nil else {
            return
        }
        guard allowed.contains(chat) else {
            summary.ignored += 1
            if strangers.insert(chat).inserted { stranger(chat) }
            return
        }
        let time = now()
        var times = (recent[chat] ?? []).filter { $0 > time.addingTimeInterval(-60) }
        guard times.count < Self.perChatPerMinute else {
            summary.ignored += 1
            if toldLimited[chat].map({ time.timeIntervalSince($0) >= 60 }) ?? true {
                toldLimited[chat] = time
                limited(chat)
            }
            return
        }
        times.append(time)
        recent[chat] = times
        guard let answer = await commands.reply(text, botUsername: identity.username, inGroup: inGroup) else {
            return
        }
        // One chat's refusal (blocked the bot, a group gone) is that chat's: noted, the others served.
        do {
            switch answer {
            case .text(let html): try await bot.sendText(html, to: TelegramChatID(chat))
            case .photo(let png, let caption):
                try await bot.sendPhoto(png, fileName: "chart.png", caption: caption, to: TelegramChatID(chat))
            }
            summary.answered += 1
        } catch let error as TelegramError where error != .unauthorized && !Self.isTransient(error) {
            summary.ignored += 1
            commands.backend.activity.note(
                "Telegram chat \(chat) was not answered: \(error.message(commands.backend.activity.naming))")
        }
    }

    /// This machine's name (a lease held on another host is judged by its expiry alone).
    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether process `pid` of this host lives (a bot killed with SIGKILL leaves its lease behind).
    @Sendable static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}

/// Another run of the same bot token serves already.
package enum BotLeaseError: WordedFailure, Equatable {
    case held(pid: Int32, host: String, since: Date)

    package var exitCode: Int32 { ExitCode.tryLater }

    package func message(_ naming: ParameterNaming) -> String {
        switch self {
        case .held(let pid, let host, let since):
            return
                "Another metrika bot with this bot token is serving (pid \(pid) on \(TerminalText.quote(host)), "
                + "since \(RFC3339.format(since))); one bot per token: stop it first."
        }
    }
}
