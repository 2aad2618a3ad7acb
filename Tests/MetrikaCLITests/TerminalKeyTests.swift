import Testing

@testable import MetrikaCLI

/// The keys of `metrika live` out of a raw terminal's bytes, escape sequences included.
@Suite("TerminalKey")
struct TerminalKeyTests {
    @Test(arguments: [
        ([UInt8(ascii: "q")], [TerminalKey.character("q")]),
        ([0x03], [.interrupt]),
        ([0x09], [.tab]),
        ([0x1B, 0x5B, 0x43], [.right]),
        ([0x1B, 0x5B, 0x44], [.left]),
        ([0x1B, 0x4F, 0x43], [.right]), // application cursor mode: ESC O C
        ([0x1B, 0x5B, 0x5A], [.backTab]),
        ([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x42], [.up, .down]),
        ([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43], [.right]), // Ctrl-→ is →, its C and digits no keys
        ([0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E], []), // bracketed paste start: dropped whole
        ([0x1B], [.escape]),
        ([UInt8(ascii: "r"), UInt8(ascii: "?"), 0x0D], [.character("r"), .character("?"), .enter]),
        ([0xD0, 0xB9], []) // й on a Russian layout: no key of the view
    ])
    func keys(bytes: [UInt8], expected: [TerminalKey]) {
        #expect(TerminalKey.keys(in: bytes) == expected)
    }

    @Test func aFrameErasesEachLineAndBelow() {
        #expect(TerminalScreen.frame(["a", "b"]) == "\u{1B}[Ha\u{1B}[K\r\nb\u{1B}[K\u{1B}[J")
    }

    @Test func leavingUndoesEntering() {
        // The alternate screen entered is left, the cursor hidden is shown, attributes reset.
        #expect(
            TerminalScreen.enterSequence.contains("\u{1B}[?1049h")
                && TerminalScreen.leaveSequence.contains("\u{1B}[?1049l"))
        #expect(
            TerminalScreen.enterSequence.contains("\u{1B}[?25l") && TerminalScreen.leaveSequence.contains("\u{1B}[?25h")
        )
        #expect(TerminalScreen.leaveSequence.hasPrefix("\u{1B}[0m"))
    }
}
