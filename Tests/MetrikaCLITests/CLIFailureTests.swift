import Testing

@testable import MetrikaCLI
@testable import MetrikaModel

/// The CLI's own failures: each case's one line and its exit status, derived in one place.
@Suite("CLI failures")
struct CLIFailureTests {
    @Test(arguments: [
        (
            CLIFailure.noCountersOffline(path: "/h.sqlite"), ExitCode.config,
            "the history (/h.sqlite) holds no counter to check offline"
        ),
        (.nothingToPrune(path: "/h.sqlite"), ExitCode.config, "No history database at /h.sqlite: nothing to prune."),
        (.outputIsDirectory(path: "/tmp"), ExitCode.cannotCreate, "cannot write /tmp: is a directory"),
        (
            .outputFolderMissing(path: "/no/x.html", folder: "/no"), ExitCode.cannotCreate,
            "cannot write /no/x.html: there is no directory /no"
        ),
        (
            .noSendmail(path: "/usr/sbin/sendmail"), ExitCode.config,
            "no sendmail program at /usr/sbin/sendmail: install one"
        ),
        (
            .pastedTokenRejected(reason: "401"), ExitCode.noPermission,
            "the API rejected the pasted token (401): it is wrong, expired or revoked"
        ),
        (
            .notSignedOut(
                reason: "offline", kept: "/t.json", manualRevocation: "https://oauth", exitCode: ExitCode.unavailable),
            ExitCode.unavailable,
            "Not signed out: the token was not revoked on the server (offline), so it may still be valid there; the local copy in /t.json is kept."
        ),
        (
            .terminal(errno: 25), ExitCode.ioError,
            "cannot take over the terminal (Inappropriate ioctl for device); run without a terminal"
        ),
        (
            .unexpected(typeName: "Swift.DecodingError"), ExitCode.failure,
            "metrika stopped on an error it does not expect; nothing more is known about it."
        )
    ])
    func eachCaseSaysWhatItCarries(failure: CLIFailure, exitCode: Int32, message: String) {
        #expect(failure.exitCode == exitCode)
        #expect(failure.message.hasPrefix(message), "\(failure.message)")
        #expect(!failure.message.contains("\n"))
    }
}

/// The last resort of `CLI.dispatch`: an error no `catch` knows is never shown as the Swift value's
/// description (issue 32.3: `Error: Stopped(reason: MetrikaAPI.TransportError.connectionLost(…))`).
@Suite("CLI last resort")
struct CLILastResortTests {
    struct Leaky: Error, CustomStringConvertible {
        var secret = "s3cr3t-inside"
        var description: String { "Leaky(secret: \(secret))" }
    }

    @Test func anUnknownErrorIsAGenericSentenceAndItsTypeOnlyUnderVerbose() {
        let quiet = CLI.lastResort(Leaky(), verbose: false)
        #expect(
            quiet
                == "Error: metrika stopped on an error it does not expect; nothing more is known about it. Run the same command with --verbose to see its kind, and report it."
        )
        let verbose = CLI.lastResort(Leaky(), verbose: true)
        #expect(verbose.hasSuffix("(MetrikaCLITests.CLILastResortTests.Leaky)"), "\(verbose)")
        for line in [quiet, verbose] {
            #expect(!line.contains("s3cr3t") && !line.contains("Leaky(") && !line.contains("\n"))
        }
    }
}
