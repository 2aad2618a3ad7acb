import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender

/// JSON output is data, but it is often read in a terminal: characters that act on a display are
/// escaped as `\uXXXX`, and a JSON parser still reads the same string back.
@Suite struct JSONEscapingTests {
    @Test func terminalActiveCharactersAreEscapedAndReadBack() throws {
        let hostile = "a\u{9B}31m\u{202E}b\u{2066}c\u{7F}d\u{2028}e\u{85}f\u{200F}g\u{061C}\u{1B}[2J\u{07}"
        let text = JSONValue.string(hostile).serialized()
        #expect(text == #""a\u009b31m\u202eb\u2066c\u007fd\u2028e\u0085f\u200fg\u061c\u001b[2J\u0007""#)
        #expect(
            !text.unicodeScalars.contains {
                $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
                    || (0x2066...0x2069).contains($0.value)
            })
        let back = try JSONDecoder().decode(String.self, from: Data(text.utf8))
        #expect(back == hostile)
    }

    @Test func ordinaryTextStaysRaw() {
        #expect(JSONValue.string("Ромашка «1» 日本 👨‍👩‍👧 é").serialized() == "\"Ромашка «1» 日本 👨‍👩‍👧 é\"")
    }
}
