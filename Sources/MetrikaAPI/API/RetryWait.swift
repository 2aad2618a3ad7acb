import MetrikaModel

/// A wait before a request is sent again, as `MetrikaClient` tells its observer (the terminal's
/// progress line): how long, why (a quota's name, `HTTP 503`, a timeout — server text), and which
/// attempt comes next.
package struct RetryWait: Sendable, Equatable {
    /// Seconds of the wait.
    package let seconds: Double
    /// Why: the quota the server named (`quota_requests_by_ip`), else the failure.
    package let reason: String
    /// The attempt that follows the wait (2 for the first retry).
    package let nextAttempt: Int
    /// Attempts in all.
    package let maxAttempts: Int

    package init(seconds: Double, reason: String, nextAttempt: Int, maxAttempts: Int) {
        self.seconds = seconds
        self.reason = reason
        self.nextAttempt = nextAttempt
        self.maxAttempts = maxAttempts
    }

    /// The seconds as shown: whole seconds from 2 s up, one decimal below.
    package var secondsText: String {
        seconds >= 2 ? String(Int(seconds.rounded())) : DecimalText.format(seconds, fractionDigits: 1)
    }
}
