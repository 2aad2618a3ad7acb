import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem

/// The one sendmail path of `metrika mail` and `metrika alert --mail`: the sender address, the
/// sendmail program, and piping a message to it through `ChildProcess`.
enum MailDelivery {
    /// `--sender` and `--sendmail`, as `mail` and `alert --mail` take them.
    static var senderSpec: OptionSpec { Option.sender.spec }
    static var sendmailSpec: OptionSpec { Option.sendmail.spec }

    static let defaultSendmail = "/usr/sbin/sendmail"

    /// Seconds sendmail may take to accept the message (msmtp talks to the SMTP server meanwhile).
    static let sendmailTimeout: Double = 300

    // MARK: - Addresses

    /// `--sender`, else METRIKA_SENDER, else `metrika <USER@host>`.
    static func senderAddress(_ options: ParsedOptions, context: CLIContext) throws -> MIMEAddress {
        if let text = options[.sender] ?? context.environment["METRIKA_SENDER"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return try MIMEAddress(parsing: text)
        }
        let user = context.environment["USER"] ?? context.environment["LOGNAME"] ?? "metrika"
        let host = ProcessInfo.processInfo.hostName
        if let address = try? MIMEAddress("\(user)@\(host)", displayName: "metrika") { return address }
        return try MIMEAddress("metrika@localhost.localdomain", displayName: "metrika")
    }

    // MARK: - Delivery

    /// `--sendmail`, else METRIKA_SENDMAIL, else /usr/sbin/sendmail.
    static func sendmailPath(_ options: ParsedOptions, environment: [String: String]) -> String {
        options[.sendmail] ?? environment["METRIKA_SENDMAIL"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultSendmail
    }

    /// Refuses (exit 78) a sendmail that is not there, before any work is done.
    static func checkSendmail(_ sendmail: String) throws {
        guard FileManager.default.isExecutableFile(atPath: sendmail) else {
            throw CLIFailure.noSendmail(path: sendmail)
        }
    }

    /// Pipes the message to `sendmail -t -i` (recipients from the headers; a line with a lone dot is
    /// not the end). A sendmail that cannot start or exits non-zero is exit 69 with its own words.
    static func deliver(_ message: Data, sendmail: String, environment: [String: String], timeout: Double = sendmailTimeout) throws {
        // ChildProcess keeps metrika's token and passwords out of sendmail's environment.
        let child = ChildProcess(
            program: sendmail, arguments: ["-t", "-i"],
            environment: environment,
            timeout: timeout, maximumOutput: 64 << 10, maximumErrors: 64 << 10)
        let result: ChildProcess.Result
        do {
            result = try child.run(input: message)
        } catch {
            throw CLIFailure.sendmailDidNotStart(path: sendmail, reason: error.reason)
        }
        if result.timedOut {
            throw CLIFailure.sendmailTimedOut(path: sendmail, seconds: Int(timeout))
        }
        guard result.succeeded else {
            let said = ChildProcess.summary(of: result.errors + result.output)
            throw CLIFailure.sendmailFailed(path: sendmail, ending: result.ending, said: said)
        }
    }
}

extension Option where Value == String? {
    /// `--sender ADDR`: the From address (`mail`, `alert --mail`).
    static var sender: Option<String?> { .text("sender", value: "ADDR", help: "From address of the mail (default: METRIKA_SENDER, else USER@host)") }
    /// `--sendmail PATH`: the sendmail program (`mail`, `alert --mail`).
    static var sendmail: Option<String?> { .text("sendmail", value: "PATH", help: "The sendmail program (default METRIKA_SENDMAIL, else /usr/sbin/sendmail)") }
}
