import Foundation
import Synchronization

/// The production transport: libcurl's easy interface, one thread per request in flight.
///
/// Why libcurl itself and not URLSession (which sits on libcurl on Linux): URLSession queues the
/// body's pieces for its delegate without a bound — a server faster than the delegate piled up
/// hundreds of megabytes before any limit could act — and its own networking stack costs ~20 MiB of
/// memory. Here libcurl calls back with each decoded piece on the thread that reads the socket, so the
/// response limit (`HTTPRequest.maxResponseBytes`) is exact, a streamed download is throttled by its
/// reader, and the total deadline is libcurl's own. See `CurlExchange` for the rules every request
/// follows (no redirects, http/https only, verified TLS).
package struct CurlTransport: HTTPTransport, StreamingHTTPTransport {
    package init() {}

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let exchange = CurlExchange(request, sink: .collect(limit: max(0, request.maxResponseBytes)))
        let result = ResumeOnce<HTTPResponse>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard result.begin(continuation) else { return }
                Self.run(exchange) { outcome in
                    result.finish(outcome.map { HTTPResponse(status: $0.status, headers: $0.headers, body: $0.body) })
                }
            }
        } onCancel: {
            exchange.cancel()
            result.finish(.failure(CancellationError()))
        }
    }

    /// Streams a download (the reader's pace sets libcurl's: at most 4 MiB wait between them) and,
    /// with `upload`, a request body written while it is produced (at most 4 MiB wait the other way).
    package func exchange(
        _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?, receive: ([UInt8]) async throws -> Void
    ) async throws -> StreamedResponseHead {
        let channel = CurlStreamChannel()
        let source = upload == nil ? nil : CurlUploadChannel(idleTimeout: request.timeout)
        let exchange = CurlExchange(request, sink: .stream(deliver: { channel.push(Array($0)) }), upload: source)
        Self.run(exchange) { outcome in
            channel.end(
                outcome.map { StreamedResponseHead(status: $0.status, headers: $0.headers, errorBody: $0.errorBody) })
        }
        return try await withTaskCancellationHandler {
            // Whatever ends this (the reader or the writer throwing included) releases libcurl's thread.
            defer {
                channel.close()
                source?.abandon()
            }
            if let upload, let source {
                do {
                    try await upload { chunk in try await source.write(chunk) }
                    source.finish()
                } catch {
                    source.abandon()
                    let outcome = await Self.end(of: channel)
                    // The server may have stopped reading because it refused the data: its answer says why.
                    if case .success(let head)? = outcome, !(200..<300).contains(head.status) { return head }
                    if let stopped = error as? CurlUploadChannel.Stopped {
                        // This exchange ended (or stalled) under the writer: its own failure is the error,
                        // whatever the writer's caller made of it on the way out.
                        if case .timedOut = stopped.reason { throw stopped.reason }
                        if case .failure(let failure)? = outcome { throw failure }
                        throw stopped.reason
                    }
                    throw error
                }
            }
            while true {
                switch await channel.next() {
                case .bytes(let bytes):
                    try await receive(bytes)
                case .end(let outcome):
                    return try outcome.get()
                }
            }
        } onCancel: {
            exchange.cancel()
            channel.close()
            source?.close()
        }
    }

    /// How the transfer ended, its remaining bytes dropped.
    private static func end(of channel: CurlStreamChannel) async -> Result<StreamedResponseHead, any Error>? {
        while true {
            if case .end(let outcome) = await channel.next() { return outcome }
        }
    }

    /// Performs `exchange` on a thread of its own (a `perform()` may wait for minutes, which must not
    /// hold one of the few threads Swift's concurrency or Dispatch share out), then hands it, or why
    /// it failed, to `done` on that thread.
    static func run(_ exchange: CurlExchange, done: @escaping @Sendable (Result<CurlExchange, any Error>) -> Void) {
        let thread = Thread {
            do {
                try exchange.perform()
                guard exchange.status > 0 else { throw TransportError.other("not an HTTP response") }
                done(.success(exchange))
            } catch {
                done(.failure(error))
            }
        }
        thread.name = "metrika.curl"
        thread.start()
    }
}

/// A continuation resumed exactly once: by the transfer's end, or earlier by cancellation.
final class ResumeOnce<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var done = false
    }

    private let state = Mutex(State())

    /// False (and the continuation resumed with `CancellationError`) when it was cancelled already.
    func begin(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        let cancelled = state.withLock { state -> Bool in
            if state.done { return true }
            state.continuation = continuation
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    func finish(_ result: Result<Value, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard !state.done else { return nil }
            state.done = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }
}
