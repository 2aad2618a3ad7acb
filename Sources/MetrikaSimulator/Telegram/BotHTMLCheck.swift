import Foundation

/// Telegram's HTML parse mode as the Bot API reads it (core.telegram.org/bots/api#html-style, checked
/// 2026-12-02): only the tags it lists, every one closed in order, `<`, `>` and `&` outside tags written
/// as entities (`&lt;`, `&gt;`, `&amp;`, `&quot;` and numeric ones). Anything else fails the whole
/// message with `Bad Request: can't parse entities: …`. Written here from the documentation, shared
/// with nothing of the client's.
enum BotHTMLCheck {
    /// The tags the Bot API accepts (and their synonyms).
    static let allowedTags: Set<String> = [
        "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre",
        "tg-spoiler", "span", "blockquote", "tg-emoji"
    ]

    /// The visible text of `html` (tags dropped, entities decoded), or why it cannot be parsed, worded
    /// as the Bot API words it after `can't parse entities: `.
    static func visibleText(_ html: String) -> Result<String, BotRefusal> {
        let scalars = Array(html.unicodeScalars)
        var visible = String.UnicodeScalarView()
        var open: [String] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "<":
                guard let end = scalars[index...].firstIndex(of: ">") else {
                    return .failure(BotRefusal("unclosed start tag at byte offset \(offset(of: index, in: scalars))"))
                }
                let inside = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
                if inside.hasPrefix("/") {
                    let name = inside.dropFirst().trimmingCharacters(in: .whitespaces).lowercased()
                    guard let last = open.last, last == name else {
                        return .failure(
                            BotRefusal("can't find end tag corresponding to start tag \"\(open.last ?? name)\""))
                    }
                    open.removeLast()
                } else {
                    let name = String(inside.prefix { !$0.isWhitespace }).lowercased()
                    guard allowedTags.contains(name) else {
                        return .failure(
                            BotRefusal(
                                "unsupported start tag \"\(name)\" at byte offset \(offset(of: index, in: scalars))"))
                    }
                    if name == "span", !inside.contains("tg-spoiler") {
                        return .failure(
                            BotRefusal(
                                "tag \"span\" must have class \"tg-spoiler\" at byte offset \(offset(of: index, in: scalars))"
                            ))
                    }
                    open.append(name)
                }
                index = end + 1
            case ">":
                return .failure(BotRefusal("character '>' is reserved and must be escaped with \"&gt;\""))
            case "&":
                guard let end = scalars[index...].prefix(12).firstIndex(of: ";") else {
                    return .failure(BotRefusal("character '&' is reserved and must be escaped with \"&amp;\""))
                }
                let name = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
                guard let decoded = decodeEntity(name) else {
                    return .failure(BotRefusal("unsupported HTML entity \"&\(name);\""))
                }
                visible.append(decoded)
                index = end + 1
            default:
                visible.append(scalar)
                index += 1
            }
        }
        if let unclosed = open.last {
            return .failure(BotRefusal("can't find end tag corresponding to start tag \"\(unclosed)\""))
        }
        return .success(String(visible))
    }

    /// The length the Bot API's limits count: UTF-16 code units of the visible text.
    static func length(_ text: String) -> Int { text.utf16.count }

    private static func decodeEntity(_ name: String) -> Unicode.Scalar? {
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            return value.flatMap(Unicode.Scalar.init)
        }
    }

    private static func offset(of index: Int, in scalars: [Unicode.Scalar]) -> Int {
        scalars[..<index].reduce(0) { $0 + String($1).utf8.count }
    }
}

/// Why the simulator refuses a request: the text after `Bad Request: `.
struct BotRefusal: Error {
    var reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}
