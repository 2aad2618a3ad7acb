import Foundation
import Synchronization

/// A job stopped because the person asked it to (Ctrl-C, SIGTERM): not a failure of metrika's, so
/// `CLI.run` says `account` as it is, not as an `Error:`, and the process ends with 128 + the signal,
/// the status a shell reports for a program that signal ended.
package struct Interruption: Error, Sendable, Equatable {
    /// The signal that asked (SIGINT, SIGTERM).
    package var signal: Int32
    /// One line: what the stopped run removed and what it kept for the next run.
    package var account: String

    package init(signal: Int32, account: String) {
        self.signal = signal
        self.account = account
    }

    package var exitCode: Int32 { 128 + signal }
}

/// Which signal asked a job to stop: recorded by the watch (`StopRequests`) before it cancels the
/// job's task, read by the job as it unwinds to say what it kept (`Interruption`). The first signal
/// counts. Recorded from a signal source's queue, read by the job's task: a `Mutex` keeps them apart.
package final class StopSignal: Sendable {
    private let received = Mutex<Int32?>(nil)

    package init() {}

    /// The signal recorded, if one was.
    package var signal: Int32? { received.withLock { $0 } }

    /// Records `signal` unless one was recorded before; returns whether this one counts.
    @discardableResult
    package func receive(_ signal: Int32) -> Bool {
        received.withLock { current in
            guard current == nil else { return false }
            current = signal
            return true
        }
    }
}
