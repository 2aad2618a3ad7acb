/// An error a user can meet: it knows its one-line message (what went wrong and what to do) and the
/// sysexits code the process ends with. The CLI prints `Error: <message>` and exits with `exitCode`.
package protocol MetrikaFailure: Error, Sendable {
    /// The process exit code (see `ExitCode`).
    var exitCode: Int32 { get }
    /// One line that names the problem and what to do about it. Never contains a token.
    var message: String { get }
}

/// The exit codes of metrika (sysexits.h), as documented in README.md.
package enum ExitCode {
    package static let ok: Int32 = 0
    package static let failure: Int32 = 1
    /// The command line was wrong.
    package static let usage: Int32 = 64
    /// The API answered something unreadable.
    package static let dataError: Int32 = 65
    /// The API or the network was unavailable after retries.
    package static let unavailable: Int32 = 69
    /// An output file could not be created.
    package static let cannotCreate: Int32 = 73
    /// Writing the output failed (stdout on a full disk, a closed descriptor): EX_IOERR.
    package static let ioError: Int32 = 74
    /// A quota was exceeded: try later.
    package static let tryLater: Int32 = 75
    /// Not signed in, token invalid, or access denied.
    package static let noPermission: Int32 = 77
    /// Bad configuration (including an unusable history database).
    package static let config: Int32 = 78
    /// The reader of stdout went away (`metrika … | head`): ended quietly with the status a shell
    /// reports for a program killed by SIGPIPE (128 + 13), as `cat` or `grep` would end.
    package static let closedPipe: Int32 = 141
}
