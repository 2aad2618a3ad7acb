import MetrikaModel
import Testing

@testable import MetrikaMCP

/// A failed tool call says what `CLI.run` would say after `Error:` (in the tools' words where that
/// speaks to a shell), and never dumps a Swift value.
@Suite struct ToolSentenceTests {
    struct Stopped: Error { var reason = "the token demo-token leaked into a description" }

    @Test func anErrorNoLayerTypedIsTheGenericSentenceNotItsDescription() {
        let sentence = MetrikaToolCatalogue.sentence(Stopped())
        #expect(sentence == MCPFailureWords.unexpected)
        #expect(!sentence.contains("Stopped"))
        #expect(!sentence.contains("demo-token"))
    }

    @Test func aFailureIsItsOwnMessage() {
        let failure = UsageError("--from 2026-13-01 is not a date")
        #expect(MetrikaToolCatalogue.sentence(failure) == failure.message)
    }
}
