import MetrikaModel
/// What the OAuth server (or the way to it) answered instead of a token. Messages say what to do and
/// never contain a token, a code or a secret.
package enum OAuthError: MetrikaFailure, Equatable {
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
        case .authorizationPending, .slowDown, .codeExpired, .accessDenied, .invalidGrant, .refused: return ExitCode.noPermission
        case .invalidClient: return ExitCode.config
        case .unavailable: return ExitCode.unavailable
        case .unreadable: return ExitCode.dataError
        }
    }

    package var message: String {
        switch self {
        case .authorizationPending:
            return "The sign-in was not confirmed yet."
        case .slowDown:
            return "The OAuth server asked to poll less often."
        case .codeExpired:
            return "The code expired before the sign-in was confirmed. Run `metrika login` again and confirm within the time shown."
        case .accessDenied:
            return "Sign-in was refused on the confirmation page. Run `metrika login` again to retry."
        case .invalidClient(let detail):
            return "The OAuth server rejected the app's client id or secret (invalid_client\(Self.suffix(detail))). "
                + "Check --client-id/--client-secret, METRIKA_CLIENT_ID/METRIKA_CLIENT_SECRET or the config file."
        case .invalidGrant(let detail):
            return "The OAuth server rejected the grant (invalid_grant\(Self.suffix(detail))): it expired or was revoked. Sign in again with `metrika login`."
        case .refused(let code, let description):
            return "The OAuth server refused the request (\(code)\(Self.suffix(description))). Run `metrika login` again; if it persists, run with --verbose."
        case .unavailable(let detail):
            return "The OAuth server is unavailable: \(detail). Check the network or METRIKA_OAUTH_URL, and try again later."
        case .unreadable(let detail):
            return "The OAuth server answered something unreadable: \(detail)."
        }
    }

    private static func suffix(_ detail: String) -> String {
        detail.isEmpty ? "" : ": " + detail
    }
}
