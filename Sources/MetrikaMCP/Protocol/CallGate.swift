/// At most `limit` tool calls at work at once (the API's quota: 3 parallel requests per token, as
/// `sync` keeps); the rest wait their turn in order. A waiting call that is cancelled leaves the queue
/// at once (throwing `CancellationError`) without taking a turn.
actor CallGate {
    private var free: Int
    private var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextTicket: UInt64 = 0
    /// The most calls seen at work at once (tests check the bound).
    private(set) var mostAtOnce = 0
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
        self.free = limit
    }

    func acquire() async throws {
        try Task.checkCancellation()
        if free > 0 {
            free -= 1
            noteBusy()
            return
        }
        let ticket = nextTicket
        nextTicket += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((ticket, continuation))
                }
            }
        } onCancel: {
            Task { await self.leave(ticket) }
        }
    }

    func release() {
        if waiters.isEmpty {
            free += 1
        } else {
            // The turn passes straight to the next in line.
            waiters.removeFirst().continuation.resume()
            noteBusy()
        }
    }

    private func leave(_ ticket: UInt64) {
        guard let position = waiters.firstIndex(where: { $0.ticket == ticket }) else { return }
        waiters.remove(at: position).continuation.resume(throwing: CancellationError())
    }

    private func noteBusy() {
        mostAtOnce = max(mostAtOnce, limit - free)
    }
}
