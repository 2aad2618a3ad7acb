import MetrikaAPI
import MetrikaModel
import MetrikaStore
import MetrikaUseCases

/// The sentences of failures that a model reads better whole than as their problem and the MCP
/// naming's action (`ParameterNaming.mcp`): the token's, the API's and the alert run's, made from the
/// cases' data — a tool, an argument, or what to ask the user. The rest are worded by the naming.
enum MCPFailureWords {
    /// What to tell the user when the server's token cannot be used: signing in happens where the
    /// server runs, not through a tool.
    static let signIn =
        "ask the user to sign in to Yandex.Metrika again on the machine that runs this server (or give it another token) and restart the server"

    /// The sentence of `error` for a model; nil when its own message is already fit.
    static func sentence(_ error: any Error) -> String? {
        switch error {
        case let failure as APIError: return sentence(failure)
        case let failure as AuthError: return sentence(failure)
        case let failure as StoreError:
            return "\(failure.problem). Ask the user to fix it on the machine that runs this server; "
                + "meanwhile get_report's dimension reports (which do not use it) still work."
        case let failure as AlertCheckError: return sentence(failure)
        default: return nil
        }
    }

    /// An error that is no `MetrikaFailure`, in the MCP naming's words.
    static var unexpected: String { UnexpectedFailure(typeName: "").message(.mcp) }

    static func sentence(_ failure: APIError) -> String? {
        switch failure {
        case .unauthorized(let detail):
            return "The API did not accept the request as signed in (\(detail)): \(signIn)."
        case .invalidToken:
            return "The API rejected the server's token (invalid_token): it is wrong, expired or revoked; \(signIn)."
        case .accessDenied(let detail, let id):
            let counter = id.map { "counter \($0)" } ?? "this counter"
            let named =
                id.map {
                    detail.contains(String($0))
                        ? "Access denied: \(detail)" : "Access denied to counter \($0): \(detail)"
                } ?? "Access denied: \(detail)"
            return
                "\(named) The token this server runs with cannot read \(counter): call list_counters for the counters it can read, "
                + "or ask the user for access to \(counter) (its owner grants it in Metrika's access settings)."
        case .queryTooComplicated(let message):
            return
                "The API says the query is too complicated (query_error: \(message)). Ask for fewer days (from/to or period), fewer dimensions, or accuracy low."
        case .unreadable(let detail):
            return
                "The API answered something unreadable: \(detail). Try the call once more; if it persists, tell the user."
        default:
            return nil
        }
    }

    /// The alert run's give-up (`ConnectionGiveUp`: counters in a row that could not reach the API,
    /// while reading named counters or checking them) as `check_alerts` stopped; nil for the others.
    static func sentence(_ failure: AlertCheckError) -> String? {
        guard case .hostGone(let host, let limit, let reason, let checked, let unchecked) = failure else { return nil }
        let total = checked.count + unchecked.count
        return "\(host) stopped answering (\(limit) counters in a row: \(reason)), so check_alerts stopped: "
            + "\(checked.count) of \(total) counter\(total == 1 ? "" : "s") checked\(AlertCheckError.ids(checked)), \(unchecked.count) not checked\(AlertCheckError.ids(unchecked)). "
            + "Call check_alerts again later for the counters not checked; if it keeps failing, tell the user that the machine that runs this server cannot reach \(host)."
    }

    static func sentence(_ failure: AuthError) -> String {
        switch failure {
        case .notSignedIn, .notSignedInProfile:
            return "This server is not signed in to Yandex.Metrika (it has no token): \(signIn)."
        case .keyringUnavailable, .keyringEntryMissing, .keyringEntryUnreadable, .keyringToolMissing:
            return "This server cannot read its token from the system keyring: \(signIn)."
        case .malformedToken(let source, let problem):
            return "The server's token (from \(source)) holds \(problem), so it is not sent: \(signIn)."
        default:
            return "This server cannot use its token file: \(signIn)."
        }
    }
}
