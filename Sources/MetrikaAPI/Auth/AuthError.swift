import MetrikaModel

/// Sign-in problems a user can meet. Messages name the file, and the action that fixes it as the
/// entry point words it (`fix`); they never contain a token.
package enum AuthError: WordedFailure, Equatable {
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
    /// The keyring's tool (secret-tool) is not installed; `instead` is what to do instead, nil for
    /// the token's private file.
    case keyringToolMissing(keyring: String, instead: String?)
    /// The keyring's entry for the token file `path` holds something that is no stored token.
    case keyringEntryUnreadable(path: String, keyring: String)

    package var exitCode: Int32 {
        switch self {
        case .notSignedIn, .notSignedInProfile, .keyringEntryMissing, .unreadableTokenFile, .insecureTokenFile,
            .foreignTokenFile:
            return ExitCode.noPermission
        case .cannotWriteTokenFile: return ExitCode.cannotCreate
        case .missingClientID, .missingClientSecret, .malformedToken: return ExitCode.config
        case .keyringUnavailable, .keyringEntryUnreadable, .keyringToolMissing: return ExitCode.unavailable
        case .noTokenOnStandardInput: return ExitCode.usage
        case .loginCancelled: return AuthError.cancelledExitCode
        }
    }

    /// 128 + SIGINT, what shells report for a program ended by Ctrl-C.
    package static let cancelledExitCode: Int32 = 130

    /// What is wrong, without what to do about it.
    package var problem: String {
        switch self {
        case .notSignedIn:
            return "Not signed in: no token found."
        case .unreadableTokenFile(let path, let reason):
            return "Cannot use the token file \(path): \(reason)."
        case .insecureTokenFile(let path, let mode):
            return "The token file \(path) is accessible by others (mode \(Self.octal(mode))), so it is not used."
        case .foreignTokenFile(let path):
            return "The token file \(path) belongs to another user, so it is not used."
        case .cannotWriteTokenFile(let path, let reason):
            return "Cannot write the token file \(path): \(reason)."
        case .missingClientID:
            return "Device login needs your OAuth app's client id:"
        case .missingClientSecret:
            return "Device login needs your OAuth app's client secret:"
        case .noTokenOnStandardInput(let reason):
            return "No token on standard input: \(reason)."
        case .loginCancelled:
            return "Login cancelled."
        case .malformedToken(let source, let problem):
            return "The token in \(source) holds \(problem), so it is not used (it would not reach the API intact)."
        case .notSignedInProfile(let name, let path):
            return "Not signed in for profile '\(name)': there is no token file \(path)."
        case .keyringUnavailable(let keyring, let reason):
            return "Cannot use \(keyring): \(reason)."
        case .keyringEntryMissing(let path, let keyring):
            return "The token file \(path) says the token is in \(keyring), but it holds none for it."
        case .keyringEntryUnreadable(let path, let keyring):
            return "Cannot use \(keyring): its entry for \(path) holds no token;"
        case .keyringToolMissing(let keyring, _):
            return "Cannot use \(keyring): secret-tool is not installed."
        }
    }

    /// What would fix it, when the user can.
    package var fix: SuggestedAction? {
        switch self {
        case .notSignedIn: return .signIn
        case .unreadableTokenFile: return .replaceTokenFile
        case .insecureTokenFile(let path, _): return .protectTokenFile(path: path)
        case .foreignTokenFile: return .replaceForeignTokenFile
        case .missingClientID: return .giveClientID
        case .missingClientSecret: return .giveClientSecret
        case .noTokenOnStandardInput: return .pipeToken
        case .malformedToken(let source, _): return .fixToken(source: source)
        case .notSignedInProfile(let name, _): return .signInProfile(name)
        case .keyringEntryMissing: return .signInToKeyring
        case .keyringEntryUnreadable: return .storeInKeyringAgain
        case .cannotWriteTokenFile, .loginCancelled, .keyringUnavailable, .keyringToolMissing: return nil
        }
    }

    package func message(_ naming: ParameterNaming) -> String {
        if case .keyringToolMissing(let keyring, let instead) = self {
            return
                "Cannot use \(keyring): secret-tool is not installed (Debian/Ubuntu: apt-get install libsecret-tools); "
                + "or \(instead ?? naming.action(.keepTokenInFile))."
        }
        return fix.map { "\(problem) \(naming.action($0))" } ?? problem
    }

    static func octal(_ mode: Int) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
