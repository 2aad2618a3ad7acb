import Foundation
import Synchronization

/// A program metrika hands bytes to (`rsvg-convert`, `sendmail`), run with bounds: input on its stdin,
/// stdout and stderr collected up to limits on other threads, a time limit after which the child and
/// everything it started are killed, and the caller's environment less metrika's own variables
/// (`childEnvironment(_:)`: the one rule, applied here so that no caller can forget it).
///
/// One runner for every child so that each gets the same care: a hanging or chatty program, or a
/// grandchild that keeps the pipes open, can never hang or flood metrika.
package struct ChildProcess: Sendable {
    /// The program (a path).
    package var program: String
    /// Its arguments.
    package var arguments: [String]
    /// Its whole environment: what the caller gave, less every `METRIKA_` variable.
    package private(set) var environment: [String: String]
    /// Seconds it may run before it is killed.
    package var timeout: Double
    /// The most stdout bytes kept; past it the child is stopped (`stopsOnOutputOverflow`) or the
    /// rest is read and dropped.
    package var maximumOutput: Int
    /// The most stderr bytes kept; the rest is read and dropped.
    package var maximumErrors: Int
    /// Whether more stdout than `maximumOutput` stops the child (its output is the product).
    package var stopsOnOutputOverflow: Bool

    /// What the child did.
    package struct Result: Sendable {
        /// True when it exited (false: killed by a signal).
        package var exited: Bool
        /// Its exit status, or the signal that ended it.
        package var status: Int32
        /// Its stdout, at most `maximumOutput` bytes.
        package var output: Data
        /// Its stderr, at most `maximumErrors` bytes.
        package var errors: Data
        /// It ran past the time limit and was killed.
        package var timedOut: Bool
        /// It printed more than `maximumOutput` bytes.
        package var outputOverflowed: Bool

        /// It exited with status 0.
        package var succeeded: Bool { exited && status == 0 }
        /// `exit status N` or `signal N`, for messages.
        package var ending: String { exited ? "exit status \(status)" : "signal \(status)" }
    }

    /// The program could not be started at all.
    package struct LaunchFailure: Error, Sendable {
        /// Why, in Foundation's words.
        package var reason: String
    }

    /// A child to run; nothing starts until `run(input:)`.
    package init(
        program: String, arguments: [String], environment: [String: String], timeout: Double,
        maximumOutput: Int = 1 << 20, maximumErrors: Int = 4096, stopsOnOutputOverflow: Bool = false
    ) {
        self.program = program
        self.arguments = arguments
        self.environment = Self.childEnvironment(environment)
        self.timeout = timeout
        self.maximumOutput = maximumOutput
        self.maximumErrors = maximumErrors
        self.stopsOnOutputOverflow = stopsOnOutputOverflow
    }

    /// What a child may see of `environment`: everything but the `METRIKA_` variables. Those carry the
    /// token, the OAuth app's secret, the ClickHouse password and webhook URLs (which embed their own
    /// secret), and the rest is metrika's configuration, none of a child's business: sendmail, secret-tool
    /// and rsvg-convert need PATH, HOME, locale and D-Bus, never these. A program that logs or passes on
    /// its environment (msmtp's passwordeval scripts, a wrapper) cannot leak what it never got.
    package static func childEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.filter { !$0.key.hasPrefix("METRIKA_") }
    }

    /// Runs the child with `input` on its stdin and awaits it (at most `timeout` seconds, then a kill;
    /// its readers a further 2 s at most, in case a grandchild holds the pipes). Nothing here blocks the
    /// caller's thread: the pipes are read and written on threads of their own, the child's exit and
    /// the readers' end resume the caller, and the time limit is a timer. A cancelled task kills the
    /// child (as the time limit does) and gets what it had said so far.
    package func run(input: Data) async throws(LaunchFailure) -> Result {
        // A child that exits before reading all of its input must not kill metrika with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let run = Run(readers: 2)
        let collected = BoundedCollector()
        let limits = [maximumOutput, maximumErrors]
        let stopsOnOverflow = stopsOnOutputOverflow
        let timeout = timeout
        let launched: Swift.Result<Void, LaunchFailure> = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Swift.Result<Void, LaunchFailure>, Never>) in
                run.install(continuation)
                // Woken by the child's exit rather than polling for it: no wasted wake-ups, no latency.
                process.terminationHandler = { _ in run.childExited() }
                do {
                    try process.run()
                } catch {
                    run.failLaunch(LaunchFailure(reason: error.localizedDescription))
                    return
                }
                run.started(process)
                // The time limit and the readers' grace are kept by a thread of the child's own (a
                // timer on Dispatch's shared pool may fire late when that pool is busy).
                Self.detach { run.watch(timeout: timeout) }
                for (index, pipe) in [stdout, stderr].enumerated() {
                    let handle = pipe.fileHandleForReading
                    let limit = limits[index]
                    Self.detach {
                        while true {
                            let chunk = handle.readData(ofLength: 1 << 16)
                            if chunk.isEmpty { break }
                            // Too much product stops the child; too much talk is only cut (and still drained).
                            if !collected.append(index, chunk, limit: limit), index == 0, stopsOnOverflow {
                                Self.stop(process)
                                break
                            }
                        }
                        run.readerDone()
                    }
                }
                Self.detach {
                    try? stdin.fileHandleForWriting.write(contentsOf: input)
                    try? stdin.fileHandleForWriting.close()
                }
            }
        } onCancel: {
            run.cancel()
        }
        try launched.get()
        let timedOut = run.timedOut
        return Result(
            exited: process.terminationReason == .exit, status: process.terminationStatus,
            output: collected.data(0), errors: collected.data(1), timedOut: timedOut,
            outputOverflowed: collected.overflowed(0))
    }

    /// One run's events, from the threads that see them: the child's start and exit, its readers'
    /// end, a cancellation; its watchdog keeps the time limit. The caller resumes once, when the child
    /// has exited and its readers are done (or 2 s after the exit at most).
    final class Run: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Swift.Result<Void, LaunchFailure>, Never>?
            var process: Process?
            var exited = false
            var readers: Int
            var timedOut = false
            var cancelled = false
        }

        private let state: Mutex<State>
        /// Wakes the watchdog, which waits on its own thread, when the child exits or a reader ends.
        private let wake = DispatchSemaphore(value: 0)

        init(readers: Int) { state = Mutex(State(readers: readers)) }

        var timedOut: Bool { state.withLock { $0.timedOut } }

        func install(_ continuation: CheckedContinuation<Swift.Result<Void, LaunchFailure>, Never>) {
            state.withLock { $0.continuation = continuation }
        }

        /// The child runs; a cancellation that came first stops it now.
        func started(_ process: Process) {
            let stopNow = state.withLock { state in
                state.process = process
                return state.cancelled && !state.exited
            }
            if stopNow { ChildProcess.stop(process) }
        }

        func failLaunch(_ failure: LaunchFailure) {
            let continuation = state.withLock { state in
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(returning: .failure(failure))
        }

        func childExited() {
            state.withLock { $0.exited = true }
            wake.signal()
            resumeIfDone(force: false)
        }

        func readerDone() {
            state.withLock { $0.readers -= 1 }
            wake.signal()
            resumeIfDone(force: false)
        }

        func cancel() {
            let process = state.withLock { state in
                state.cancelled = true
                return state.exited ? nil : state.process
            }
            if let process { ChildProcess.stop(process) }
        }

        /// On the watchdog's own thread: kills the child at its time limit, then gives its readers 2 s
        /// after its exit (a grandchild may hold the pipes open) before the caller resumes regardless.
        func watch(timeout: Double) {
            let deadline = DispatchTime.now() + timeout
            while !state.withLock({ $0.exited }), wake.wait(timeout: deadline) == .success {}
            let late = state.withLock { state -> Process? in
                guard !state.exited else { return nil }
                state.timedOut = true
                return state.process
            }
            if let late { ChildProcess.stop(late) }
            while !state.withLock({ $0.exited }) { wake.wait() }
            let grace = DispatchTime.now() + 2
            while state.withLock({ $0.readers > 0 }), wake.wait(timeout: grace) == .success {}
            resumeIfDone(force: true)
        }

        private func resumeIfDone(force: Bool) {
            let continuation = state.withLock {
                state -> CheckedContinuation<Swift.Result<Void, LaunchFailure>, Never>? in
                guard state.exited, force || state.readers <= 0, let continuation = state.continuation else {
                    return nil
                }
                state.continuation = nil
                return continuation
            }
            continuation?.resume(returning: .success(()))
        }
    }

    /// What a child said, as one line for a message: its non-empty lines joined with ` / `, control
    /// and format characters removed, at most `limit` characters.
    package static func summary(of data: Data, limit: Int = 300) -> String {
        let joined = String(decoding: data, as: UTF8.self)
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: " / ")
        let kept = joined.unicodeScalars.filter {
            $0.properties.generalCategory != .control && $0.properties.generalCategory != .format
        }
        return String(String(kept).prefix(limit))
    }

    /// Runs blocking pipe work on a thread of its own, not on Dispatch's shared pool: when that pool is
    /// busy (Swift's concurrency runs on it too), a writer or reader queued there may not start before
    /// the child's time limit, and the child would be killed for waiting on its own input.
    static func detach(_ work: @escaping @Sendable () -> Void) {
        let thread = Thread(block: work)
        thread.name = "metrika.child-pipe"
        thread.start()
    }

    /// Kills the child and anything it started: Foundation gives the child its own process group, and
    /// a grandchild left alive would hold the pipes open (and Foundation waits for them to close).
    static func stop(_ process: Process) {
        let pid = process.processIdentifier
        if getpgid(pid) == pid { kill(-pid, SIGKILL) } else { kill(pid, SIGKILL) }
    }

    /// Output of the child collected on other threads, each stream up to a limit.
    final class BoundedCollector: Sendable {
        private struct Streams {
            var data: [Int: Data] = [:]
            var overflow: Set<Int> = []
        }

        private let streams = Mutex(Streams())

        /// Appends a chunk; false (and the stream marked) when it would pass `limit`.
        func append(_ index: Int, _ chunk: Data, limit: Int) -> Bool {
            streams.withLock { streams in
                let current = streams.data[index]?.count ?? 0
                guard current + chunk.count <= limit else {
                    streams.overflow.insert(index)
                    streams.data[index, default: Data()].append(chunk.prefix(max(0, limit - current)))
                    return false
                }
                streams.data[index, default: Data()].append(chunk)
                return true
            }
        }

        func data(_ index: Int) -> Data { streams.withLock { $0.data[index] ?? Data() } }
        func overflowed(_ index: Int) -> Bool { streams.withLock { $0.overflow.contains(index) } }
    }
}
