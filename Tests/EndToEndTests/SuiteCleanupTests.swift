import Foundation
import MetrikaTestSupport
import Testing

/// Issue 36 item 7 / issue 40 item 17: every `swift test` left three `metrika-fake-api` running (the
/// suites' shared simulators were statics, never released). A shared simulator is a `SuiteFixture`,
/// stopped by its suite's `.stops(…)` trait when the suite ends; every simulator a harness starts is
/// registered, and one still registered at exit is sent SIGTERM.
@Suite("The suite cleans up", .blockingLanes)
struct SuiteCleanupTests {
    /// Every suite that shares a simulator declares `.stops(…)` for it (a static `Result { try FakeAPI() }`
    /// is never released: the leak this replaces).
    @Test func noSuiteKeepsASimulatorInAStatic() throws {
        let directory = Binaries.repositoryRoot.appendingPathComponent("Tests/EndToEndTests")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 20)
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            #expect(text.firstMatch(of: /static let \w+(: [^=]+)? = Result \{ try FakeAPI/) == nil, "\(file) keeps a simulator in a static")
            #expect(text.firstMatch(of: /static let \w+: Result<FakeAPI/) == nil, "\(file) keeps a simulator in a static")
            if text.contains("FakeAPI.shared(") || text.contains("SuiteFixture(") {
                #expect(text.contains(".stops("), "\(file) shares a simulator but never stops it")
            }
        }
    }
}
