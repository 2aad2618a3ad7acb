/// Where a Telegram message goes: a chat's number (a user's is positive, a group's negative, a
/// supergroup's starts with -100) or a public channel's `@username` (core.telegram.org/bots/api#sendmessage:
/// "Integer or String … or username of the target channel in the format @channelusername").
package struct TelegramChatID: Hashable, Sendable, CustomStringConvertible {
    /// The id as the Bot API takes it: digits with an optional `-`, or `@name`.
    package let value: String

    /// Reads `text` (spaces around it ignored); nil when it is neither a whole number nor `@name`
    /// (5–32 letters, digits or `_`, as Telegram's usernames are).
    package init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let number = Int64(trimmed), number != 0 {
            value = String(number)
        } else if trimmed.hasPrefix("@") {
            let name = trimmed.dropFirst()
            guard (5...32).contains(name.count),
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
            else { return nil }
            value = trimmed
        } else {
            return nil
        }
    }

    /// A chat by its number.
    package init(_ number: Int64) {
        value = String(number)
    }

    /// The number, for chats that have one (not `@channel`).
    package var number: Int64? { Int64(value) }

    package var description: String { value }

    /// Reads a comma-separated list (`--telegram 123,-1001234567890`); throws naming the first entry
    /// that is not a chat id. Duplicates are dropped, the order kept.
    package static func list(_ text: String, source: String) throws(TelegramError) -> [TelegramChatID] {
        var chats: [TelegramChatID] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let chat = TelegramChatID(String(piece)) else {
                throw TelegramError.notAChat(source: source, text: String(piece))
            }
            if !chats.contains(chat) { chats.append(chat) }
        }
        return chats
    }
}
