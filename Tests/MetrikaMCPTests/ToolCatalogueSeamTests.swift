import MetrikaMCP
import MetrikaRender
import Testing

@Suite struct ToolCatalogueSeamTests {
    @Test func aFailureIsAnErrorResultWithTheSentenceAsItsOnlyText() {
        let result = MCPToolResult.failure("Counter 5 is not readable with this token.")
        #expect(result.isError)
        #expect(result.content == [.text("Counter 5 is not readable with this token.")])
        #expect(result.structuredContent == nil)
    }
}
