import Synchronization

/// Thread-safe count of requests sent.
package final class RequestCounter: Sendable {
    private let count = Mutex(0)

    package init() {}

    package func increment() {
        count.withLock { $0 += 1 }
    }

    /// Requests sent so far.
    package var value: Int {
        count.withLock { $0 }
    }
}
