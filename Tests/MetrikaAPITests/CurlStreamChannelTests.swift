import Foundation
import Testing
@testable import MetrikaAPI

/// The hand-over between libcurl's thread and a streamed download's reader.
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
        let started = ContinuousClock.now
        channel.close()
        let event = await reader.value
        #expect(ContinuousClock.now - started < .milliseconds(500))
        guard case .end(.failure(let error)) = event else { Issue.record("\(event)"); return }
        #expect(error is CancellationError)
        // The producer is told the reader is gone.
        #expect(channel.push([1, 2, 3]) == false)
    }

    @Test func piecesQueuedBeforeTheEndAreReadInOrder() async {
        let channel = CurlStreamChannel()
        #expect(channel.push([1]) && channel.push([2, 3]))
        channel.end(.success(StreamedResponseHead(status: 200)))
        guard case .bytes(let first) = await channel.next(), case .bytes(let second) = await channel.next(),
              case .end(.success(let head)) = await channel.next() else { Issue.record("out of order"); return }
        #expect(first == [1] && second == [2, 3] && head.status == 200)
    }
}
