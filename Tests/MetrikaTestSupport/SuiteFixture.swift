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

        package func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
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
    /// (a plain `kill`, safe in an exit handler), as it does when the test run gets SIGTERM or SIGINT
    /// (`swift test` stopped by a person or a CI timeout): the handler kills the registered children and
    /// ends the run by the same signal, and when the process that started the run is gone. A harness
    /// unregisters the child it stopped itself. (A run killed with SIGKILL runs no handler: the simulators
    /// watch their parent, `--parent-pid`, and exit.)
    package enum ChildProcesses {
        private static let lock = NSLock()
        nonisolated(unsafe) private static var running: Set<pid_t> = []
        nonisolated(unsafe) private static var installed = false
        /// The registered pids again, in a fixed table the signal handler may read (it can take no lock).
        nonisolated(unsafe) private static let table: UnsafeMutablePointer<pid_t> = {
            let table = UnsafeMutablePointer<pid_t>.allocate(capacity: tableSize)
            table.initialize(repeating: 0, count: tableSize)
            return table
        }()
        private static let tableSize = 4096

        package static func register(_ pid: pid_t) {
            lock.lock()
            defer { lock.unlock() }
            running.insert(pid)
            if let free = (0..<tableSize).first(where: { table[$0] == 0 }) { table[free] = pid }
            if !installed {
                installed = true
                atexit { ChildProcesses.terminateAll() }
                watchParent()
            }
            installStopHandlers()
        }

        /// `swift test` runs the test process as its child, in a process group of its own: when `swift test`
        /// is killed (SIGKILL reaches no handler, and it forwards no SIGTERM), the test process would run on
        /// alone. A thread of its own polls the parent twice a second; once it is gone, the children are
        /// killed and the run ends (exit 143, as by SIGTERM).
        private static func watchParent() {
            let parent = getppid()
            let watcher = Thread {
                while getppid() == parent { usleep(500_000) }
                ChildProcesses.terminateAll()
                _exit(128 + SIGTERM)
            }
            watcher.start()
        }

        /// Puts the stop handler on SIGTERM and SIGINT where they have their default action (at the
        /// first child, and again after an in-process command's `SignalTrap` gave them back their default;
        /// a trap at work, which ignores them while its signal source reads them, is left alone).
        private static func installStopHandlers() {
            for number in [SIGTERM, SIGINT] {
                var current = sigaction()
                guard sigaction(number, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil else {
                    continue
                }
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { number in
                    ChildProcesses.killRegisteredFromSignalHandler()
                    signal(number, SIG_DFL)
                    raise(number)
                }
                sigemptyset(&action.sa_mask)
                sigaction(number, &action, nil)
            }
        }

        /// Async-signal-safe: plain reads of the table and `kill`.
        private static func killRegisteredFromSignalHandler() {
            for index in 0..<tableSize where table[index] > 0 { kill(table[index], SIGKILL) }
        }

        package static func unregister(_ pid: pid_t) {
            lock.lock()
            running.remove(pid)
            for index in 0..<tableSize where table[index] == pid { table[index] = 0 }
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
