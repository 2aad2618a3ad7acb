import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem
import MetrikaUseCases

/// The mail options of `metrika mail` and `metrika alert --mail`: `--sender` and `--sendmail`, read
/// into the From address (`MailSender`) and the sendmail program (`Sendmail`, which delivers).
enum MailOptions {
    /// `--sender` and `--sendmail`, as `mail` and `alert --mail` take them.
    static var senderSpec: OptionSpec { Option.sender.spec }
    static var sendmailSpec: OptionSpec { Option.sendmail.spec }

    /// `--sender`, else METRIKA_SENDER, else `metrika <USER@host>`.
    static func senderAddress(_ options: ParsedOptions, context: CLIContext) throws -> MIMEAddress {
        try MailSender.address(
            given: options[.sender], environment: context.environment, hostName: ProcessInfo.processInfo.hostName)
    }

    /// `--sendmail`, else METRIKA_SENDMAIL, else /usr/sbin/sendmail.
    static func sendmailPath(_ options: ParsedOptions, environment: [String: String]) -> String {
        Sendmail.path(given: options[.sendmail], environment: environment)
    }

    /// Refuses (exit 78) a sendmail that is not there, before any work is done.
    static func checkSendmail(_ sendmail: String) throws {
        guard Sendmail(path: sendmail).isInstalled else {
            throw CLIFailure.noSendmail(path: sendmail)
        }
    }
}

extension Option where Value == String? {
    /// `--sender ADDR`: the From address (`mail`, `alert --mail`).
    static var sender: Option<String?> {
        .text("sender", value: "ADDR", help: "From address of the mail (default: METRIKA_SENDER, else USER@host)")
    }
    /// `--sendmail PATH`: the sendmail program (`mail`, `alert --mail`).
    static var sendmail: Option<String?> {
        .text(
            "sendmail", value: "PATH", help: "The sendmail program (default METRIKA_SENDMAIL, else /usr/sbin/sendmail)")
    }
}
