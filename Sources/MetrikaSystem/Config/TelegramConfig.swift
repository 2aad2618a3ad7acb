import Foundation

/// The config file's `"telegram"` member (at the top or in a profile): the bot token and the chats
/// alerts and digests go to when `--telegram` and METRIKA_TELEGRAM_CHAT do not say, e.g.
///
///     "telegram": {"token": "123456789:AA…", "chat": [123456789, -1001234567890]}
///
/// or, the token kept in the system keyring instead of the file, `"keyring": "telegram"`: the entry's
/// account (the entry `service metrika account telegram`, stored by `secret-tool store`, docs/telegram.md).
/// A file that holds a token must be private (0600), as one with `client_secret`. The chat ids are
/// checked where they are used (`TelegramChatID`), so this keeps them as `123,-100…` text.
package struct TelegramConfig: Sendable, Equatable {
    /// The bot token from @BotFather: a secret.
    package var token: String?
    /// The chats, comma-joined as `--telegram` takes them.
    package var chats: String?
    /// The account of the keyring entry holding the token (`service metrika account <keyring>`);
    /// read when neither METRIKA_TELEGRAM_TOKEN nor `token` gives one.
    package var keyring: String?

    package init(token: String? = nil, chats: String? = nil, keyring: String? = nil) {
        self.token = token
        self.chats = chats
        self.keyring = keyring
    }

    static let keys = ["token", "chat", "keyring"]

    /// Reads the member at `place` (nil when absent); a wrong one is refused naming it.
    static func parse(_ value: Any?, place: ConfigError.Place, member: ConfigFile.Members) throws -> TelegramConfig? {
        guard let value else { return nil }
        guard let object = value as? [String: Any] else {
            throw member.bad("telegram", place, "an object such as {\"token\": \"123456789:AA…\", \"chat\": 123456789}")
        }
        try member.checkKeys(object, allowed: keys, place: place)
        var config = TelegramConfig()
        config.token = try member.text(object["token"], "token", place)
        config.keyring = try member.text(object["keyring"], "keyring", place)
        if let account = config.keyring, account.isEmpty || account.hasPrefix("/") || account.contains(where: { $0.isWhitespace || $0.isNewline }) {
            // A path is a Metrika token file's entry (`metrika login --store keyring`): never the bot's.
            throw member.bad("keyring", place, "the name of the keyring entry holding the bot token, like \"telegram\" (no spaces, not a path)")
        }
        if let chat = object["chat"] {
            let refusal = member.bad("chat", place, "a chat id or a list of them, like 123456789 or [123456789, \"@channel\"]")
            let items = (chat as? [Any]) ?? [chat]
            guard !items.isEmpty else { throw refusal }
            var texts: [String] = []
            for item in items {
                if item is Bool { throw refusal }
                if let text = item as? String, !text.trimmingCharacters(in: .whitespaces).isEmpty {
                    texts.append(text.trimmingCharacters(in: .whitespaces))
                } else if let number = item as? NSNumber, let id = Int64(exactly: number.doubleValue) {
                    texts.append(String(id))
                } else {
                    throw refusal
                }
            }
            config.chats = texts.joined(separator: ",")
        }
        return config
    }
}
