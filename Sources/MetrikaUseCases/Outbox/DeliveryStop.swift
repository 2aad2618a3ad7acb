import Foundation
import Synchronization

/// A request to stop delivering (SIGTERM, SIGINT): the message in flight is finished — for at most
/// `grace` seconds — and the rest stays in the outbox. A wait inside a send (a 429's `retry_after`,
/// the pace of a chat, a retry's backoff) is never waited out once a stop was asked: it ends at once
/// (`DeliveryStop.wait`), and the message stays pending.
package final class DeliveryStop: Sendable {
    /// The longest the message in flight may take after the request (systemd's stop timeout is 90 s,
    /// the promise 10 s).
    package static let grace: Double = 8

    private struct State {
        var signal: Int32?
        /// Cancels the send in flight: called when the stop comes while it waits, or when `grace` ran out.
        var current: (@Sendable () -> Void)?
        var waiting = false
    }

    private let state = Mutex(State())
    private let grace: Double

    package init(grace: Double = DeliveryStop.grace) { self.grace = grace }

    /// The signal that asked, if one did.
    package var signal: Int32? { state.withLock { $0.signal } }

    /// Asks to stop: a send that waits is ended now, one that transfers gets `grace` seconds.
    package func request(_ signal: Int32) {
        let (first, waiting) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard state.signal == nil else { return (false, nil) }
            state.signal = signal
            return (true, state.waiting ? state.current : nil)
        }
        guard first else { return }
        waiting?()
        let grace = self.grace
        Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(grace * 1e9))
            self?.state.withLock { $0.current }?()
        }
    }

    /// Runs one send, so that a stop can end it (see `request`); a stop asked before it starts
    /// throws `CancellationError` without running it.
    package func perform(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let stop = self
        let task = Task { try await DeliveryStop.$current.withValue(stop) { try await body() } }
        let started = state.withLock { state -> Bool in
            guard state.signal == nil else { return false }
            state.current = { task.cancel() }
            state.waiting = false
            return true
        }
        guard started else {
            task.cancel()
            throw CancellationError()
        }
        defer { state.withLock { $0.current = nil } }
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Runs `body` (work that may end at any moment: a check that has claimed nothing) so that a
    /// stop cancels it at once; its value, or `CancellationError` when a stop came first.
    package func interruptible<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        let started = state.withLock { state -> Bool in
            guard state.signal == nil else { return false }
            state.current = { task.cancel() }
            state.waiting = true
            return true
        }
        guard started else {
            task.cancel()
            throw CancellationError()
        }
        defer {
            state.withLock { state in
                state.current = nil
                state.waiting = false
            }
        }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// The stop of the send this task performs (nil outside `perform`).
    @TaskLocal package static var current: DeliveryStop?

    /// Waits `seconds` through `sleep`, unless a stop was asked (then `CancellationError` at once,
    /// and a stop asked during the wait ends it).
    package static func wait(_ seconds: Double, sleep: @Sendable (Double) async throws -> Void) async throws {
        guard let stop = current else {
            try await sleep(seconds)
            return
        }
        let allowed = stop.state.withLock { state -> Bool in
            guard state.signal == nil else { return false }
            state.waiting = true
            return true
        }
        guard allowed else { throw CancellationError() }
        defer { stop.state.withLock { $0.waiting = false } }
        try await sleep(seconds)
        try Task.checkCancellation()
    }
}
