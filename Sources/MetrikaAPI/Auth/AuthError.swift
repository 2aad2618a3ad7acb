import MetrikaModel
/// Sign-in problems a user can meet. Messages name the file and the command that fixes it, and
/// never contain a token.
package enum AuthError: MetrikaFailure, Equatable {
    /// No `--token-file`, no METRIKA_TOKEN, no token file.
    case notSignedIn
    /// The token file is missing, unreadable or holds no token.
    case unreadableTokenFile(path: String, reason: String)
    /// The token file may be read or written by group or others (`mode` is its permission bits).
    case insecureTokenFile(path: String, mode: Int)
    /// The token file belongs to another user.
    case foreignTokenFile(path: String)
    /// The token file (or its directory) could not be written or deleted.
    case cannotWriteTokenFile(path: String, reason: String)
    /// Device login needs the user's OAuth app: no client id was given.
    case missingClientID
    /// Device login needs the app's secret too.
    case missingClientSecret
    /// `login --token-stdin` read nothing usable.
    case noTokenOnStandardInput(String)
    /// The user pressed Ctrl-C while metrika waited for the confirmation.
    case loginCancelled
    /// The token (from `source`: METRIKA_TOKEN or a token file) holds characters no token has; a line
    /// break would split the Authorization header, so it is refused rather than sent. `problem` names
    /// the kind of character, never the token.
    case malformedToken(source: String, problem: String)
    /// The profile's token file (`path`) does not exist: that profile was never signed in to.
    case notSignedInProfile(name: String, path: String)
    /// The system keyring could not be used (its tool is missing, no session bus, locked, too slow).
    case keyringUnavailable(keyring: String, reason: String)
    /// The token file `path` points to the keyring, which holds no token for it.
    case keyringEntryMissing(path: String, keyring: String)

    package var exitCode: Int32 {
        switch self {
        case .notSignedIn, .notSignedInProfile, .keyringEntryMissing, .unreadableTokenFile, .insecureTokenFile, .foreignTokenFile: return ExitCode.noPermission
        case .cannotWriteTokenFile: return ExitCode.cannotCreate
        case .missingClientID, .missingClientSecret, .malformedToken: return ExitCode.config
        case .keyringUnavailable: return ExitCode.unavailable
        case .noTokenOnStandardInput: return ExitCode.usage
        case .loginCancelled: return AuthError.cancelledExitCode
        }
    }

    /// 128 + SIGINT, what shells report for a program ended by Ctrl-C.
    package static let cancelledExitCode: Int32 = 130

    package var message: String {
        switch self {
        case .notSignedIn:
            return "Not signed in: no token found. Run `metrika login` (or set METRIKA_TOKEN) first."
        case .unreadableTokenFile(let path, let reason):
            return "Cannot use the token file \(path): \(reason). Run `metrika login` to write a new one."
        case .insecureTokenFile(let path, let mode):
            return "The token file \(path) is accessible by others (mode \(Self.octal(mode))), so it is not used. "
                + "Make it private with `chmod 600 \(path)`, or run `metrika logout` and `metrika login` to get a new token."
        case .foreignTokenFile(let path):
            return "The token file \(path) belongs to another user, so it is not used. Run `metrika login` to write your own."
        case .cannotWriteTokenFile(let path, let reason):
            return "Cannot write the token file \(path): \(reason)."
        case .missingClientID:
            return "Device login needs your OAuth app's client id: pass --client-id, set METRIKA_CLIENT_ID, or put \"client_id\" in the config file (see docs/auth.md). "
                + "Register an app with the metrika:read scope at https://oauth.yandex.ru/client/new, or use `metrika login --token-stdin`."
        case .missingClientSecret:
            return "Device login needs your OAuth app's client secret: pass --client-secret, set METRIKA_CLIENT_SECRET, or put \"client_secret\" in the config file (see docs/auth.md)."
        case .noTokenOnStandardInput(let reason):
            return "No token on standard input: \(reason). Pipe it in, e.g. `pbpaste | metrika login --token-stdin`, or type it and press Ctrl-D."
        case .loginCancelled:
            return "Login cancelled."
        case .malformedToken(let source, let problem):
            let fix = source == "METRIKA_TOKEN" ? "Set METRIKA_TOKEN to the token alone, on one line" : "Run `metrika login` to write a new one, or fix the file"
            return "The token in \(source) holds \(problem), so it is not used (it would not reach the API intact). \(fix)."
        case .notSignedInProfile(let name, let path):
            return "Not signed in for profile '\(name)': there is no token file \(path). Run `metrika login --profile \(name)` first."
        case .keyringUnavailable(let keyring, let reason):
            return "Cannot use \(keyring): \(reason)."
        case .keyringEntryMissing(let path, let keyring):
            return "The token file \(path) says the token is in \(keyring), but it holds none for it. Run `metrika login --store keyring` to sign in again (or `metrika logout` to forget it)."
        }
    }

    static func octal(_ mode: Int) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
