import Foundation
import MetrikaModel
import MetrikaUseCases

// `--telegram CHAT[,CHAT…]` of alert and mail: the chats a command names, before the services' defaults.

extension Session {
    /// The chats to send to: `--telegram` (`given`), else the services' (METRIKA_TELEGRAM_CHAT, the
    /// profile's or the config file's `"telegram"` `"chat"`); empty when none says.
    func telegramChats(given: String?) throws -> [TelegramChatID] {
        if let given {
            guard !given.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw UsageError(
                    "--telegram needs a chat id: --telegram 123456789 (docs/telegram.md says how to find it)")
            }
            return try TelegramChatID.list(given, source: "--telegram")
        }
        return try services.telegramChats()
    }
}

extension Option where Value == String? {
    /// `--telegram CHAT[,CHAT…]` of alert and mail.
    static var telegram: Option<String?> {
        .text(
            "telegram", value: "CHAT[,CHAT…]",
            help:
                "Send to these Telegram chats too (default: METRIKA_TELEGRAM_CHAT; the bot token: METRIKA_TELEGRAM_TOKEN, the config or the keyring)"
        )
    }
}
