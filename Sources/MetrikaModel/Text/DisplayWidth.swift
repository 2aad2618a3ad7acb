// How many terminal columns text occupies. Swift's `Character` already groups text into extended
// grapheme clusters (UAX #29, including emoji ZWJ sequences), so the work here is deciding the width of
// one cluster. The rules follow what common terminals do (wcwidth-style), with emoji sequences treated
// as the single 2-column glyph that modern terminals draw.

/// The number of terminal columns `text` occupies when printed in a monospaced terminal.
///
/// - Wide and fullwidth East Asian characters (CJK ideographs, kana, Hangul syllables, fullwidth forms)
///   take 2 columns.
/// - Emoji with emoji presentation, and any emoji cluster made emoji by U+FE0F, a skin-tone modifier or a
///   zero-width joiner (👍🏽, 👨‍👩‍👧, ❤️), count as one 2-column glyph.
/// - Combining marks, format characters (zero-width joiner, zero-width space, bidi marks), variation
///   selectors and control characters take 0 columns.
/// - Everything else, including characters of ambiguous East Asian width (`…`, `·`, `─`), takes 1.
///
/// A cluster that is not an emoji sequence is as wide as the sum of its scalars, which is what
/// wcwidth-based terminals draw (e + U+0301 is 1 column, a Hangul L+V+T jamo sequence is 2).
package func displayWidth(of text: String) -> Int {
    var total = 0
    for character in text {
        total += displayWidth(of: character)
    }
    return total
}

/// The number of terminal columns one grapheme cluster occupies; see `displayWidth(of:)` for the rules.
package func displayWidth(of character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    if DisplayWidthTable.isEmojiGlyph(first: first, scalars: scalars) {
        return 2
    }
    var total = 0
    for scalar in scalars {
        total += DisplayWidthTable.width(of: scalar)
    }
    return total
}

/// The per-scalar width data behind `displayWidth(of:)`; kept in a namespace so the tables are built once.
enum DisplayWidthTable {
    /// U+FE0F VARIATION SELECTOR-16 asks for the emoji (2-column) presentation of its base.
    static let emojiPresentationSelector: UInt32 = 0xFE0F
    static let zeroWidthJoiner: UInt32 = 0x200D

    /// Whether the cluster is drawn as one emoji glyph. A base that is emoji only in text presentation
    /// by default (©, ❤, digits) becomes a 2-column glyph when VS16, a skin-tone modifier or a ZWJ
    /// follows it; one with default emoji presentation (👍, 🇷) is always 2.
    static func isEmojiGlyph(first: Unicode.Scalar, scalars: Character.UnicodeScalarView) -> Bool {
        let properties = first.properties
        if properties.isEmojiPresentation { return true }
        guard properties.isEmoji else { return false }
        return scalars.dropFirst().contains { scalar in
            scalar.value == emojiPresentationSelector
                || scalar.value == zeroWidthJoiner
                || scalar.properties.isEmojiModifier
        }
    }

    /// The width of one scalar outside an emoji sequence.
    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        // ASCII fast path: the common case in reports.
        if value >= 0x20 && value < 0x7F { return 1 }
        if value < 0x20 || (value >= 0x7F && value < 0xA0) { return 0 }
        if isZeroWidth(scalar) { return 0 }
        if scalar.properties.isEmojiPresentation || isWide(value) { return 2 }
        return 1
    }

    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        // Hangul medial vowels and final consonants join the preceding initial into one syllable block.
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return true
        default:
            return false
        }
    }

    /// Code points of East Asian Width W or F (from Unicode's EastAsianWidth.txt, condensed into blocks;
    /// emoji are handled by the Emoji_Presentation property instead). Sorted for binary search.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, // Hangul Jamo initial consonants
        0x2329...0x232A, // angle brackets
        0x2E80...0x303E, // CJK radicals, Kangxi radicals, CJK symbols and punctuation
        0x3041...0x3247, // Hiragana, Katakana, Bopomofo, Hangul compatibility jamo, enclosed CJK
        0x3250...0x4DBF, // enclosed CJK, CJK compatibility, CJK extension A
        0x4E00...0xA4CF, // CJK unified ideographs, Yi
        0xA960...0xA97F, // Hangul Jamo extended A
        0xAC00...0xD7A3, // Hangul syllables
        0xF900...0xFAFF, // CJK compatibility ideographs
        0xFE10...0xFE19, // vertical forms
        0xFE30...0xFE6F, // CJK compatibility forms, small form variants
        0xFF00...0xFF60, // fullwidth ASCII variants
        0xFFE0...0xFFE6, // fullwidth signs
        0x16FE0...0x16FE4, // ideographic symbols
        0x16FF0...0x16FF1,
        0x17000...0x18CFF, // Tangut, Khitan
        0x18D00...0x18D08,
        0x1AFF0...0x1B2FF, // Kana extended and supplement, Nushu
        0x1F200...0x1F265, // enclosed ideographic supplement
        0x20000...0x2FFFD, // CJK extensions B–F, compatibility supplement
        0x30000...0x3FFFD // CJK extensions G–H
    ]

    static func isWide(_ value: UInt32) -> Bool {
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}
