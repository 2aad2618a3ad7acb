import MetrikaModel

/// Why one counter's alert check stopped when the cause is none of metrika's typed failures (those
/// are passed on as they are). The one-line message and the exit status are derived here only.
package enum AlertCheckError: MetrikaFailure, Equatable {
    /// The run was cancelled while the counter was being checked.
    case interrupted
    /// Something metrika has no sentence for stopped the check; `kind` names the error's type only.
    case unexpected(kind: String)
    /// `limit` counters in a row could not reach `host` (the last `reason`): the run stopped with the
    /// counters `checked` (in their order) and left the `unchecked` ones (`ConnectionGiveUp`).
    case hostGone(host: String, limit: Int, reason: String, checked: [Int], unchecked: [Int])

    /// Wraps any error that is not a `MetrikaFailure` already.
    package static func wrapping(_ error: any Error) -> any MetrikaFailure {
        if let failure = error as? any MetrikaFailure { return failure }
        if error is CancellationError { return AlertCheckError.interrupted }
        return AlertCheckError.unexpected(kind: String(describing: type(of: error)))
    }

    package var exitCode: Int32 {
        switch self {
        case .interrupted: return ExitCode.tryLater
        case .unexpected: return ExitCode.failure
        case .hostGone: return ExitCode.unavailable
        }
    }

    package var message: String {
        switch self {
        case .interrupted:
            return
                "its check was interrupted before it finished; nothing was told for it, the next run checks it again."
        case .unexpected(let kind):
            return
                "its check stopped on an unexpected error (\(kind)); nothing was told for it. Run the command again, and report it if it keeps happening."
        case .hostGone(let host, let limit, let reason, let checked, let unchecked):
            let total = checked.count + unchecked.count
            return "\(host) could not be reached by \(limit) counters in a row, so the alert check stopped: "
                + "\(checked.count) of \(total) counter\(total == 1 ? "" : "s") checked\(Self.ids(checked)), \(unchecked.count) not checked\(Self.ids(unchecked)). "
                + "Run it again when the API answers. The last error: \(reason)"
        }
    }

    /// ` (1001, 1002, … and 7 more)`: the first few ids of a list, for one line however many there are.
    package static func ids(_ ids: [Int], shown: Int = 5) -> String {
        guard !ids.isEmpty else { return "" }
        let head = ids.prefix(shown).map(String.init).joined(separator: ", ")
        return " (\(head)\(ids.count > shown ? ", … and \(ids.count - shown) more" : ""))"
    }
}
