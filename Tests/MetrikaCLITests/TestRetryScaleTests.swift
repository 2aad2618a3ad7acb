import Foundation
import Testing

@testable import MetrikaCLI

/// `METRIKA_TEST_RETRY_SCALE` (docs/reliability.md): the end-to-end tests' way to shorten the built
/// binary's real waits. A number from 0 to 1; anything else leaves the waits whole. Not a user setting.
@Suite("Test retry scale")
struct TestRetryScaleTests {
    @Test(arguments: [("0.05", 0.05), ("0", 0.0), ("1", 1.0), ("0.5", 0.5)])
    func aNumberFromZeroToOneScalesTheWaits(_ text: String, _ scale: Double) {
        #expect(
            CLIContext.testRetryScale(["METRIKA_TEST_RETRY_SCALE": text, "METRIKA_API_URL": "http://127.0.0.1:8080"])
                == scale)
    }

    /// The waits protect Yandex's servers: against any API or OAuth host but this machine's loopback
    /// (or with no METRIKA_API_URL, the real API), the scale is ignored.
    @Test(arguments: [
        [:],
        ["METRIKA_API_URL": "https://api-metrika.yandex.net"],
        ["METRIKA_API_URL": "http://127.0.0.1.example.com:8080"],
        ["METRIKA_API_URL": "http://127.0.0.1:8080", "METRIKA_OAUTH_URL": "https://oauth.yandex.ru"]
    ])
    func onlyAgainstLoopbackDoesItCount(_ hosts: [String: String]) {
        #expect(CLIContext.testRetryScale(hosts.merging(["METRIKA_TEST_RETRY_SCALE": "0"]) { $1 }) == 1)
        #expect(
            CLIContext.testRetryScale([
                "METRIKA_TEST_RETRY_SCALE": "0", "METRIKA_API_URL": "http://[::1]:9",
                "METRIKA_OAUTH_URL": "http://localhost:9"
            ]) == 0)
    }

    @Test(arguments: ["", "2", "-0.5", "nan", "inf", "fast", "0,5"])
    func anythingElseLeavesTheWaitsWhole(_ text: String) {
        #expect(
            CLIContext.testRetryScale(["METRIKA_TEST_RETRY_SCALE": text, "METRIKA_API_URL": "http://127.0.0.1:8080"])
                == 1)
    }

    @Test func unsetLeavesTheWaitsWholeAndNoUserIsToldOfIt() {
        #expect(CLIContext.testRetryScale([:]) == 1)
        #expect(!CLI.topLevelHelp.contains("METRIKA_TEST_RETRY_SCALE"))
        #expect(!ManPage.render().contains(ManPage.escape("METRIKA_TEST_RETRY_SCALE")))
        #expect(ReferenceTables.notSettings["METRIKA_TEST_RETRY_SCALE"] != nil)
    }
}
