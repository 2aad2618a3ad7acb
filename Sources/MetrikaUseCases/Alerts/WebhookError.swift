import MetrikaAPI
import MetrikaModel

/// A webhook URL metrika will not use, or a POST the webhook did not take. The URL carries a secret,
/// so a case holds only its masked form (`https://hooks.slack.com/…`) and text already masked; the
/// one-line message and the exit status are derived here only.
package enum WebhookError: MetrikaFailure, Equatable {
    /// `source` (`--webhook`, METRIKA_WEBHOOK_URL) is not an http(s) URL with a host; not shown at all.
    case notAURL(source: String)
    /// The URL has a user:password part.
    case credentialsInURL(source: String, masked: String)
    /// The URL is plain http to another machine (without METRIKA_ALLOW_INSECURE_HTTP=1).
    case plainHTTP(source: String, masked: String)
    /// No answer within `seconds`.
    case timedOut(masked: String, seconds: Double)
    /// The answer grew past `limit` bytes.
    case answerTooLarge(masked: String, limit: Int)
    /// The webhook could not be reached; `detail` is the transport's account.
    case unreachable(masked: String, detail: String)
    /// It answered with a redirect, which metrika never follows; `target` is where to, masked.
    case redirected(masked: String, status: Int, target: String)
    /// It answered a status outside 2xx; `answer` is the start of its body as shown (may be empty).
    case refused(masked: String, status: Int, answer: String)

    package var exitCode: Int32 {
        switch self {
        case .notAURL, .credentialsInURL, .plainHTTP: return ExitCode.config
        case .timedOut, .answerTooLarge, .unreachable, .redirected, .refused: return ExitCode.unavailable
        }
    }

    package var message: String {
        switch self {
        case .notAURL(let source):
            return
                "\(source) is not an http(s) URL with a host (such as https://hooks.slack.com/services/…); it is not shown because it may hold a secret."
        case .credentialsInURL(let source, let masked):
            return
                "\(source) (\(masked)) has a user:password part; put the secret where the service expects it (its path or query)."
        case .plainHTTP(let source, let masked):
            return
                "\(source) (\(masked)) is plain http to another machine: its secret would cross the network readable. "
                + "Use https://, or set \(PlainHTTPPolicy.overrideVariable)=1 for a test set-up."
        case .timedOut(let masked, let seconds):
            return Self.notDelivered(masked, "no answer within \(DecimalText.shortest(seconds)) s")
        case .answerTooLarge(let masked, let limit):
            return Self.notDelivered(masked, "an answer larger than \(limit >> 10) KiB")
        case .unreachable(let masked, let detail):
            return Self.notDelivered(masked, detail)
        case .redirected(let masked, let status, let target):
            return Self.notDelivered(
                masked,
                "it answered with a redirect (HTTP \(status)) to \(target), which metrika never follows (the alerts would go where the URL does not say); give the final URL"
            )
        case .refused(let masked, let status, let answer):
            return Self.notDelivered(masked, "it answered HTTP \(status)\(answer.isEmpty ? "" : ": " + answer)")
        }
    }

    private static func notDelivered(_ masked: String, _ why: String) -> String {
        // What follows (kept for the next run, or given up) is the outbox's to say, not the webhook's.
        "the webhook \(masked) did not take the alerts: \(why)."
    }
}
