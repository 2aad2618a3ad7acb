/// Text for Telegram's HTML parse mode (core.telegram.org/bots/api#html-style, checked 2026-12-02):
/// every `<`, `>` and `&` that is not markup must be written `&lt;`, `&gt;`, `&amp;`, or the whole message
/// fails with `400 Bad Request: can't parse entities`. A message holds 1–4096 characters and a photo's
/// caption 0–1024 "after entities parsing" (core.telegram.org/bots/api/methods/sendmessage.md, sendphoto.md).
package enum TelegramHTML {
    /// The most characters of one message.
    package static let messageLimit = 4096
    /// The most characters of one photo's or document's caption.
    package static let captionLimit = 1024

    /// `text` (a counter's name, a goal's, any text from Metrika or a user) made safe to put between
    /// tags: `&`, `<` and `>` become entities. The one escaper of text bound for Telegram.
    package static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }

    /// The length Telegram's limits count, on the safe side: UTF-16 code units (what its entity offsets
    /// count) of the whole markup, tags and entities included, which is never less than the text shown.
    package static func length(_ html: String) -> Int { html.utf16.count }

    /// `html` in messages of at most `limit` characters each, split between lines: a line is cut only
    /// when it alone is longer than a message (then at a space where there is one, never inside a tag or
    /// an entity). A tag still open at a cut (`<pre>` around a table) is closed at the end of the one
    /// message and opened again at the start of the next, so every message is valid on its own.
    /// Blank messages are dropped: Telegram refuses an empty text.
    package static func split(_ html: String, limit: Int = messageLimit) -> [String] {
        precondition(limit >= 64, "a Telegram message limit below 64 characters leaves no room for the tags")
        var messages: [String] = []
        var current = "" // the message being built, starting with the tags opened again
        var base = 0 // the length of those tags
        var open: [OpenTag] = [] // tags open at the end of `current`

        func flush() {
            var body = current
            if body.hasSuffix("\n") { body.removeLast() }
            if length(body) > base, hasVisibleText(body) { messages.append(body + closers(open)) }
            current = openers(open)
            base = length(current)
        }
        func fits(_ text: String, _ tags: [OpenTag]) -> Bool {
            length(current) + length(text) + length(closers(tags)) <= limit
        }

        let lines = html.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            let piece = index == lines.count - 1 ? String(line) : line + "\n"
            let after = track(open, through: piece)
            if fits(piece, after) {
                current += piece
                open = after
                continue
            }
            if length(current) > base { flush() }
            if fits(piece, after) {
                current += piece
                open = after
                continue
            }
            // One line longer than a message: cut it between atoms (a tag, an entity, a character).
            for atom in atoms(piece) {
                let next = track(open, through: atom)
                if !fits(atom, next) {
                    // Back up to the message's last space when the words after it carry no markup.
                    if let space = current.lastIndex(of: " "),
                        current.utf16.distance(from: current.startIndex, to: space) > base,
                        !current[space...].contains("<"), !current[space...].contains("&")
                    {
                        // The space itself ends the message (Telegram trims it anyway).
                        let carried = String(current[current.index(after: space)...])
                        current = String(current[..<space])
                        flush()
                        current += carried
                    } else {
                        flush()
                    }
                }
                current += atom
                open = next
            }
        }
        flush()
        return messages
    }

    private static func closers(_ tags: [OpenTag]) -> String { tags.reversed().map { "</\($0.name)>" }.joined() }

    /// Whether `html` shows anything but white space once its tags are dropped.
    private static func hasVisibleText(_ html: String) -> Bool {
        var inTag = false
        for character in html {
            if character == "<" {
                inTag = true
            } else if character == ">" {
                inTag = false
            } else if !inTag, !character.isWhitespace {
                return true
            }
        }
        return false
    }

    private struct OpenTag: Equatable {
        var name: String
        var text: String
    }

    private static func openers(_ tags: [OpenTag]) -> String { tags.map(\.text).joined() }

    /// The tags open after `text`, given those open before it (well-formed markup assumed: the caller
    /// writes the tags; the text between them is escaped).
    private static func track(_ before: [OpenTag], through text: String) -> [OpenTag] {
        guard text.contains("<") else { return before }
        var open = before
        var rest = Substring(text)
        while let start = rest.firstIndex(of: "<") {
            guard let end = rest[start...].firstIndex(of: ">") else { break }
            let inside = rest[rest.index(after: start)..<end]
            if inside.hasPrefix("/") {
                let name = inside.dropFirst().lowercased()
                if let last = open.lastIndex(where: { $0.name == name }) { open.remove(at: last) }
            } else {
                let name = String(inside.prefix { !$0.isWhitespace }).lowercased()
                open.append(OpenTag(name: name, text: String(rest[start...end])))
            }
            rest = rest[rest.index(after: end)...]
        }
        return open
    }

    /// `text` as atoms that must not be cut: whole tags, whole entities, single characters.
    private static func atoms(_ text: String) -> [String] {
        var result: [String] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            var end = text.index(after: index)
            if character == "<", let close = text[index...].firstIndex(of: ">") {
                end = text.index(after: close)
            } else if character == "&", let semicolon = text[index...].prefix(12).firstIndex(of: ";") {
                end = text.index(after: semicolon)
            }
            result.append(String(text[index..<end]))
            index = end
        }
        return result
    }
}
