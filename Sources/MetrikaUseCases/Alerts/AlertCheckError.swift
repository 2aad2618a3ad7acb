import MetrikaModel

/// Why one counter's alert check stopped when the cause is none of metrika's typed failures (those
/// are passed on as they are). The one-line message and the exit status are derived here only.
package enum AlertCheckError: MetrikaFailure, Equatable {
    /// The run was cancelled while the counter was being checked.
    case interrupted
    /// Something metrika has no sentence for stopped the check; `kind` names the error's type only.
    case unexpected(kind: String)

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
        }
    }

    package var message: String {
        switch self {
        case .interrupted:
            return "its check was interrupted before it finished; nothing was told for it, the next run checks it again."
        case .unexpected(let kind):
            return "its check stopped on an unexpected error (\(kind)); nothing was told for it. Run the command again, and report it if it keeps happening."
        }
    }
}
