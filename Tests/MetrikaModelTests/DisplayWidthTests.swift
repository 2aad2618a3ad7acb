import Testing

@testable import MetrikaModel

@Suite("Display width")
struct DisplayWidthTests {
    // Expected widths are counted by hand from the rules: ASCII and Cyrillic 1, CJK/Hangul/fullwidth 2,
    // emoji glyphs (with modifiers, VS16 or ZWJ sequences) 2, combining and format characters 0.
    @Test(arguments: [
        ("", 0),
        ("visits", 6),
        ("Интернет-магазин", 16),
        ("日本語", 6),
        ("한국어", 6),
        ("ＡＢ", 4),
        ("👍", 2),
        ("👍🏽", 2),
        ("👨‍👩‍👧", 2),
        ("👨‍👩‍👧 семья", 8),
        ("🇷🇺", 2),
        ("❤", 1),
        ("❤️", 2),
        ("1️⃣", 2),
        ("e\u{301}", 1),
        ("cafe\u{301}", 4),
        ("café", 4),
        ("a\u{200B}b", 2),
        ("a\u{200D}b", 2),
        ("x\u{FE0F}", 1),
        ("\u{1100}\u{1161}\u{11A8}", 2),
        ("Яндекс 日本 👍", 14),
        ("…", 1),
        ("a\u{1b}b", 2)
    ])
    func width(of text: String, expected: Int) {
        #expect(displayWidth(of: text) == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func zwjFamilyIsOneCharacterOfWidthTwo() {
        let family: String = "👨‍👩‍👧"
        #expect(family.count == 1)
        #expect(family.unicodeScalars.count == 5)
        #expect(displayWidth(of: family) == 2)
        // Three families side by side are three glyphs, not fifteen scalars' worth.
        #expect(displayWidth(of: family + family + family) == 6)
    }

    @Test func characterWidthsAddUpToTheStringWidth() {
        let text = "Интернет 日本語 👍🏽 e\u{301}"
        let summed = text.reduce(0) { $0 + displayWidth(of: $1) }
        #expect(summed == displayWidth(of: text))
        #expect(summed == 8 + 1 + 6 + 1 + 2 + 1 + 1)
    }
}
