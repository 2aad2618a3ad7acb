import MetrikaModel

/// What the services themselves can fail at (a setting's own error is `ConfigError`, a token's
/// `AuthError`): each case carries what its message names.
package enum ServicesError: MetrikaFailure, Equatable {
    /// An offline run with no history database at `path`.
    case noHistoryOffline(path: String)

    package var message: String {
        switch self {
        case .noHistoryOffline(let path):
            "no history yet at \(path): --offline reads only the history. "
                + "Fill it with `metrika sync --counter ID` (or run without --offline), then try again."
        }
    }

    package var exitCode: Int32 {
        switch self {
        case .noHistoryOffline: ExitCode.config
        }
    }
}
