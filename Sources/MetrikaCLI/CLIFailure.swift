import Foundation
import MetrikaModel

/// What the CLI itself can fail at, beside a wrong command line (`UsageError`): a history that is
/// not there to read, a file that cannot be written, sendmail, a pasted token the API refuses. Each
/// case carries what the message names; the message and the exit status are derived here, once.
enum CLIFailure: MetrikaFailure, Equatable {
    /// `alert --offline` without `--counter`, and the history at `path` knows no counter.
    case noCountersOffline(path: String)
    /// `cache prune` with no history database at `path`.
    case nothingToPrune(path: String)
    /// An `--output` file that cannot be created: `path` is a directory.
    case outputIsDirectory(path: String)
    /// An `--output` file that cannot be created: its `folder` does not exist.
    case outputFolderMissing(path: String, folder: String)
    /// No sendmail program at `path`.
    case noSendmail(path: String)
    /// `login --token-stdin`: the API rejected the pasted token, for `reason`.
    case pastedTokenRejected(reason: String)
    /// `logout`: the token was not revoked, for `reason`; the local copy in `kept` stays.
    case notSignedOut(reason: String, kept: String, manualRevocation: String, exitCode: Int32)
    /// `alert --forget ID`: no open alert has the id `id` (exit 64, without the usage lines).
    case unknownAlert(id: Int)
    /// `live`: the terminal refused raw mode (tcgetattr/tcsetattr failed with `errno`); nothing was changed.
    case terminal(errno: Int32)
    /// An error that is no `MetrikaFailure` (nothing metrika expects), of Swift type `typeName`: said
    /// in a generic sentence (`UnexpectedFailure`), never in the value's own description.
    case unexpected(typeName: String)

    var message: String {
        switch self {
        case .noCountersOffline(let path):
            "the history (\(path)) holds no counter to check offline; run metrika sync first, or name --counter"
        case .nothingToPrune(let path):
            "No history database at \(path): nothing to prune."
        case .outputIsDirectory(let path):
            "cannot write \(path): is a directory"
        case .outputFolderMissing(let path, let folder):
            "cannot write \(path): there is no directory \(folder)"
        case .noSendmail(let path):
            "no sendmail program at \(path): install one (e.g. Debian's msmtp-mta) or name it with --sendmail or METRIKA_SENDMAIL"
        case .pastedTokenRejected(let reason):
            "the API rejected the pasted token (\(reason)): it is wrong, expired or revoked; nothing was stored. Copy a fresh one (docs/auth.md says where), or sign in with `metrika login` (device flow)."
        case .notSignedOut(let reason, let kept, let manualRevocation, _):
            "Not signed out: the token was not revoked on the server (\(reason)), so it may still be valid there; "
                + "the local copy in \(kept) is kept. Fix that and run `metrika logout` again, or run `metrika logout --local-only` "
                + "to delete only the local copy (then revoke the token at \(manualRevocation))."
        case .unknownAlert(let id):
            "no open alert has the id \(id); run `metrika alert --status` for the open alerts and their ids"
        case .terminal(let number):
            "cannot take over the terminal (\(String(cString: strerror(number)))); run without a terminal for one plain snapshot: metrika live … | cat"
        case .unexpected(let typeName):
            UnexpectedFailure(typeName: typeName).message(.cli)
        }
    }

    var exitCode: Int32 {
        switch self {
        case .noCountersOffline, .nothingToPrune, .noSendmail: ExitCode.config
        case .outputIsDirectory, .outputFolderMissing: ExitCode.cannotCreate
        case .pastedTokenRejected: ExitCode.noPermission
        case .unknownAlert: ExitCode.usage
        case .notSignedOut(_, _, _, let exitCode): exitCode
        case .terminal: ExitCode.ioError
        case .unexpected: ExitCode.failure
        }
    }
}
