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
}

extension TelegramConfig: Decodable {
    /// The member at the top or in a profile (its decoder's coding path says which); a wrong one is
    /// refused naming it.
    package init(from decoder: any Decoder) throws {
        let place = ConfigMembers.place(of: decoder)
        let members = try ConfigMembers(decoder, place: place, allowed: Self.keys) {
            .badMember(
                path: $0, member: "telegram", place: place,
                expected: "an object such as {\"token\": \"123456789:AA…\", \"chat\": 123456789}")
        }
        self.init(token: try members.text("token"), keyring: try members.text("keyring"))
        if let account = keyring,
            account.isEmpty || account.hasPrefix("/") || account.contains(where: { $0.isWhitespace || $0.isNewline })
        {
            // A path is a Metrika token file's entry (`metrika login --store keyring`): never the bot's.
            throw members.bad(
                "keyring",
                "the name of the keyring entry holding the bot token, like \"telegram\" (no spaces, not a path)")
        }
        let refusal = members.bad("chat", "a chat id or a list of them, like 123456789 or [123456789, \"@channel\"]")
        if let chats = try members.oneOrMany(Chat.self, "chat", refusal: refusal) {
            guard !chats.isEmpty else { throw refusal }
            self.chats = chats.map(\.text).joined(separator: ",")
        }
    }

    /// A chat as the file gives it: an id (a whole number) or a name (`"@channel"`, not blank).
    private struct Chat: Decodable {
        var text: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self.text = text.trimmingCharacters(in: .whitespaces)
                guard !self.text.isEmpty else {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "a blank chat")
                }
                return
            }
            // A boolean is no chat id (JSONDecoder never reads one as a number).
            let number = try container.decode(Double.self)
            guard let id = Int64(exactly: number) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a whole number")
            }
            text = String(id)
        }
    }
}
