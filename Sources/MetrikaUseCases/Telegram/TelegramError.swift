import MetrikaModel

/// What went wrong talking to the Telegram Bot API. The bot token is in every URL (`/bot<token>/…`),
/// so no case holds a URL or a token: texts that came from the server or the transport are stored
/// already masked (`TelegramBot` masks them), and the one-line message (its settings in the entry
/// point's words) and the exit status are derived here only.
package enum TelegramError: WordedFailure, Equatable {
    /// The token does not look like one from @BotFather (`123456789:AA…`); it is not shown.
    case malformedToken(source: String)
    /// A chat list entry that is neither a chat's number nor `@channel`.
    case notAChat(source: String, text: String)
    /// 401 (or 404 for the bot's path): Telegram does not know the token.
    case unauthorized
    /// 400 `chat not found`: a wrong id, or the user never pressed Start.
    case chatNotFound(chat: String)
    /// 403: the user blocked the bot, or the bot was removed from the group; `reason` is Telegram's.
    case blocked(chat: String, reason: String)
    /// 429 with a `retry_after` longer than metrika waits, or again and again.
    case tooManyRequests(retryAfter: Int)
    /// Telegram refused the call (400 `can't parse entities`, `message is too long`, 409 …).
    case rejected(method: String, status: Int, description: String)
    /// 5xx still after the retries.
    case serverError(method: String, status: Int, description: String)
    /// No answer within `seconds`, after the retries.
    case timedOut(seconds: Double)
    /// The Bot API could not be reached; `detail` is the transport's account, masked.
    case unreachable(detail: String)
    /// The answer grew past `limit` bytes.
    case answerTooLarge(limit: Int)
    /// A redirect, which metrika never follows (the token would go where the setting does not say).
    case redirected(status: Int, target: String)
    /// An answer that is not the Bot API's JSON (`detail` says how, masked).
    case garbage(method: String, status: Int, detail: String)

    package var exitCode: Int32 {
        switch self {
        case .malformedToken: return ExitCode.config
        case .notAChat: return ExitCode.usage
        case .unauthorized: return ExitCode.noPermission
        case .tooManyRequests: return ExitCode.tryLater
        case .garbage: return ExitCode.dataError
        case .chatNotFound, .blocked, .rejected, .serverError, .timedOut, .unreachable, .answerTooLarge, .redirected:
            return ExitCode.unavailable
        }
    }

    package func message(_ naming: ParameterNaming) -> String {
        switch self {
        case .malformedToken(let source):
            return
                "\(source) is not a Telegram bot token (digits, ':' and 35 characters, as @BotFather gives it); it is not shown because it is a secret."
        case .notAChat(let source, let text):
            return
                "\(source): \(TerminalText.quote(text)) is not a Telegram chat id; give a chat's number (such as 123456789 or -1001234567890) or a channel's @name."
        case .unauthorized:
            return "Telegram refused the bot token (401 Unauthorized); \(naming.action(.checkTelegramToken))"
        case .chatNotFound(let chat):
            return
                "Telegram chat \(chat) was not found: check the id, and that someone in the chat pressed Start or added the bot to the group."
        case .blocked(let chat, let reason):
            return
                "Telegram chat \(chat) does not take the bot's messages (\(reason)); unblock the bot or add it to the group again."
        case .tooManyRequests(let retryAfter):
            return "Telegram asks to send nothing for \(retryAfter) s (429 Too Many Requests); try again later."
        case .rejected(let method, let status, let description):
            return "Telegram refused \(method) (HTTP \(status)): \(description)."
        case .serverError(let method, let status, let description):
            return
                "Telegram answered \(method) with HTTP \(status)\(description.isEmpty ? "" : " (\(description))") after retries; try again later."
        case .timedOut(let seconds):
            return "Telegram did not answer within \(DecimalText.shortest(seconds)) s, after retries; try again later."
        case .unreachable(let detail):
            return "Telegram's Bot API could not be reached: \(detail)."
        case .answerTooLarge(let limit):
            return "Telegram's Bot API answered more than \(limit >> 10) KiB; refused as a hostile answer."
        case .redirected(let status, let target):
            return
                "Telegram's Bot API answered with a redirect (HTTP \(status)) to \(target), which metrika never follows; "
                + naming.action(.checkTelegramAddress)
        case .garbage(let method, let status, let detail):
            return
                "Telegram's Bot API answered \(method) with something that is not its JSON (HTTP \(status)): \(detail); "
                + naming.action(.checkTelegramAddress)
        }
    }
}
