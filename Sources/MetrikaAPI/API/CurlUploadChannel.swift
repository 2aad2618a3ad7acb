import Foundation

/// Hands a streamed request body from the async writer to libcurl's thread, holding at most
/// `capacity` bytes between them: past that the writer is suspended — a continuation that libcurl's
/// read callback resumes once it took some, so no thread waits on the writer's side — for at most
/// `idleTimeout` seconds (a timer's), so a server that stops reading cannot hold it forever. libcurl's
/// thread, a thread of its own, waits on the condition for the writer's bytes.
final class CurlUploadChannel: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition` (libcurl's thread waits on it; the writer only
    // takes it for a moment and is suspended on `waiter` instead).
    private let condition = NSCondition()
    /// The suspended writer, and which of its waits this is (a timer of an earlier wait must not end it).
    private var waiter: CheckedContinuation<Void, any Error>?
    private var waits = 0
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

    /// From the writer: queues `bytes`, suspended while the queue is full. Throws once the transfer is
    /// over (the server answered or the connection broke) or when libcurl took nothing for too long.
    func write(_ bytes: [UInt8]) async throws {
        let deadline = DispatchTime.now() + max(0.001, idleTimeout)
        while try !enqueue(bytes) {
            try await room(before: deadline)
        }
    }

    /// Queues `bytes` when there is room (true); false when the queue is full.
    private func enqueue(_ bytes: [UInt8]) throws -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { throw Stopped(reason: .connectionLost("the server stopped reading the request body")) }
        guard pending.count - first < capacity else { return false }
        if first > 0, first == pending.count {
            pending.removeAll(keepingCapacity: true)
            first = 0
        }
        pending.append(contentsOf: bytes)
        condition.broadcast()
        return true
    }

    /// Suspends the writer until libcurl took some bytes, the transfer is over, or `deadline` passed.
    private func room(before deadline: DispatchTime) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            condition.lock()
            // Looked at again under the lock: libcurl may have taken bytes (or ended) since.
            guard pending.count - first >= capacity, !closed else {
                condition.unlock()
                continuation.resume()
                return
            }
            waits += 1
            let wait = waits
            waiter = continuation
            condition.unlock()
            DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in
                guard let late = takeWaiter(ifWait: wait) else { return }
                late.resume(throwing: Stopped(reason: .timedOut))
            }
        }
    }

    /// The suspended writer, taken (to resume it once) when it is still wait `wait` (any wait: nil).
    private func takeWaiter(ifWait wait: Int? = nil) -> CheckedContinuation<Void, any Error>? {
        condition.lock()
        defer { condition.unlock() }
        guard let waiter, wait == nil || wait == waits else { return nil }
        self.waiter = nil
        return waiter
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
        // Room again: the suspended writer goes on (it looks at the queue again itself).
        let writer = waiter
        waiter = nil
        writer?.resume()
        return count
    }

    /// The transfer is over: a waiting writer wakes and fails.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        // A suspended writer wakes and fails (`write` sees `closed`).
        takeWaiter()?.resume()
    }
}
