import Foundation
import MetrikaTestSupport
import Testing

@Suite("Test tools")
struct ToolCheckTests {
    /// The lookup follows the search path it is given, so a missing tool is really seen as missing.
    @Test func locateFollowsTheSearchPath() {
        #expect(ToolCheck.locate("sh", searchPath: "/bin:/usr/bin") != nil)
        #expect(ToolCheck.locate("sh", searchPath: "/nonexistent-\(UUID().uuidString)") == nil)
        #expect(ToolCheck.locate("sh", searchPath: nil) == nil)
    }
}
