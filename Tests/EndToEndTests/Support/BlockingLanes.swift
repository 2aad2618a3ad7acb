import Foundation
import MetrikaTestSupport
import Testing

/// End-to-end tests block the thread they run on while the binary they launched runs (`runProcess`
/// waits for the child). Swift Testing runs test bodies on Swift concurrency's cooperative pool, which
/// on Linux has one thread per core: on the 2-core machines two waiting tests held the whole pool, so
/// the suite ran two binaries at a time and left the CPU idle a third of the run. This trait runs each
/// test of a suite on threads of its own (a task executor that gives every job a fresh thread), at
/// most `BlockingLanes.width` tests at once, so the CPU bounds the suite, not the pool.
///
/// Apply it to every end-to-end suite: `@Suite(.blockingLanes)`. The longest serialized suites (a
/// ClickHouse suite runs its tests one after another against servers it started) take
/// `.blockingLanes(first: true)`: their tests get the next free lane before the others, so the run is
/// not left waiting for the one suite that started last (longest first, as a scheduler would).
struct BlockingLanes: SuiteTrait, TestTrait, TestScoping {
    /// Its tests take the next free lane before tests of suites without it.
    var first = false

    /// How many end-to-end tests run at once: each mostly waits on a child (the debug `metrika`, the
    /// simulator, a peer server), so more than the cores keep both busy; METRIKA_TEST_LANES overrides.
    static let width: Int = {
        if let text = ProcessInfo.processInfo.environment["METRIKA_TEST_LANES"], let value = Int(text), value > 0 {
            return value
        }
        return max(2, ProcessInfo.processInfo.activeProcessorCount * 3)
    }()

    static let permits = Permits(width)

    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void)
        async throws
    {
        // A suite's own scope holds no lane: its tests each take one.
        guard !test.isSuite else { return try await function() }
        await Self.permits.acquire(first: first)
        do {
            try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
        } catch {
            await Self.permits.release()
            throw error
        }
        await Self.permits.release()
    }
}

extension Trait where Self == BlockingLanes {
    /// Runs the suite's tests off the cooperative pool, a bounded number at once (see `BlockingLanes`).
    static var blockingLanes: BlockingLanes { BlockingLanes() }

    /// The same, its tests ahead of the others' in the queue for a lane (the longest serialized suites).
    static func blockingLanes(first: Bool) -> BlockingLanes { BlockingLanes(first: first) }
}

/// A counting semaphore for tasks: waiting suspends, it never blocks a thread. Waiters that come
/// `first` are let in before the others, each queue in its order.
actor Permits {
    private var free: Int
    private var waitingFirst: [CheckedContinuation<Void, Never>] = []
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func acquire(first: Bool = false) async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { continuation in
            if first { waitingFirst.append(continuation) } else { waiting.append(continuation) }
        }
    }

    func release() {
        if !waitingFirst.isEmpty {
            waitingFirst.removeFirst().resume()
        } else if !waiting.isEmpty {
            waiting.removeFirst().resume()
        } else {
            free += 1
        }
    }
}
