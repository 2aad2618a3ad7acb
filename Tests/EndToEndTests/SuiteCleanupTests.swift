import Foundation
import MetrikaTestSupport
import Testing

/// Issue 36 item 7 / issue 40 item 17: every `swift test` left three `metrika-fake-api` running (the
/// suites' shared simulators were statics, never released). A shared simulator is a `SuiteFixture`,
/// stopped by its suite's `.stops(…)` trait when the suite ends; every simulator a harness starts is
/// registered, and one still registered at exit is sent SIGTERM.
@Suite("The suite cleans up", .blockingLanes)
struct SuiteCleanupTests {
    @Test func theStopsTraitStopsASharedSimulatorAtTheSuitesEnd() async throws {
        let fixture = FakeAPI.shared()
        let box = PIDBox()
        let test = try #require(Test.current)
        try await StopsFixtures.stops(fixture).provideScope(for: test, testCase: nil) {
            let api = try fixture.get()
            #expect(api.process.isRunning)
            #expect(ChildProcesses.registered.contains(api.process.processIdentifier))
            #expect(try fixture.get() === api, "one simulator for the whole suite")
            box.set(api.process.processIdentifier)
        }
        let pid = try #require(box.pid)
        #expect(!fixture.isStarted)
        #expect(kill(pid, 0) != 0, "the simulator \(pid) still runs after its suite ended")
        #expect(!ChildProcesses.registered.contains(pid))
        // Used again (another suite), it starts afresh.
        let again = try fixture.get()
        #expect(again.process.isRunning && again.process.processIdentifier != pid)
        fixture.stopFixture()
        #expect(!again.process.isRunning)
    }

    @Test func aFailingSuiteStopsItToo() async throws {
        let fixture = FakeAPI.shared()
        let box = PIDBox()
        let test = try #require(Test.current)
        await #expect(throws: SimpleError.self) {
            try await StopsFixtures.stops(fixture).provideScope(for: test, testCase: nil) {
                box.set(try fixture.get().process.processIdentifier)
                throw SimpleError("a test of the suite threw")
            }
        }
        let pid = try #require(box.pid)
        #expect(kill(pid, 0) != 0, "the simulator \(pid) outlived a failing suite")
    }

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

final class PIDBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: pid_t?
    var pid: pid_t? { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ pid: pid_t) { lock.lock(); value = pid; lock.unlock() }
}
