/// A transport that lets at most `limit` requests be in flight at once; the others wait their turn in
/// order. Metrika allows 3 parallel requests per user: where several jobs of one process may call the
/// API at the same moment (the MCP server runs tool calls side by side, and a report prefetches its
/// next page), this keeps them within the quota together.
package struct ParallelLimitTransport: HTTPTransport {
    package let base: any HTTPTransport
    private let slots: Slots

    package init(base: any HTTPTransport, limit: Int = 3) {
        self.base = base
        self.slots = Slots(max(1, limit))
    }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        await slots.acquire()
        do {
            let response = try await base.send(request)
            await slots.release()
            return response
        } catch {
            await slots.release()
            throw error
        }
    }

    /// The most requests that were in flight at once (for tests).
    package var mostInFlight: Int { get async { await slots.most } }

    private actor Slots {
        private var free: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []
        private var inFlight = 0
        private(set) var most = 0

        init(_ count: Int) { free = count }

        func acquire() async {
            if free > 0 {
                free -= 1
            } else {
                await withCheckedContinuation { waiting.append($0) }
            }
            inFlight += 1
            most = max(most, inFlight)
        }

        func release() {
            inFlight -= 1
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
    }
}
