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
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".swift")
        }
        #expect(files.count > 20)
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            #expect(
                text.firstMatch(of: /static let \w+(: [^=]+)? = Result \{ try FakeAPI/) == nil,
                "\(file) keeps a simulator in a static")
            #expect(
                text.firstMatch(of: /static let \w+: Result<FakeAPI/) == nil, "\(file) keeps a simulator in a static")
            if text.contains("FakeAPI.shared(") || text.contains("SuiteFixture(") {
                #expect(text.contains(".stops("), "\(file) shares a simulator but never stops it")
            }
        }
    }

    /// A simulator whose parent dies (a test run killed with SIGKILL runs no exit handler) exits by
    /// itself: `--parent-pid`, which the harness passes. Here the parent is a shell that starts both
    /// simulators, says their pids and ends; they must be gone within a few seconds.
    @Test func aSimulatorEndsWithTheProcessThatStartedIt() async throws {
        let script = #"""
            "$0" --port 0 --parent-pid $$ >/dev/null 2>&1 & echo $!
            "$0" --telegram --port 0 --parent-pid $$ >/dev/null 2>&1 & echo $!
            """#
        let shell = try runProcess(
            "/bin/sh", ["-c", script, Binaries.fakeAPI], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        let pids = shell.stdoutLines.compactMap { pid_t($0) }
        try #require(pids.count == 2, "\(shell.stdout) \(shell.stderr)")
        defer { for pid in pids { kill(pid, SIGKILL) } }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, pids.contains(where: { kill($0, 0) == 0 }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(pids.allSatisfy { kill($0, 0) != 0 }, "a simulator outlived its parent")
    }

    /// Both clocks of an end-to-end test agree unless the test pins its own: the simulator's `--now`
    /// and metrika's `METRIKA_NOW` are `TestClock.now` (a Wednesday), or the test's own instant.
    @Test func theHarnessPinsBothClocks() throws {
        let api = try FakeAPI()
        defer { api.stop() }
        #expect(api.now == TestClock.now)
        #expect(api.process.arguments?.contains("--parent-pid") == true)
        #expect(metrikaEnvironment(api: api, home: "/nonexistent")["METRIKA_NOW"] == TestClock.now)
        #expect(metrikaEnvironment(api: nil, home: "/nonexistent")["METRIKA_NOW"] == TestClock.now)
        let pinned = try FakeAPI(arguments: ["--now=2026-11-30T06:00:00Z"])
        defer { pinned.stop() }
        #expect(pinned.now == "2026-11-30T06:00:00Z")
        #expect(metrikaEnvironment(api: pinned, home: "/nonexistent")["METRIKA_NOW"] == pinned.now)
        #expect(TestClock.date == ISO8601DateFormatter().date(from: TestClock.now))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Moscow")!
        #expect(calendar.component(.weekday, from: TestClock.date) == 4, "TestClock is a Wednesday in Moscow")
    }
}
