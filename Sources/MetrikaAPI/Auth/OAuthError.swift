import MetrikaModel

/// What the OAuth server (or the way to it) answered instead of a token. Messages say what to do (as
/// the entry point words `fix`) and never contain a token, a code or a secret.
package enum OAuthError: WordedFailure, Equatable {
    /// Device flow: the user has not confirmed yet (keep polling).
    case authorizationPending
    /// Device flow: poll less often (add 5 s to the interval).
    case slowDown
    /// The device code expired before the user confirmed it.
    case codeExpired
    /// The user refused access on the verification page.
    case accessDenied
    /// The OAuth app's client id or secret was rejected.
    case invalidClient(String)
    /// The refresh token (or device code) was rejected: revoked, expired, or issued to another app.
    case invalidGrant(String)
    /// Any other documented error code with its description.
    case refused(code: String, description: String)
    /// No answer, or a 5xx: the OAuth server or the network is unavailable.
    case unavailable(String)
    /// An answer that is not the JSON OAuth documents.
    case unreadable(String)

    package var exitCode: Int32 {
        switch self {
        case .authorizationPending, .slowDown, .codeExpired, .accessDenied, .invalidGrant, .refused:
            return ExitCode.noPermission
        case .invalidClient: return ExitCode.config
        case .unavailable: return ExitCode.unavailable
        case .unreadable: return ExitCode.dataError
        }
    }

    /// What is wrong, without what to do about it.
    package var problem: String {
        switch self {
        case .authorizationPending:
            return "The sign-in was not confirmed yet."
        case .slowDown:
            return "The OAuth server asked to poll less often."
        case .codeExpired:
            return "The code expired before the sign-in was confirmed."
        case .accessDenied:
            return "Sign-in was refused on the confirmation page."
        case .invalidClient(let detail):
            return "The OAuth server rejected the app's client id or secret (invalid_client\(Self.suffix(detail)))."
        case .invalidGrant(let detail):
            return
                "The OAuth server rejected the grant (invalid_grant\(Self.suffix(detail))): it expired or was revoked."
        case .refused(let code, let description):
            return "The OAuth server refused the request (\(code)\(Self.suffix(description)))."
        case .unavailable(let detail):
            return "The OAuth server is unavailable: \(detail)."
        case .unreadable(let detail):
            return "The OAuth server answered something unreadable: \(detail)."
        }
    }

    /// What would fix it, when the user can.
    package var fix: SuggestedAction? {
        switch self {
        case .codeExpired: return .signInSooner
        case .accessDenied: return .retrySignIn
        case .invalidClient: return .checkClientCredentials
        case .invalidGrant: return .signInAgain
        case .refused: return .retrySignInThenDetails
        case .unavailable: return .checkConnection(.oauth)
        case .authorizationPending, .slowDown, .unreadable: return nil
        }
    }

    package func message(_ naming: ParameterNaming) -> String {
        fix.map { "\(problem) \(naming.action($0))" } ?? problem
    }

    private static func suffix(_ detail: String) -> String {
        detail.isEmpty ? "" : ": " + detail
    }
}
