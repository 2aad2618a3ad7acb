/// How long and how often metrika retries transient failures: exponential backoff with jitter,
/// bounded both in attempts and in total waiting time.
package struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    package var maxAttempts: Int
    /// The first delay in seconds; each retry doubles it.
    package var baseDelay: Double
    /// No single wait is longer than this.
    package var maxDelay: Double
    /// The sum of all waits never exceeds this (seconds).
    package var maxTotalWait: Double

    package init(maxAttempts: Int = 5, baseDelay: Double = 0.5, maxDelay: Double = 8, maxTotalWait: Double = 30) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxTotalWait = maxTotalWait
    }

    /// The default of production runs.
    package static let standard = RetryPolicy()

    /// The wait before retry number `retry` (1 for the first retry). `random` is uniform in 0..<1:
    /// "equal jitter" — half the exponential delay, plus a random part of the other half — so that
    /// clients that failed together don't come back together, yet each still backs off.
    /// A `Retry-After` from the server, when given, is honoured if it is longer (capped at `maxDelay`).
    package func delay(beforeRetry retry: Int, random: Double, retryAfter: Double? = nil) -> Double {
        let exponent = Double(max(0, retry - 1))
        var exponential = baseDelay
        for _ in 0..<Int(exponent) { exponential *= 2 }
        let capped = min(maxDelay, exponential)
        var delay = capped / 2 + capped / 2 * min(max(random, 0), 1)
        if let retryAfter, retryAfter > delay { delay = min(retryAfter, maxDelay) }
        return delay
    }
}
