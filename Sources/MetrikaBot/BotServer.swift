import Foundation
import MetrikaModel
import MetrikaStore
import MetrikaUseCases
import Synchronization

/// `metrika bot`: answers the commands of allowed chats by long polling (core.telegram.org/bots/api#getupdates).
///
/// - `deleteWebhook` once (getUpdates answers 409 while a webhook is set), the menu by `setMyCommands`,
///   then `getUpdates` with the offset kept in the history database: the offset past a message is
///   kept before it is answered, so a restart never answers a message twice (at most once).
/// - In a group or supergroup only commands are answered (`/cmd@this_bot` or a bare `/cmd` this bot
///   knows); a private chat's other text gets the short usage line.
/// - A chat not in `allowed` gets no answer and causes no request to Metrika; `stranger` is told its
///   id once per run.
/// - At most `perChatPerMinute` commands a minute per chat on the injected clock; more are left
///   unanswered (`limited` says so once a minute per chat).
/// - `once`: answers what is waiting and returns. A request to stop (`StopRequests`) ends the poll
///   at once but lets the answer in progress finish; `run` then returns normally.
package struct BotServer: Sendable {
    package static let perChatPerMinute = 20
    /// Seconds one long poll waits for an update.
    package static let pollSeconds = 25

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

    package init(
        bot: TelegramBot, allowed: Set<Int64>, store: HistoryStore, commands: BotCommands,
        now: @escaping @Sendable () -> Date,
        stopRequests: (any StopRequests)?, stranger: @escaping @Sendable (Int64) -> Void,
        limited: @escaping @Sendable (Int64) -> Void
    ) {
        self.bot = bot
        self.allowed = allowed
        self.store = store
        self.commands = commands
        self.now = now
        self.stopRequests = stopRequests
        self.stranger = stranger
        self.limited = limited
    }

    /// What a run did.
    package struct Summary: Sendable, Equatable {
        package var answered = 0
        package var ignored = 0
    }

    private final class Control: Sendable {
        struct State {
            var stopping = false
            var poll: Task<[TelegramUpdate], any Error>?
        }
        let state = Mutex(State())

        func stop() {
            let poll = state.withLock { s -> Task<[TelegramUpdate], any Error>? in
                s.stopping = true
                return s.poll
            }
            poll?.cancel()
        }

        var stopping: Bool { state.withLock { $0.stopping } }
    }

    /// Serves until stopped (or, `once`, until nothing is waiting).
    @discardableResult
    package func run(once: Bool) async throws -> Summary {
        let identity = try await bot.getMe()
        try await bot.deleteWebhook()
        try await bot.setMyCommands(BotCommands.menu)
        let control = Control()
        let unwatch = stopRequests?.watch { _ in control.stop() }
        defer { unwatch?() }
        var offset = try await store.botOffset(botID: identity.id)
        var summary = Summary()
        var strangers: Set<Int64> = []
        var recent: [Int64: [Date]] = [:]
        var toldLimited: [Int64: Date] = [:]
        while !control.stopping {
            let updates: [TelegramUpdate]
            let poll = Task { [bot, offset] in
                try await bot.getUpdates(offset: offset, timeout: once ? 0 : Self.pollSeconds)
            }
            control.state.withLock { $0.poll = poll }
            do {
                updates = try await poll.value
            } catch {
                if control.stopping { break }
                throw error
            }
            control.state.withLock { $0.poll = nil }
            for update in updates.sorted(by: { $0.id < $1.id }) {
                // Kept before the answer: a crash mid-answer never answers it again.
                offset = update.id + 1
                try await store.saveBotOffset(update.id + 1, botID: identity.id, at: now())
                guard let message = update.message, let text = message.text else { continue }
                let chat = message.chat.id
                let inGroup = BotCommands.isGroup(message.chat.type)
                // A group's chatter and other bots' commands: not for this bot, not counted against the chat's minute.
                guard BotCommands.command(in: text, botUsername: identity.username, inGroup: inGroup) != nil else {
                    continue
                }
                guard allowed.contains(chat) else {
                    summary.ignored += 1
                    if strangers.insert(chat).inserted { stranger(chat) }
                    continue
                }
                let time = now()
                var times = (recent[chat] ?? []).filter { $0 > time.addingTimeInterval(-60) }
                guard times.count < Self.perChatPerMinute else {
                    summary.ignored += 1
                    if toldLimited[chat].map({ time.timeIntervalSince($0) >= 60 }) ?? true {
                        toldLimited[chat] = time
                        limited(chat)
                    }
                    continue
                }
                times.append(time)
                recent[chat] = times
                guard let answer = await commands.reply(text, botUsername: identity.username, inGroup: inGroup) else {
                    continue
                }
                // One chat's refusal (blocked the bot, a group gone) is that chat's: noted, the others served.
                do {
                    switch answer {
                    case .text(let html): try await bot.sendText(html, to: TelegramChatID(chat))
                    case .photo(let png, let caption):
                        try await bot.sendPhoto(png, fileName: "chart.png", caption: caption, to: TelegramChatID(chat))
                    }
                    summary.answered += 1
                } catch let error as TelegramError where error != .unauthorized {
                    summary.ignored += 1
                    commands.backend.activity.note(
                        "Telegram chat \(chat) was not answered: \(error.message(commands.backend.activity.naming))")
                }
            }
            if once, updates.isEmpty { break }
        }
        return summary
    }
}
