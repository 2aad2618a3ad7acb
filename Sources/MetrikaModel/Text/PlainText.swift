/// Text a table can measure without grapheme clusters: printable ASCII, Latin-1 letters and signs
/// (U+00A0…U+02FF but the soft hyphen U+00AD), Greek and Cyrillic (U+0370…U+052F but the Cyrillic
/// combining marks U+0483…U+0489). Every such scalar is a grapheme cluster of its own (none
/// extends, joins, prepends or controls) and is one terminal column wide (`displayWidth`). So the
/// width of plain text is its scalar count — the common case of a report (search phrases, page
/// titles, source names), measured here by one pass over the UTF-8 bytes instead of by Unicode
/// property look-ups per character. (It decides widths only: every cell still passes `TerminalText`.)
package enum PlainText {
    /// The display width of `text` when it is plain, else nil.
    package static func width(of text: String) -> Int? {
        var width = 0
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte >= 0x20 && byte < 0x7F {
                width += 1
                continue
            }
            // Two-byte sequences only (U+0080…U+07FF); the string is valid UTF-8.
            guard byte >= 0xC2, byte <= 0xDF, let next = iterator.next() else { return nil }
            let scalar = UInt32(byte & 0x1F) << 6 | UInt32(next & 0x3F)
            switch scalar {
            case 0x00A0...0x00AC, 0x00AE...0x02FF, 0x0370...0x0482, 0x048A...0x052F: width += 1
            default: return nil
            }
        }
        return width
    }
}
