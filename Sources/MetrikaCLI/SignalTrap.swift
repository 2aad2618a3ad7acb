import Dispatch
import Foundation
import MetrikaUseCases
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `handler` on a dispatch queue when SIGINT or SIGTERM arrives, instead of the default action
/// (dying mid-line). The handler only tells the job, which stops, tidies up and ends as an
/// `Interruption` that `CLI.run` turns into 128 + the signal (as shells report it): only `main.swift`
/// ends the process. `cancel` restores the default action. A signal the process inherited as ignored
/// (a background job of a script) stays ignored, as `ProgressLine`'s eraser leaves it.
final class SignalTrap: Sendable {
    /// The sources that deliver the trapped signals, and those signals (`cancel` gives them back their
    /// default action). Made on the job's task, cancelled there or on release: a `Mutex` keeps it so.
    private let trapped: Mutex<(sources: [any DispatchSourceSignal], signals: [Int32])>

    init(_ signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        // The progress line's eraser is installed once, at its first line; installed now, before the
        // trap, it cannot replace the trap later (the job erases the line as it stops).
        ProgressLine.eraseOnSignals
        var sources: [any DispatchSourceSignal] = []
        var numbers: [Int32] = []
        for number in signals {
            let previous = signal(number, SIG_IGN)
            if let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            numbers.append(number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
        trapped = Mutex((sources: sources, signals: numbers))
    }

    func cancel() {
        trapped.withLock { trapped in
            for source in trapped.sources { source.cancel() }
            for number in trapped.signals { signal(number, SIG_DFL) }
            trapped = (sources: [], signals: [])
        }
    }

    deinit { cancel() }
}

extension SignalTrap {
    /// SIGINT and SIGTERM as a job's requests to stop (`LogsLoad` watches them during its export).
    /// Only the first signal is the job's: the trap gives the signals back their default action as
    /// it hands that one on, so a second Ctrl-C or SIGTERM while the job winds down (a write blocked
    /// on a reader that stopped reading, a database busy for its 30 s) ends the process at once.
    struct Requests: StopRequests {
        func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> @Sendable () -> Void {
            let holder = TrapHolder()
            let trap = SignalTrap { number in
                holder.trap.withLock { $0?.cancel() }
                handler(number)
            }
            holder.trap.withLock { $0 = trap }
            return {
                trap.cancel()
                holder.trap.withLock { $0 = nil }
            }
        }
    }

    /// The trap its own handler cancels.
    private final class TrapHolder: Sendable {
        let trap = Mutex<SignalTrap?>(nil)
    }
}
