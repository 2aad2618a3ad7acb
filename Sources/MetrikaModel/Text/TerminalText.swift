/// The one sanitizer for text on its way to a terminal. Every string a server supplied (an API error
/// message, an OAuth `error_description`, a device-flow address and code, a counter, site or
/// dimension name, a date the API sent) passes it before it reaches stderr, a table cell or a
/// progress line: `CLIContext.note` (every `Error:`, warning and note line) and `TextTable` call it.
///
/// What it does, and why:
/// - **Line breaks** (LF, CR, CRLF, NEL, U+2028, U+2029) become one `↵`: a message stays one line, a
///   table row one row, and the break is still visible.
/// - **A tab** becomes one space (it would misalign a table).
/// - **Every other control character** — C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F) —
///   is shown as `\x` and two lowercase hex digits: ESC is `\x1b`, so `ESC[2J` prints as `\x1b[2J`,
///   BEL as `\x07`, the 8-bit CSI as `\x9b`. Nothing the terminal would act on gets through (no clear
///   screen, no window title, no OSC 52 clipboard write, no bell), and a reader sees that something
///   was there.
/// - **Bidirectional controls** (U+202A–U+202E embeddings and overrides, U+2066–U+2069 isolates,
///   U+200E/U+200F marks, U+061C) are removed: they reorder what is shown, so `exe.txt` could read as
///   `txt.exe`. They carry no text of their own.
/// - **Length**: with a `limit`, at most that many characters are kept and `…` marks the cut
///   (`messageLimit`, 300, for server text quoted in a message; `lineLimit`, 1,000, for a whole
///   stderr line). A 100 KB line from a server costs one screen line, not a hundred.
///
/// The result is idempotent: sanitizing it again changes nothing (a backslash is not a control).
/// JSON and CSV are data, not terminal output: they have escapers of their own (`JSONValue`); CSV
/// written to a terminal passes this sanitizer too (`CSVWriter.terminal`).
package enum TerminalText {
    /// The most characters of server text quoted inside one message.
    package static let messageLimit = 300
    /// The most characters of one whole stderr line (our words plus the server's).
    package static let lineLimit = 1_000
    /// The mark of a cut.
    package static let ellipsis: Character = "…"
    /// What a line break becomes.
    package static let lineBreak: Unicode.Scalar = "↵"

    /// `text` made harmless for a terminal (see the type's description), cut to `limit` characters
    /// with `…` when a limit is given and exceeded.
    package static func sanitize(_ text: String, limit: Int? = nil) -> String {
        // Fast path: most text is plain and short.
        if !text.unicodeScalars.contains(where: needsRewriting) {
            // No more bytes than the limit: no more characters or scalars either, nothing to cut
            // (and no grapheme clusters to walk: a table sanitizes every one of its cells).
            guard let limit, text.utf8.count > limit else { return text }
            return cut(text, to: limit)
        }
        var result = String.UnicodeScalarView()
        var previousWasCarriageReturn = false
        // Enough scalars to know the result is over the limit; a 100 KB line is not rewritten in full.
        let scalarBudget = limit.map { $0 * 4 + 16 } ?? Int.max
        var produced = 0
        var stoppedEarly = false
        for scalar in text.unicodeScalars {
            if produced > scalarBudget {
                stoppedEarly = true
                break
            }
            let value = scalar.value
            defer { previousWasCarriageReturn = value == 0x0D }
            switch value {
            case 0x0A where previousWasCarriageReturn:
                continue // the LF of a CRLF: its CR already became ↵
            case 0x0A, 0x0D, 0x85, 0x2028, 0x2029:
                result.append(lineBreak)
                produced += 1
            case 0x09:
                result.append(" ")
                produced += 1
            case 0x00...0x1F, 0x7F...0x9F:
                let hex = String(value, radix: 16)
                result.append(contentsOf: ("\\x" + (hex.count < 2 ? "0" : "") + hex).unicodeScalars)
                produced += 4
            case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                continue
            default:
                result.append(scalar)
                produced += 1
            }
        }
        let clean = String(result)
        guard let limit else { return clean }
        let kept = cut(clean, to: limit)
        return stoppedEarly && kept.last != ellipsis ? kept + String(ellipsis) : kept
    }

    /// Server text quoted inside a message: sanitized, every secret in `hiding` masked, and at most
    /// `messageLimit` characters.
    package static func quote(_ text: String, hiding secrets: [String] = []) -> String {
        limited(text, to: messageLimit, hiding: secrets)
    }

    /// One whole stderr line: sanitized, every secret in `hiding` masked, at most `lineLimit` characters.
    package static func line(_ text: String, hiding secrets: [String] = []) -> String {
        limited(text, to: lineLimit, hiding: secrets)
    }

    /// `text` with every occurrence of each secret (4 characters or more; shorter ones would hide
    /// ordinary words) replaced by `[hidden]`: a server that echoes a token back must not make
    /// metrika print it.
    package static func masking(_ secrets: [String], in text: String) -> String {
        var result = text
        for secret in secrets where secret.count >= 4 && result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: hiddenMark)
        }
        return result
    }

    /// Masks before cutting, so a cut can never leave half a token; masks after sanitizing too, so
    /// controls slipped into a token cannot smuggle it past the mask.
    private static func limited(_ text: String, to limit: Int, hiding secrets: [String]) -> String {
        let usable = secrets.filter { $0.count >= 4 }
        guard !usable.isEmpty else { return sanitize(text, limit: limit) }
        let clean = masking(usable, in: sanitize(masking(usable, in: text)))
        return cut(clean, to: limit)
    }

    /// What a masked secret becomes.
    package static let hiddenMark = "[hidden]"

    /// At most `limit` characters, and at most 4 × `limit` scalars: one "character" of a thousand
    /// combining marks must not slip a long line through.
    private static func cut(_ text: String, to limit: Int) -> String {
        var count = 0
        var scalars = 0
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            scalars += text.unicodeScalars[index..<next].count
            if count == limit || scalars > limit * 4 { return String(text[..<index]) + String(ellipsis) }
            count += 1
            index = next
        }
        return text
    }

    private static func needsRewriting(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
            return true
        default:
            return false
        }
    }
}
