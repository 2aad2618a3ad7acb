import Foundation
import Testing

@testable import MetrikaAPI

/// The hand-over between libcurl's thread and a streamed download's reader, and what a cancelled
/// exchange comes to.
@Suite("Curl stream channel")
struct CurlStreamChannelTests {
    /// A cancelled download (Ctrl-C on `metrika logs`) closes the channel: a reader waiting for the
    /// next piece ends at once, not when libcurl next calls back (up to a second later).
    @Test func closingWakesAWaitingReaderWithCancellation() async throws {
        let channel = CurlStreamChannel()
        let reader = Task { await channel.next() }
        // The reader is waiting: nothing was pushed.
        try await Task.sleep(for: .milliseconds(50))
        // Were the reader left waiting, the test would hang: it is woken after 2 s with another end.
        let rescue = Task {
            try await Task.sleep(for: .seconds(2))
            channel.end(.success(StreamedResponseHead(status: 599)))
        }
        defer { rescue.cancel() }
        channel.close()
        // The cancellation, given by close itself (the rescue's end would be a 599).
        let event = await reader.value
        guard case .end(.failure(let error)) = event else {
            Issue.record("\(event)")
            return
        }
        #expect(error is CancellationError)
        // The producer is told the reader is gone.
        #expect(channel.push([1, 2, 3]) == false)
    }

    @Test func piecesQueuedBeforeTheEndAreReadInOrder() async {
        let channel = CurlStreamChannel()
        #expect(channel.push([1]) && channel.push([2, 3]))
        channel.end(.success(StreamedResponseHead(status: 200)))
        guard case .bytes(let first) = await channel.next(), case .bytes(let second) = await channel.next(),
            case .end(.success(let head)) = await channel.next()
        else {
            Issue.record("out of order")
            return
        }
        #expect(first == [1] && second == [2, 3] && head.status == 200)
    }

    /// A JSON call whose task is cancelled is not an outage: no wait, no second attempt.
    @Test func aCancelledCallIsNotRetried() async {
        struct Cancelled: HTTPTransport {
            func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw CancellationError() }
        }
        let clock = FakeClock()
        let client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "secret-token-123", transport: Cancelled(),
            requestTimeout: 5, sleep: { clock.sleep($0) }, random: { 0.5 }, now: { clock.now })
        await #expect(throws: CancellationError.self) { _ = try await client.fetchCounter(id: 5) }
        #expect(clock.sleeps.isEmpty)
        #expect(client.requestCounter.value == 1)
    }
}
