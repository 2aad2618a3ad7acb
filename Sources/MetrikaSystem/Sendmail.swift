import Foundation
import MetrikaModel

/// The sendmail program of `metrika mail` and `metrika alert --mail`: a message piped to
/// `sendmail -t -i` through `ChildProcess` (recipients from the headers; a line with a lone dot is not
/// the end), awaited without holding a thread.
package struct Sendmail: Sendable {
    /// Where sendmail usually is.
    package static let defaultPath = "/usr/sbin/sendmail"
    /// Seconds sendmail may take to accept the message (msmtp talks to the SMTP server meanwhile).
    package static let defaultTimeout: Double = 300

    /// The program (a path).
    package var path: String
    /// Seconds it may take before it is stopped.
    package var timeout: Double

    package init(path: String, timeout: Double = Sendmail.defaultTimeout) {
        self.path = path
        self.timeout = timeout
    }

    /// The program to run: `given` (an option's value), else METRIKA_SENDMAIL, else /usr/sbin/sendmail.
    package static func path(given: String?, environment: [String: String]) -> String {
        given ?? environment["METRIKA_SENDMAIL"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultPath
    }

    /// True when there is a program to run at `path`.
    package var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Pipes `message` to the program. One that cannot start, outlives its time or exits non-zero is a
    /// `SendmailError` (exit 69) with its own words. `environment` reaches it without any METRIKA_
    /// variable (ChildProcess's rule).
    package func deliver(_ message: Data, environment: [String: String]) async throws(SendmailError) {
        let child = ChildProcess(
            program: path, arguments: ["-t", "-i"], environment: environment,
            timeout: timeout, maximumOutput: 64 << 10, maximumErrors: 64 << 10)
        let result: ChildProcess.Result
        do {
            result = try await child.run(input: message)
        } catch {
            throw .didNotStart(path: path, reason: error.reason)
        }
        if result.timedOut {
            throw .timedOut(path: path, seconds: Int(timeout))
        }
        guard result.succeeded else {
            throw .failed(
                path: path, ending: result.ending, said: ChildProcess.summary(of: result.errors + result.output))
        }
    }
}

/// Why a message did not go out through sendmail: exit 69 (a program metrika relies on failed).
package enum SendmailError: MetrikaFailure, Equatable {
    /// sendmail at `path` could not be started, for `reason`.
    case didNotStart(path: String, reason: String)
    /// sendmail at `path` ran longer than `seconds` and was stopped.
    case timedOut(path: String, seconds: Int)
    /// sendmail at `path` ended with `ending` (`exit 1`, `signal 9`), saying `said`.
    case failed(path: String, ending: String, said: String)

    package var message: String {
        switch self {
        case .didNotStart(let path, let reason):
            "cannot start \(path): \(reason)"
        case .timedOut(let path, let seconds):
            "\(path) did not finish within \(seconds) s and was stopped; the mail may not have been sent"
        case .failed(let path, let ending, let said):
            "\(path) failed (\(ending))\(said.isEmpty ? "" : ": " + said); the mail was not sent"
        }
    }

    package var exitCode: Int32 { ExitCode.unavailable }
}
