import Foundation
import MetrikaBot
import MetrikaModel
import MetrikaUseCases

/// `metrika bot --allow CHAT[,CHAT…] [--once]`: answers the commands of allowed Telegram chats
/// (MetrikaBot's `BotServer` over the run's services); the bot's token from METRIKA_TELEGRAM_TOKEN, the config or the
/// keyring (`Services.telegramBot`).
enum BotCommand: Command {
    static let name = "bot"
    static let summary =
        "Answer /report, /today, /chart, /explain, /counters and /alerts in allowed Telegram chats (long polling)"
    static let synopses: [[UsageTerm]] = [[.required(.allow), .optional(.once), .moreOptions]]
    static let discussion = """
        The bot's token (from @BotFather) comes from METRIKA_TELEGRAM_TOKEN, the config's "telegram" or
        the keyring entry its "keyring" names (docs/telegram.md); METRIKA_TELEGRAM_API_URL
        points it at another Bot API server. Only the chats of --allow are answered: anyone else gets no
        answer and causes no request to Metrika, and their chat id is named once on stderr (to add it
        to --allow). At most 20 commands a minute per chat. One bot runs per bot token: a second
        one exits 75 (a --once run waits for another --once). Each message is claimed in the history
        database before its answer and recorded after, so a message whose answer a crash cut off is
        answered by the next run (at least once). The long-running bot waits out a Bot API outage (at
        most a minute between tries). SIGINT/SIGTERM let the answer in progress finish, then exit 0.
        In a group only commands are answered (/cmd, or /cmd@ThisBot; another bot's are left alone).
        Commands: /report [counter] [period] (visits, users and bounce rate by day, by week over 35
        days, by month over 182; the periods of report --period; the counter of METRIKA_COUNTER or the
        config when only one), /today [counter], /chart [counter] [period] (visits as a PNG, drawn as
        metrika chart draws it), /explain [counter] [day] (why the day's visits changed, default
        yesterday, as metrika explain says it: the headline, then each dimension's largest changes),
        /counters, /alerts (the open alerts), /help.

        Examples:
          METRIKA_TELEGRAM_TOKEN=123456789:AA… metrika bot --allow 123456789,-1001234567890
          metrika bot --allow 123456789 --once     # from cron: answer what is waiting, then exit
        """
    static let options: [OptionSpec] =
        [Option.allow.spec, Option.once.spec] + DatabaseOptions.specs + [
            Option.tokenFile.described(
                "Read Metrika's token (not the bot's: METRIKA_TELEGRAM_TOKEN) from this file instead of METRIKA_TOKEN or the default token file"
            ).spec,
            TokenOptions.profile
        ]

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        guard let allowText = options[.allow] else {
            throw UsageError("--allow is required: the chat ids the bot answers, e.g. --allow 123456789")
        }
        // Chat numbers only: an update names its chat by number (a channel's @name cannot send commands).
        let allowed = try allowText.split(separator: ",", omittingEmptySubsequences: false).map { piece -> Int64 in
            if piece.trimmingCharacters(in: .whitespaces).isEmpty {
                throw UsageError(
                    allowText.trimmingCharacters(in: .whitespaces).isEmpty
                        ? "--allow is empty: give the chat numbers the bot answers, e.g. --allow 123456789"
                        : "--allow has an empty item between commas: list chat numbers like --allow 123456789,-1001234567890"
                )
            }
            guard let number = TelegramChatID(String(piece))?.number else {
                throw UsageError(
                    "--allow takes chat numbers such as 123456789 or -1001234567890, not \(TerminalText.quote(String(piece))); a chat it does not answer is named on stderr when it writes"
                )
            }
            return number
        }
        // The token as every Telegram use finds it: METRIKA_TELEGRAM_TOKEN, else the config's "telegram", else the
        // keyring.
        let server = try await BotServer(
            services: session.services, allowed: Set(allowed), activity: context, stopRequests: SignalTrap.Requests(),
            stranger: {
                context.note("Telegram chat \($0) is not in --allow: not answered (add it to --allow to answer it).")
            },
            limited: {
                context.note(
                    "Telegram chat \($0) sent more than \(BotServer.perChatPerMinute) commands in a minute: the rest of the minute's are not answered."
                )
            })
        let summary = try await server.run(once: options[.once])
        if options[.once] {
            context.note(
                "Answered \(summary.answered) message\(summary.answered == 1 ? "" : "s"), \(summary.ignored) left unanswered."
            )
        }
        return ExitCode.ok
    }
}

extension Option where Value == String? {
    /// `--allow CHAT[,CHAT…]` of bot.
    static var allow: Option<String?> {
        .text("allow", value: "CHAT[,CHAT…]", help: "The Telegram chat numbers the bot answers (no one else)")
    }
}

extension Option where Value == Bool {
    /// `--once` of bot.
    static var once: Option<Bool> { .flag("once", help: "Answer the messages waiting, then exit") }
}
