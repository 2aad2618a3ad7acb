import Foundation

/// Thread-safe count of requests sent.
package final class RequestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    package init() {}

    package func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    /// Requests sent so far.
    package var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
