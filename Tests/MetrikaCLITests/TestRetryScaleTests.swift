import Foundation
import Testing
@testable import MetrikaCLI

/// `METRIKA_TEST_RETRY_SCALE` (docs/reliability.md): the end-to-end tests' way to shorten the built
/// binary's real waits. A number from 0 to 1; anything else leaves the waits whole. Not a user setting.
@Suite("Test retry scale")
struct TestRetryScaleTests {
    @Test(arguments: [("0.05", 0.05), ("0", 0.0), ("1", 1.0), ("0.5", 0.5)])
    func aNumberFromZeroToOneScalesTheWaits(_ text: String, _ scale: Double) {
        #expect(CLIContext.testRetryScale(["METRIKA_TEST_RETRY_SCALE": text]) == scale)
    }

    @Test(arguments: ["", "2", "-0.5", "nan", "inf", "fast", "0,5"])
    func anythingElseLeavesTheWaitsWhole(_ text: String) {
        #expect(CLIContext.testRetryScale(["METRIKA_TEST_RETRY_SCALE": text]) == 1)
    }

    @Test func unsetLeavesTheWaitsWholeAndNoUserIsToldOfIt() {
        #expect(CLIContext.testRetryScale([:]) == 1)
        #expect(!CLI.topLevelHelp.contains("METRIKA_TEST_RETRY_SCALE"))
        #expect(!ManPage.render().contains(ManPage.escape("METRIKA_TEST_RETRY_SCALE")))
        #expect(ReferenceTables.notSettings["METRIKA_TEST_RETRY_SCALE"] != nil)
    }
}
