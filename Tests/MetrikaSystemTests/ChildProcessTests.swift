import Foundation
import MetrikaTestSupport
import Synchronization
import Testing

@testable import MetrikaSystem

/// `ChildProcess`, the one runner of the programs metrika hands bytes to (rsvg-convert, sendmail):
/// input arrives, a hanging child is killed at its time limit, a flood is cut without hanging, and
/// what it says becomes one clean line.
@Suite struct ChildProcessTests {
    static func shell(_ script: String, timeout: Double = 10, maximumOutput: Int = 1 << 20, stops: Bool = false)
        -> ChildProcess
    {
        ChildProcess(
            program: "/bin/sh", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin"],
            timeout: timeout, maximumOutput: maximumOutput, stopsOnOutputOverflow: stops)
    }

    @Test func theInputReachesTheChildAndItsAnswerComesBack() async throws {
        let result = try await Self.shell("tr a-z A-Z").run(input: Data("mail body\n".utf8))
        #expect(result.succeeded && !result.timedOut)
        #expect(String(decoding: result.output, as: UTF8.self) == "MAIL BODY\n")
    }

    /// A sendmail that never returns (a stuck SMTP server) must not hold a cron job forever.
    @Test func aHangingChildIsKilledAtItsTimeLimit() async throws {
        // Killed at the limit by the child's own watchdog thread, and awaited on a queue of the test's own
        // (`offThePool`): a loaded suite holding the cooperative pool cannot stretch the time.
        let (result, seconds) = try await offThePool {
            try await Self.shell("cat >/dev/null; exec sleep 120", timeout: 0.5).run(input: Data("x".utf8))
        }
        #expect(result.timedOut && !result.exited && result.status == SIGKILL)
        #expect(seconds < 5, "took \(seconds) s")
    }

    /// More output than the limit is read and dropped (the child is not blocked on a full pipe) unless
    /// the output is the product, when the child is stopped.
    @Test(arguments: [false, true])
    func aFloodIsCut(stops: Bool) async throws {
        let result = try await Self.shell("head -c 3000000 /dev/zero", maximumOutput: 1000, stops: stops).run(
            input: Data())
        #expect(result.output.count == 1000 && result.outputOverflowed)
        #expect(result.succeeded != stops)
    }

    /// The one environment rule: whatever a caller passes, no `METRIKA_` variable (the token, the
    /// OAuth app's secret, the ClickHouse password, a webhook URL) reaches the child; the rest does.
    @Test func noMetrikaVariableReachesAChild() async throws {
        let given = [
            "PATH": "/usr/bin:/bin", "HOME": "/home/someone", "LANG": "C.UTF-8",
            "METRIKA_TOKEN": "y0_token-value", "METRIKA_CLIENT_SECRET": "app-secret",
            "METRIKA_CLICKHOUSE_PASSWORD": "ch-password", "METRIKA_WEBHOOK_URL": "https://hooks.example/T0/secret",
            "METRIKA_API_URL": "http://127.0.0.1:1"
        ]
        let child = ChildProcess(program: "/usr/bin/env", arguments: [], environment: given, timeout: 10)
        #expect(child.environment.keys.sorted() == ["HOME", "LANG", "PATH"])
        let seen = String(decoding: try await child.run(input: Data()).output, as: UTF8.self)
        let names = Set(
            seen.split(separator: "\n").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        #expect(names.isSuperset(of: ["HOME", "LANG", "PATH"]), "\(seen)")
        #expect(!names.contains { $0.hasPrefix("METRIKA_") }, "\(seen)")
        for secret in ["y0_token-value", "app-secret", "ch-password", "hooks.example"] {
            #expect(!seen.contains(secret), "\(secret) reached the child")
        }
    }

    @Test func aProgramThatCannotStartIsALaunchFailure() async {
        let child = ChildProcess(program: "/nonexistent/sendmail", arguments: [], environment: [:], timeout: 1)
        await #expect(throws: ChildProcess.LaunchFailure.self) { try await child.run(input: Data()) }
    }

    /// Waiting for children does not hold a thread: with several children waiting, all started from
    /// one thread (a serial queue as the tasks' executor, a pool of one of the test's own, so the rest
    /// of a loaded suite cannot take it), another task still runs there while they all wait (a
    /// semaphore wait per child would hold that thread until the children ended). The children wait for
    /// a file that a plain thread creates only after the ping came back, or after 20 s (then the test
    /// fails); a file, not a FIFO, so a child that starts late on a loaded machine still sees it.
    @Test func waitingChildrenLeaveThePoolFree() async throws {
        let flag = FileManager.default.temporaryDirectory.appendingPathComponent("metrika-flag-\(UUID().uuidString)")
            .path
        defer { unlink(flag) }
        let released = Flag()
        let pinged = Flag()
        let releaser = Thread {
            let deadline = Date().addingTimeInterval(20)
            while !pinged.isSet, Date() < deadline { usleep(10_000) }
            released.set()
            _ = FileManager.default.createFile(atPath: flag, contents: nil)
        }
        let children = ProcessInfo.processInfo.activeProcessorCount + 2
        let pool = QueueTaskExecutor()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<children {
                group.addTask(executorPreference: pool) {
                    let result = try await Self.shell("while [ ! -e '\(flag)' ]; do sleep 0.05; done", timeout: 60).run(
                        input: Data())
                    #expect(result.succeeded)
                }
            }
            // Give the children's tasks time to reach their wait.
            try await Task.sleep(for: .milliseconds(300))
            releaser.start()
            let ranWhileTheyWaited = await Task(executorPreference: pool) { !released.isSet }.value
            pinged.set()
            #expect(ranWhileTheyWaited, "a task could not run until the waiting children ended")
            try await group.waitForAll()
        }
    }

    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    /// A cancelled task (an MCP call the client gave up on) kills its child at once rather than at the
    /// time limit.
    @Test func aCancelledRunKillsItsChild() async throws {
        // What is timed is the child's death, seen in /proc from the test's own queue (`offThePool`):
        // the run's result comes back through Foundation's child monitor, which a loaded suite's Dispatch
        // pool may hold for tens of seconds (40 s once) after the child is gone.
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("metrika-kill-\(UUID()).pid")
        defer { try? FileManager.default.removeItem(at: pidFile) }
        let (pid, seconds) = try await offThePool {
            let script = "echo $$ > '\(pidFile.path)'; exec sleep 120"
            let task = Task { try await Self.shell(script, timeout: 600).run(input: Data()) }
            var pid: Int32?
            while pid == nil {
                try await Task.sleep(for: .milliseconds(20))
                pid = (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap {
                    Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            let cancelled = Date()
            task.cancel()
            while Self.isAlive(pid!), Date().timeIntervalSince(cancelled) < 60 {
                try await Task.sleep(for: .milliseconds(20))
            }
            let seconds = Date().timeIntervalSince(cancelled)
            let result = try await task.value
            #expect(!result.timedOut && !result.exited && result.status == SIGKILL)
            return (pid!, seconds)
        }.value
        #expect(!Self.isAlive(pid))
        #expect(seconds < 5, "took \(seconds) s") // not the child's 120 s
    }

    /// Whether `pid` still runs: a process that is gone or only a zombie (dead, not yet reaped) is not.
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    @Test func whatTheChildSaidIsOneCleanLine() {
        let said = ChildProcess.summary(of: Data("  first\u{1B}[2J line\n\n second\u{202E}\n".utf8))
        #expect(said == "first[2J line / second")
        #expect(ChildProcess.summary(of: Data(String(repeating: "a", count: 1000).utf8)).count == 300)
    }
}
