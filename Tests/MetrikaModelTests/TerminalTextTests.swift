import Testing

@testable import MetrikaModel

/// The one sanitizer of terminal text against what a hostile server sends.
@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("clear\u{1B}[2Jscreen", "clear\\x1b[2Jscreen"),
        ("\u{1B}]52;c;aGVsbG8=\u{07}copied", "\\x1b]52;c;aGVsbG8=\\x07copied"),
        ("\u{1B}]0;title\u{1B}\\", "\\x1b]0;title\\x1b\\"),
        ("bell\u{07}", "bell\\x07"),
        ("nul\u{0}", "nul\\x00"),
        ("del\u{7F}", "del\\x7f"),
        ("csi\u{9B}31m", "csi\\x9b31m"),
        ("osc\u{9D}8;;x\u{9C}", "osc\\x9d8;;x\\x9c"),
        ("\u{202E}gnp.exe", "gnp.exe"),
        ("a\u{2066}b\u{2067}c\u{2068}d\u{2069}e", "abcde"),
        ("\u{202A}\u{202B}\u{202C}\u{202D}x\u{200E}\u{200F}\u{061C}", "x"),
        ("one\ntwo", "one↵two"),
        ("one\r\ntwo", "one↵two"),
        ("nel\u{85}x\u{2028}y\u{2029}z", "nel↵x↵y↵z"),
        ("tab\there", "tab here"),
        ("Интернет 日本 👨‍👩‍👧 «ok»", "Интернет 日本 👨‍👩‍👧 «ok»"),
        ("back\\slash", "back\\slash")
    ])
    func hostileTextIsMadeVisibleOrRemoved(_ text: String, expected: String) {
        let clean = TerminalText.sanitize(text)
        #expect(clean == expected)
        #expect(!clean.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        // Idempotent: a second pass changes nothing.
        #expect(TerminalText.sanitize(clean) == clean)
    }

    @Test func aHundredKilobyteLineIsCutToTheLimit() {
        let huge = String(repeating: "x", count: 100_000)
        let quoted = TerminalText.quote(huge)
        #expect(quoted == String(repeating: "x", count: TerminalText.messageLimit) + "…")
        #expect(TerminalText.line(huge).count == TerminalText.lineLimit + 1)
        // Escapes in a huge line are cut the same way and never split mid-escape into a control.
        let hostile = String(repeating: "\u{1B}[2J", count: 30_000)
        let cut = TerminalText.quote(hostile)
        #expect(cut.count == TerminalText.messageLimit + 1 && cut.hasSuffix("…"))
        #expect(!cut.unicodeScalars.contains { $0.value == 0x1B })
    }

    @Test func oneCharacterOfEndlessCombiningMarksIsCutToo() {
        let zalgo = "a" + String(repeating: "\u{0301}", count: 50_000)
        let cut = TerminalText.quote(zalgo)
        #expect(cut.unicodeScalars.count <= TerminalText.messageLimit * 4 + 1)
        #expect(cut.hasSuffix("…"))
    }

    @Test func shortTextIsKeptExactly() {
        #expect(TerminalText.quote("Wrong parameter: 'metrics'") == "Wrong parameter: 'metrics'")
        #expect(TerminalText.quote(String(repeating: "я", count: 300)) == String(repeating: "я", count: 300))
    }

    @Test func secretsAreMaskedWhereverTheyAppear() {
        let token = "y0_AgAAAAB4secretTOKENvalue"
        #expect(TerminalText.masking([token], in: "Invalid oauth_token \(token)") == "Invalid oauth_token [hidden]")
        #expect(TerminalText.masking([token, "sec"], in: "sec \(token)\(token)") == "sec [hidden][hidden]")
    }
}
