import Foundation
import Synchronization
import Testing

@testable import MetrikaAPI

/// At most N requests in flight, however many callers send at once (the MCP server's tool calls).
@Suite struct ParallelLimitTransportTests {
    /// Answers after a short wait, counting how many are inside at once.
    final class Slow: HTTPTransport {
        let inside = Mutex((now: 0, most: 0))
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            inside.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            try await Task.sleep(nanoseconds: 20_000_000)
            inside.withLock { $0.now -= 1 }
            return HTTPResponse(status: 200)
        }
    }

    @Test func nineCallersAtOnceNeverHaveMoreThanThreeRequestsInFlight() async throws {
        let slow = Slow()
        let limited = ParallelLimitTransport(base: slow, limit: 3)
        let request = HTTPRequest(
            method: "GET", url: URL(string: "http://127.0.0.1:1/x")!, headers: [:], body: nil, timeout: 5)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<9 { group.addTask { try await limited.send(request).status } }
            for try await status in group { #expect(status == 200) }
        }
        #expect(slow.inside.withLock { $0.most } == 3)
        #expect(await limited.mostInFlight == 3)
    }
}
