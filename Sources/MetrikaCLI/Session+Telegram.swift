import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaSystem
import MetrikaUseCases

/// The Telegram delivery's settings, from the environment and the config file (never an argument:
/// a token on the command line would be in `ps` and the shell's history).
extension Session {
    /// The chats to send to: `--telegram` (`given`), else METRIKA_TELEGRAM_CHAT, else the profile's
    /// or the config file's `"telegram"` `"chat"`; empty when none says.
    func telegramChats(given: String?) throws -> [TelegramChatID] {
        if let given {
            guard !given.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw UsageError("--telegram needs a chat id: --telegram 123456789 (docs/telegram.md says how to find it)")
            }
            return try TelegramChatID.list(given, source: "--telegram")
        }
        if let text = context.environment["METRIKA_TELEGRAM_CHAT"], !text.trimmingCharacters(in: .whitespaces).isEmpty {
            return try TelegramChatID.list(text, source: "METRIKA_TELEGRAM_CHAT")
        }
        let config = try configFile()
        if let text = try profile()?.telegram?.chats ?? config?.telegram?.chats {
            return try TelegramChatID.list(text, source: "\"telegram\" \"chat\" in \(config?.path ?? "the config file")")
        }
        return []
    }

    /// The bot: its token from METRIKA_TELEGRAM_TOKEN, else the profile's, else the config file's
    /// `"telegram"` `"token"`, else the keyring entry the profile's or the file's `"telegram"`
    /// `"keyring"` names (added to the run's secrets at once); its base from METRIKA_TELEGRAM_API_URL.
    /// No token: `ConfigError.missingTelegramToken` (78); the named entry missing:
    /// `ConfigError.missingTelegramKeyringEntry` (78); the keyring unreachable: `AuthError.keyringUnavailable` (69).
    func telegramBot() async throws -> TelegramBot {
        let environment = context.environment
        let token: String
        let source: String
        if let text = environment["METRIKA_TELEGRAM_TOKEN"], !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            token = text
            source = "METRIKA_TELEGRAM_TOKEN"
        } else {
            let config = try configFile()
            let profile = try profile()
            if let profile, let text = profile.telegram?.token {
                token = text
                source = "the \"telegram\" token of profile \"\(profile.name)\""
            } else if let text = config?.telegram?.token {
                token = text
                source = "the \"telegram\" token of \(config?.path ?? "the config file")"
            } else if let account = profile?.telegram?.keyring ?? config?.telegram?.keyring {
                var keyring = Keyring(kind: .system, account: account, environment: environment)
                keyring.instead = "give the bot's token in METRIKA_TELEGRAM_TOKEN or as the private config file's \"telegram\" \"token\""
                guard let data = try await keyring.lookup(),
                      case let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
                    throw ConfigError.missingTelegramKeyringEntry(account: account, keyring: keyring.displayName,
                                                                  store: keyring.manualStore(label: Self.telegramKeyringLabel))
                }
                token = text
                source = "the keyring entry '\(account)' (\(keyring.displayName))"
            } else {
                throw ConfigError.missingTelegramToken(path: ConfigFile.path(environment: environment))
            }
        }
        context.secrets.add(token.trimmingCharacters(in: .whitespacesAndNewlines))
        let base = try secretBearingBaseURL(environment["METRIKA_TELEGRAM_API_URL"], variable: "METRIKA_TELEGRAM_API_URL",
                                            fallback: TelegramBot.defaultBaseURL.absoluteString, secret: "the Telegram bot token")
        let context = self.context
        let bot = try TelegramBot(token: token, tokenSource: source, baseURL: base, transport: context.transport, environment: environment,
                                  timeout: try requestTimeout(), note: { context.note($0) })
        for secret in bot.secrets { context.secrets.add(secret) }
        return bot
    }
}

extension Session {
    /// The label of the keyring entry holding a Telegram bot's token (what a keyring's window shows).
    static let telegramKeyringLabel = "metrika Telegram bot"
}

extension Option where Value == String? {
    /// `--telegram CHAT[,CHAT…]` of alert and mail.
    static var telegram: Option<String?> {
        .text("telegram", value: "CHAT[,CHAT…]", help: "Send to these Telegram chats too (default: METRIKA_TELEGRAM_CHAT; the bot token: METRIKA_TELEGRAM_TOKEN, the config or the keyring)")
    }
}
