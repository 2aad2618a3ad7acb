import Foundation
import MetrikaModel

/// Sending under the retry policy: every JSON call and every streamed part, judged by `classify`,
/// retried when transient, and logged.
extension MetrikaClient {
    /// Sends with retries for transient failures; returns a 2xx response or throws `APIError`.
    /// `route`: the profile that sends it (else the one that reads the request's counter). Each
    /// attempt is admitted by the quota ledger first (`gate`): one it puts off fails at once.
    package func send(_ request: HTTPRequest, route given: APIRoute? = nil) async throws -> HTTPResponse {
        let route: APIRoute
        if let given { route = given } else { route = try await self.route(for: request.url) }
        let request = addressed(request, by: route)
        let reporting = request.url.path.hasPrefix("/stat/") || request.url.path.contains("/stat/v1/")
        return try await retrying { () async throws -> Step<HTTPResponse> in
            let ticket: Int64?
            do {
                ticket = try await gate?.admit(login: route.login, reporting: reporting)
            } catch {
                return .fail(error)
            }
            requestCounter.increment()
            let sentAt = DispatchTime.now().uptimeNanoseconds
            do {
                let response = try await send(request, on: route, ticket: ticket)
                logLine(request, status: "\(response.status)", since: sentAt)
                switch classify(response, from: request.url) {
                case .success(let response): return .done(response)
                case .fail(let error): return .fail(error)
                case .retry(let reason, let retryAfter, let quota):
                    return .retry(reason, retryAfter: retryAfter, quota: quota)
                }
            } catch let error as TransportError {
                return transportStep(error, request: request, since: sentAt, context: nil)
            } catch let cancelled as CancellationError {
                // Asked to stop (Ctrl-C on a logs load): not an outage to wait out and try again.
                return .fail(cancelled)
            } catch {
                logLine(request, status: "failed", since: sentAt)
                return .retry(UnexpectedFailure.reason(error), retryAfter: nil, quota: nil)
            }
        }
    }

    /// `request` through `route`'s transport, the quota ledger's `ticket` (when it gave one) finished
    /// whatever the outcome.
    private func send(_ request: HTTPRequest, on route: APIRoute, ticket: Int64?) async throws -> HTTPResponse {
        do {
            let response = try await route.transport.send(request)
            if let ticket { await gate?.finish(ticket) }
            return response
        } catch {
            if let ticket { await gate?.finish(ticket) }
            throw error
        }
    }

    /// Sends a write once, the way `send` sends every request (by the profile that reads the request's
    /// counter, admitted by the quota ledger first, counted and logged) but never again: a write sent
    /// twice could be done twice. A failure in transport, or an answer `send` would retry, throws
    /// `APIError.unavailable` saying `unsure` (the write may or may not have been done).
    package func sendOnce(_ request: HTTPRequest, unsure: String, route given: APIRoute? = nil) async throws
        -> HTTPResponse
    {
        let route: APIRoute
        if let given { route = given } else { route = try await self.route(for: request.url) }
        let request = addressed(request, by: route)
        let ticket = try await gate?.admit(login: route.login, reporting: false)
        requestCounter.increment()
        let sentAt = DispatchTime.now().uptimeNanoseconds
        let response: HTTPResponse
        do {
            response = try await send(request, on: route, ticket: ticket)
        } catch {
            logLine(request, status: "failed", since: sentAt)
            throw APIError.unavailable("\(unsure) (\(error))")
        }
        logLine(request, status: "\(response.status)", since: sentAt)
        switch classify(response, from: request.url) {
        case .success(let answer): return answer
        case .fail(let error): throw error
        case .retry(let reason, _, _): throw APIError.unavailable("\(unsure) (\(reason))")
        }
    }

    /// Runs `body` under the retry policy, as `send` runs one request: a `TransientFailure` it throws
    /// is waited out (backoff with jitter, `Retry-After`, the same caps on attempts and on waiting) and
    /// `body` runs again; any other error ends it at once. For work that is more than one request,
    /// such as a log part streamed into its destination: `body` must make its attempt restartable, or
    /// turn the `TransientFailure` into its `failure` when it cannot.
    ///
    /// Unlike `send`, the time the attempts themselves took does not count against the policy: a
    /// streamed part has an idle deadline, not a total one, and one cut after an hour of a 10 GB
    /// download deserves its retries as much as one cut at once. The waits stay bounded.
    package func retryingTransient<T>(_ body: () async throws -> T) async throws -> T {
        try await retrying(boundingElapsedTime: false) { () async throws -> Step<T> in
            do {
                return .done(try await body())
            } catch let transient as TransientFailure {
                return .retry(transient.description, retryAfter: transient.retryAfter, quota: transient.quota)
            }
        }
    }

    /// What one attempt came to.
    private enum Step<T> {
        case done(T)
        case fail(any Error)
        case retry(String, retryAfter: Double?, quota: String?)
    }

    /// A transport failure as `send` judges it: a too large, malformed or insecure answer is final
    /// (asking again brings the same answer), everything else (timeouts, refused or cut connections) is
    /// retried. `context` (such as `log request 7, part 1 of 2`) starts the reason when given.
    private func transportStep<T>(_ error: TransportError, request: HTTPRequest, since sentAt: UInt64, context: String?)
        -> Step<T>
    {
        let prefix = context.map { "\($0): " } ?? ""
        switch error {
        case .tooLarge(let limit):
            logLine(request, status: "too large", since: sentAt)
            return .fail(APIError.tooLarge(path: request.url.path, limit: limit))
        case .malformed(let detail):
            logLine(request, status: "malformed", since: sentAt)
            return .fail(
                APIError.unreadable(
                    "\(prefix)a malformed HTTP answer from \(request.url.path) (\(Self.oneLine(detail)))"))
        case .insecure(let detail):
            logLine(request, status: "TLS failed", since: sentAt)
            return .fail(APIError.insecure(host: request.url.host ?? "the API", detail: Self.oneLine(detail)))
        default:
            logLine(request, status: Self.describe(error), since: sentAt)
            return .retry(prefix + Self.unavailableText(error), retryAfter: nil, quota: nil)
        }
    }

    /// The retry loop of every request to Yandex (see `RetryPolicy`).
    /// `boundingElapsedTime`: whether the attempts' own time counts too (each JSON attempt is bounded
    /// by the request timeout, so all of them by `requestTimeout × maxAttempts`).
    private func retrying<T>(boundingElapsedTime: Bool = true, _ attempt: () async throws -> Step<T>) async throws -> T
    {
        let started = now()
        var waited = 0.0
        var attempts = 0
        while true {
            attempts += 1
            switch try await attempt() {
            case .done(let value):
                return value
            case .fail(let error):
                throw error
            case .retry(let reason, let retryAfter, let quota):
                let delay = retryPolicy.delay(beforeRetry: attempts, random: random(), retryAfter: retryAfter)
                let elapsed = now().timeIntervalSince(started)
                let outOfTime =
                    waited + delay > retryPolicy.maxTotalWait
                    || (boundingElapsedTime
                        && elapsed + delay > retryPolicy.maxTotalWait + requestTimeout * Double(retryPolicy.maxAttempts))
                if attempts >= retryPolicy.maxAttempts || outOfTime {
                    if let quota { throw APIError.quotaPersisted(type: quota) }
                    throw APIError.unavailable("\(reason), \(attempts) attempt\(attempts == 1 ? "" : "s")")
                }
                log?("  retrying in \(Self.formatSeconds(delay)) s (\(reason))")
                retryWait?(
                    RetryWait(
                        seconds: delay, reason: quota ?? reason, nextAttempt: attempts + 1,
                        maxAttempts: retryPolicy.maxAttempts))
                defer { retryWait?(nil) }
                try await sleep(delay)
                waited += delay
            }
        }
    }

    // MARK: - Streamed downloads

    /// Streams `request` (a GET signed by `signedHeaders`) to `receive` in one attempt over
    /// `streamingTransport`. A 2xx body goes to `receive` chunk by chunk; any other answer is judged
    /// as `send` judges it: a final one throws its `APIError`, a transient one (5xx, 429, a cut
    /// connection, a timeout) a `TransientFailure` naming `context`, for `retryingTransient` to retry.
    package func streamOnce(_ request: HTTPRequest, context: String, receive: ([UInt8]) async throws -> Void)
        async throws
    {
        let route = try await self.route(for: request.url)
        guard let streamingTransport = route.streamingTransport else {
            preconditionFailure("MetrikaClient.streamOnce needs a streaming transport")
        }
        let request = addressed(request, by: route)
        let ticket = try await gate?.admit(login: route.login, reporting: false)
        requestCounter.increment()
        let sentAt = DispatchTime.now().uptimeNanoseconds
        let step: Step<Void>
        do {
            let head: StreamedResponseHead
            do {
                head = try await streamingTransport.exchange(request, upload: nil, receive: receive)
                if let ticket { await gate?.finish(ticket) }
            } catch {
                if let ticket { await gate?.finish(ticket) }
                throw error
            }
            logLine(request, status: "\(head.status)", since: sentAt)
            if (200..<300).contains(head.status) { return }
            switch classify(
                HTTPResponse(status: head.status, headers: head.headers, body: head.errorBody), from: request.url)
            {
            case .success: return
            case .fail(let error): step = .fail(error)
            case .retry(let reason, let retryAfter, let quota):
                step = .retry("\(context): \(reason)", retryAfter: retryAfter, quota: quota)
            }
        } catch let error as TransportError {
            step = transportStep(error, request: request, since: sentAt, context: context)
        }
        switch step {
        case .done: return
        case .fail(let error): throw error
        case .retry(let reason, let retryAfter, let quota):
            throw TransientFailure(description: reason, retryAfter: retryAfter, quota: quota)
        }
    }

    /// `since` is a monotonic timestamp: request timing must not follow a pinned or jumping wall clock.
    private func logLine(_ request: HTTPRequest, status: String, since: UInt64) {
        guard let log else { return }
        let milliseconds = Int((DispatchTime.now().uptimeNanoseconds &- since) / 1_000_000)
        log("\(request.method) \(request.url.absoluteString) → \(status) (\(milliseconds) ms)")
    }
}
