// Test builds only: a plain `swift build` (release included) builds every target but has no Testing.
#if canImport(Testing)
import Foundation
import Testing

/// Something a suite starts once and stops at its end: a simulator, a receiver, a peer server.
package protocol StoppableFixture: AnyObject, Sendable {
    /// Stops what was started (nothing when nothing was); a later use starts it again.
    func stopFixture()
}

/// A value a suite's tests share — started on first use, stopped by the suite's `.stops(…)` trait
/// when the suite ends, so a `swift test` run leaves no server behind. A start that failed is kept
/// (every test of the suite reports the same error) until the suite ends.
package final class SuiteFixture<Value: Sendable>: StoppableFixture, @unchecked Sendable {
    private let lock = NSLock()
    private let start: @Sendable () throws -> Value
    private let stop: @Sendable (Value) -> Void
    private var state: Result<Value, any Error>?

    package init(start: @escaping @Sendable () throws -> Value, stop: @escaping @Sendable (Value) -> Void) {
        self.start = start
        self.stop = stop
    }

    /// The running value, started now when this is the first use since the suite began.
    package func get() throws -> Value {
        lock.lock()
        defer { lock.unlock() }
        if state == nil { state = Result { try start() } }
        return try state!.get()
    }

    package func stopFixture() {
        lock.lock()
        let current = state
        state = nil
        lock.unlock()
        if case .success(let value) = current { stop(value) }
    }

    /// True while a started value is held (for the tests of this type).
    package var isStarted: Bool {
        lock.lock()
        defer { lock.unlock() }
        if case .success = state { return true }
        return false
    }
}

/// The suite trait that stops a suite's shared fixtures when the suite's last test has finished
/// (whether it passed, failed or threw): `@Suite(.stops(Self.api))`.
package struct StopsFixtures: SuiteTrait, TestScoping {
    let fixtures: [any StoppableFixture]

    package var isRecursive: Bool { false }

    package func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        defer { for fixture in fixtures { fixture.stopFixture() } }
        try await function()
    }
}

extension Trait where Self == StopsFixtures {
    /// Stops these fixtures at the end of the suite.
    package static func stops(_ fixtures: any StoppableFixture...) -> Self { StopsFixtures(fixtures: fixtures) }
}

/// The last line of defence against a server outliving the test process: every child a harness
/// starts is registered here, and whatever is still registered when the process exits gets SIGKILL
/// (a plain `kill`, safe in an exit handler). A harness unregisters the child it stopped itself.
package enum ChildProcesses {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var running: Set<pid_t> = []
    nonisolated(unsafe) private static var installed = false

    package static func register(_ pid: pid_t) {
        lock.lock()
        defer { lock.unlock() }
        running.insert(pid)
        if !installed {
            installed = true
            atexit { ChildProcesses.terminateAll() }
        }
    }

    package static func unregister(_ pid: pid_t) {
        lock.lock()
        running.remove(pid)
        lock.unlock()
    }

    /// Ends a server the harness started and waits for it: SIGKILL, not SIGTERM — a child spawned from
    /// a thread that blocks SIGTERM inherits that mask and never sees a terminate (a suite hung in
    /// `waitUntilExit` on the webhook receiver that way).
    package static func end(_ process: Process) {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        unregister(process.processIdentifier)
    }

    /// The children registered and not yet stopped.
    package static var registered: Set<pid_t> {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    static func terminateAll() {
        lock.lock()
        let pids = running
        running = []
        lock.unlock()
        for pid in pids { kill(pid, SIGKILL) }
    }
}
#endif
