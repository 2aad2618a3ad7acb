import MetrikaModel

/// One attempt failed in a way that asking again may fix (5xx, 429, a cut connection, a timeout):
/// what `MetrikaClient.retryingTransient` retries. Should it escape unretried, it reads as the
/// failure it would end as (`failure`): the API unavailable (69), or a quota that persisted (75).
package struct TransientFailure: MetrikaFailure, Equatable {
    /// What failed and why, one line (`log request 7, part 1 of 2: HTTP 503 backend_error`).
    package let description: String
    /// Seconds the server asked to wait (`Retry-After`), if it did.
    package let retryAfter: Double?
    /// The quota the server named for a 429/420, if that was the failure.
    package let quota: String?

    package init(description: String, retryAfter: Double? = nil, quota: String? = nil) {
        self.description = description
        self.retryAfter = retryAfter
        self.quota = quota
    }

    /// The error this is when it is not retried.
    package var failure: APIError {
        if let quota { return .quotaPersisted(type: quota) }
        return .unavailable(description)
    }

    package var exitCode: Int32 { failure.exitCode }
    package var message: String { failure.message }
}
