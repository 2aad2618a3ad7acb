import MetrikaModel

/// What the services themselves can fail at (a setting's own error is `ConfigError`, a token's
/// `AuthError`): each case carries what its message names.
package enum ServicesError: WordedFailure, Equatable {
    /// An offline run with no history database at `path`.
    case noHistoryOffline(path: String)

    /// What fixes it, as data each entry point words.
    package var fix: SuggestedAction {
        switch self {
        case .noHistoryOffline: .fillHistoryFirst
        }
    }

    package func message(_ naming: ParameterNaming) -> String {
        switch self {
        case .noHistoryOffline(let path):
            "no history yet at \(path): \(naming[.offline]) reads only the history. \(naming.action(fix))"
        }
    }

    package var exitCode: Int32 {
        switch self {
        case .noHistoryOffline: ExitCode.config
        }
    }
}
