import Foundation
import Synchronization
import Testing

@testable import MetrikaAPI

/// The hand-over of a streamed request body from its async writer to libcurl's thread (issue 36):
/// a writer that waits for room is suspended, holding no thread, and libcurl's reading resumes it;
/// the back-pressure (at most `capacity` bytes between them) and the idle timeout stay.
@Suite("Curl upload channel")
struct CurlUploadChannelTests {
    /// One thread for every job of the tasks that prefer it: a job that blocks stops all of them.
    final class OneThreadExecutor: TaskExecutor {
        let queue = DispatchQueue(label: "metrika.tests.one-thread")

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            queue.async { job.runSynchronously(on: executor) }
        }
    }

    final class Ended: Sendable {
        let value = Mutex(false)
    }

    /// What libcurl's read callback takes, on a thread of its own (as libcurl's is).
    static func take(_ channel: CurlUploadChannel, upTo count: Int) async -> [UInt8]? {
        await withCheckedContinuation { continuation in
            Thread {
                var buffer = [UInt8](repeating: 0, count: count)
                let read = buffer.withUnsafeMutableBytes { channel.read(into: $0, cancelled: { false }) }
                continuation.resume(returning: read.map { Array(buffer.prefix($0)) })
            }.start()
        }
    }

    @Test func aWriterWaitingForRoomHoldsNoThreadAndLibcurlsReadResumesIt() async throws {
        // The idle timeout is long: a suspended writer is resumed by libcurl's read long before it, and
        // the test's own task may wait many seconds for a thread of the cooperative pool while the
        // rest of the suite runs (a 20 s timeout ended the writer first once, on a loaded machine).
        let channel = CurlUploadChannel(capacity: 4, idleTimeout: 300)
        try await channel.write([1, 2, 3, 4])
        let executor = OneThreadExecutor()
        let writerEnded = Ended()
        // The queue is full: this writer waits for room, on the executor's one thread.
        let writer = Task(executorPreference: executor) {
            defer { writerEnded.value.withLock { $0 = true } }
            try await channel.write([5])
        }
        try await Task.sleep(for: .milliseconds(50))
        // Another task on that same thread runs while the writer waits (a writer blocking the thread
        // would let it run only once its wait timed out, 300 s later: far from a busy machine's delays).
        let other = Task(executorPreference: executor) { writerEnded.value.withLock { $0 } }
        #expect(await other.value == false, "the other task ran only after the writer's wait ended")
        // libcurl takes the first bytes: the writer goes on, and its byte follows them.
        #expect(await Self.take(channel, upTo: 4) == [1, 2, 3, 4])
        try await writer.value
        channel.finish()
        #expect(await Self.take(channel, upTo: 4) == [5])
        #expect(await Self.take(channel, upTo: 4) == [])
    }

    @Test func aWriterNobodyReadsForTimesOutAndAClosedTransferFailsIt() async throws {
        let channel = CurlUploadChannel(capacity: 2, idleTimeout: 0.2)
        try await channel.write([1, 2])
        await #expect(throws: CurlUploadChannel.Stopped.self) { try await channel.write([3]) }
        // A closed transfer ends a waiting writer (a channel whose timeout cannot come first, however
        // long this task waits for a thread while the rest of the suite runs).
        let held = CurlUploadChannel(capacity: 2, idleTimeout: 300)
        try await held.write([1, 2])
        let waiting = Task { try await held.write([4]) }
        try await Task.sleep(for: .milliseconds(20))
        held.close()
        do {
            try await waiting.value
            Issue.record("a closed transfer took the bytes")
        } catch let stopped as CurlUploadChannel.Stopped {
            guard case .connectionLost = stopped.reason else {
                Issue.record("\(stopped.reason)")
                return
            }
        }
    }
}
