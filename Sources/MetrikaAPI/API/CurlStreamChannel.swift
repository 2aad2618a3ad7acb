import Foundation

/// Hands a streamed body from libcurl's thread to the async reader, holding at most `capacity` bytes
/// between them: past that the libcurl thread waits (and with it the socket, so the server is slowed
/// down by TCP, not buffered for).
final class CurlStreamChannel: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`, which libcurl's thread waits on; a Mutex cannot wait.
    enum Event: Sendable {
        case bytes([UInt8])
        case end(Result<StreamedResponseHead, any Error>)
    }

    private let condition = NSCondition()
    private var events: [Event] = []
    private var first = 0
    private var queuedBytes = 0
    private var closed = false
    private var waiter: CheckedContinuation<Event, Never>?
    private let capacity: Int

    init(capacity: Int = 4 << 20) {
        self.capacity = capacity
    }

    /// From libcurl's thread: queues a piece, waiting while the queue is full. False once the reader
    /// has gone, which stops the transfer.
    func push(_ bytes: [UInt8]) -> Bool {
        condition.lock()
        while queuedBytes >= capacity, !closed { condition.wait() }
        guard !closed else {
            condition.unlock()
            return false
        }
        deliver(.bytes(bytes))
        return true
    }

    /// From libcurl's thread: the transfer is over.
    func end(_ outcome: Result<StreamedResponseHead, any Error>) {
        condition.lock()
        deliver(.end(outcome))
    }

    /// Called with the lock held; releases it.
    private func deliver(_ event: Event) {
        if let waiter {
            self.waiter = nil
            condition.unlock()
            waiter.resume(returning: event)
            return
        }
        if case .bytes(let bytes) = event { queuedBytes += bytes.count }
        events.append(event)
        condition.unlock()
    }

    /// The next piece, or the end.
    func next() async -> Event {
        await withCheckedContinuation { continuation in
            condition.lock()
            guard first < events.count else {
                waiter = continuation
                condition.unlock()
                return
            }
            let event = events[first]
            first += 1
            if first == events.count {
                events.removeAll(keepingCapacity: true)
                first = 0
            }
            if case .bytes(let bytes) = event {
                queuedBytes -= bytes.count
                condition.signal()
            }
            condition.unlock()
            continuation.resume(returning: event)
        }
    }

    /// The reader is gone (or its task was cancelled): a waiting producer wakes and stops, and a
    /// reader waiting in `next` ends at once with `CancellationError` instead of waiting for libcurl
    /// to notice the cancelled transfer (its progress callback, up to a second later): Ctrl-C on
    /// `metrika logs` stops a part download now.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        let reader = waiter
        waiter = nil
        condition.unlock()
        reader?.resume(returning: .end(.failure(CancellationError())))
    }
}
