import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `handler` on a dispatch queue when SIGINT or SIGTERM arrives, instead of the default action
/// (dying mid-line). The handler tidies up and ends the process itself (128 + the signal, as shells
/// report it); `cancel` restores the default action.
final class SignalTrap: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let signals: [Int32]

    init(_ signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        sources = []
        for number in signals { signal(number, SIG_DFL) }
    }

    deinit { cancel() }
}
