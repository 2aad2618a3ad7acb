import Foundation

/// Hands a streamed request body from the async writer to libcurl's thread, holding at most
/// `capacity` bytes between them: past that the writer waits (at most `idleTimeout` seconds for libcurl
/// to take some, so a server that stops reading cannot hold it forever).
final class CurlUploadChannel: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`, which both sides wait on; a Mutex cannot wait.
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var first = 0
    private var finished = false
    private var abandoned = false
    private var closed = false
    private let capacity: Int
    private let idleTimeout: Double

    /// Why the writer may not go on: thrown by `write`. Not a `TransportError` on purpose: the writer
    /// is often another transfer's reader (a Logs API download feeding a ClickHouse insert), which must
    /// not take the insert's failure for its own; `CurlTransport` turns it into the insert's error.
    struct Stopped: Error {
        /// What the insert's own exchange failed with, when nothing better is known.
        let reason: TransportError
    }

    init(capacity: Int = 4 << 20, idleTimeout: Double) {
        self.capacity = capacity
        self.idleTimeout = idleTimeout
    }

    /// From the writer: queues `bytes`, waiting while the queue is full. Throws once the transfer is
    /// over (the server answered or the connection broke) or when libcurl took nothing for too long.
    func write(_ bytes: [UInt8]) throws {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(max(0.001, idleTimeout))
        while pending.count - first >= capacity, !closed {
            if !condition.wait(until: deadline) { throw Stopped(reason: .timedOut) }
        }
        guard !closed else { throw Stopped(reason: .connectionLost("the server stopped reading the request body")) }
        if first > 0, first == pending.count {
            pending.removeAll(keepingCapacity: true)
            first = 0
        }
        pending.append(contentsOf: bytes)
        condition.broadcast()
    }

    /// From the writer: the body is complete.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// From the writer: it failed; libcurl abandons the transfer instead of ending the body.
    func abandon() {
        condition.lock()
        abandoned = true
        condition.broadcast()
        condition.unlock()
    }

    /// From libcurl's thread: up to `buffer.count` bytes into `buffer`; 0 at the end of the body; nil
    /// when the writer abandoned it (or the transfer was cancelled).
    func read(into buffer: UnsafeMutableRawBufferPointer, cancelled: () -> Bool) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while first == pending.count, !finished, !abandoned, !closed {
            // Woken by the writer; the periodic look is for cancellation, which comes from elsewhere.
            _ = condition.wait(until: Date().addingTimeInterval(0.5))
            if cancelled() { return nil }
        }
        if abandoned || closed { return nil }
        let count = min(buffer.count, pending.count - first)
        if count == 0 { return 0 }
        pending.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + first, byteCount: count)
        }
        first += count
        if first == pending.count {
            pending.removeAll(keepingCapacity: true)
            first = 0
        }
        condition.broadcast()
        return count
    }

    /// The transfer is over: a waiting writer wakes and fails.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
