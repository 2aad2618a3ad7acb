import Dispatch
import Foundation

// Swift Testing runs test bodies on Swift concurrency's cooperative pool, which on Linux has one
// thread per core. A test that blocks (waits for a child process, a semaphore, a read) holds one of
// those few threads for as long as it waits, and every awaiting test of the run waits for a thread
// with it. The executors here keep blocking work and measured awaits off that pool.

/// Runs every job on a new thread, so a job that blocks (a test waiting for its child) holds only its
/// own thread, and jobs that wait for each other never starve.
package final class ThreadPerJobExecutor: TaskExecutor {
    package static let shared = ThreadPerJobExecutor()

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// A task executor on a serial Dispatch queue of its own: code run under it with `offThePool` resumes
/// from an `await` as soon as what it awaited is done, however busy the cooperative pool is.
package final class QueueTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "metrika.tests.off-the-pool")

    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Runs `body` with a queue of its own as the task's preferred executor, and returns what it returned
/// and the seconds it took, measured there: for tests that bound how long an await takes, so that the
/// bound measures the code and not the pool's queue.
package func offThePool<T: Sendable>(
    _ body: @Sendable () async throws -> T
) async rethrows -> (value: T, seconds: Double) {
    try await withTaskExecutorPreference(QueueTaskExecutor()) {
        let started = Date()
        let value = try await body()
        return (value, Date().timeIntervalSince(started))
    }
}

// Test builds only: a plain `swift build` (release included) builds every target but has no Testing.
#if canImport(Testing)
    import Testing

    /// Runs each test of a suite on threads of its own (`ThreadPerJobExecutor`): for suites whose tests
    /// block while they wait (a Python checker, a child process, a reader thread), so they never hold the
    /// cooperative pool. `@Suite(.ownThreads)`. End-to-end suites take `.blockingLanes`, which also
    /// bounds how many run at once.
    package struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
        package var isRecursive: Bool { true }

        package func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            guard !test.isSuite else { return try await function() }
            try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
        }
    }

    extension Trait where Self == OwnThreads {
        /// Runs the suite's tests off the cooperative pool (see `OwnThreads`).
        package static var ownThreads: OwnThreads { OwnThreads() }
    }
#endif
