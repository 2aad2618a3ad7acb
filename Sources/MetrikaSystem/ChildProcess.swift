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
    package init(program: String, arguments: [String], environment: [String: String], timeout: Double,
                maximumOutput: Int = 1 << 20, maximumErrors: Int = 4096, stopsOnOutputOverflow: Bool = false) {
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

    /// Runs the child with `input` on its stdin and waits for it (at most `timeout` seconds, then
    /// a kill; its readers a further 2 s at most, in case a grandchild holds the pipes).
    package func run(input: Data) throws(LaunchFailure) -> Result {
        // A child that exits before reading all of its input must not kill metrika with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        // Woken by the child's exit rather than polling for it: no wasted wake-ups, no latency.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw LaunchFailure(reason: error.localizedDescription)
        }
        let collected = BoundedCollector()
        let group = DispatchGroup()
        let limits = [maximumOutput, maximumErrors]
        let stopsOnOverflow = stopsOnOutputOverflow
        for (index, pipe) in [stdout, stderr].enumerated() {
            let handle = pipe.fileHandleForReading
            let limit = limits[index]
            Self.detach(in: group) {
                while true {
                    let chunk = handle.readData(ofLength: 1 << 16)
                    if chunk.isEmpty { break }
                    // Too much product stops the child; too much talk is only cut (and still drained).
                    if !collected.append(index, chunk, limit: limit), index == 0, stopsOnOverflow {
                        Self.stop(process)
                        break
                    }
                }
            }
        }
        Self.detach(in: group) {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        let timedOut = exited.wait(timeout: .now() + timeout) == .timedOut
        if timedOut { Self.stop(process) }
        process.waitUntilExit()
        _ = group.wait(timeout: .now() + 2)
        return Result(
            exited: process.terminationReason == .exit, status: process.terminationStatus,
            output: collected.data(0), errors: collected.data(1), timedOut: timedOut,
            outputOverflowed: collected.overflowed(0))
    }

    /// What a child said, as one line for a message: its non-empty lines joined with ` / `, control
    /// and format characters removed, at most `limit` characters.
    package static func summary(of data: Data, limit: Int = 300) -> String {
        let joined = String(decoding: data, as: UTF8.self)
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: " / ")
        let kept = joined.unicodeScalars.filter { $0.properties.generalCategory != .control && $0.properties.generalCategory != .format }
        return String(String(kept).prefix(limit))
    }

    /// Kills the child and anything it started: Foundation gives the child its own process group, and
    /// a grandchild left alive would hold the pipes open (and Foundation waits for them to close).
    /// Runs blocking pipe work on a thread of its own, not on Dispatch's shared pool: when that pool is
    /// busy (Swift's concurrency runs on it too), a writer or reader queued there may not start before
    /// the child's time limit, and the child would be killed for waiting on its own input.
    static func detach(in group: DispatchGroup, _ work: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread {
            work()
            group.leave()
        }
        thread.name = "metrika.child-pipe"
        thread.start()
    }

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
