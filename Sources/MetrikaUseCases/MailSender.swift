import Foundation
import MetrikaModel
import MetrikaRender

/// The From address of `metrika mail` and `metrika alert --mail`: the one given (an option's value),
/// else METRIKA_SENDER, else `metrika <USER@host>` — the user who runs it at this machine, as a cron
/// mail from it would be addressed (`root@vm`). A host name no address can carry (an underscore in
/// it) gives `USER@localhost`.
package enum MailSender {
    package static func address(given: String?, environment: [String: String], hostName: String) throws -> MIMEAddress {
        if let text = given ?? environment["METRIKA_SENDER"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return try MIMEAddress(parsing: text)
        }
        let user = [environment["USER"], environment["LOGNAME"]].compactMap { $0 }.first { !$0.isEmpty } ?? "metrika"
        for candidate in ["\(user)@\(hostName)", "\(user)@localhost", "metrika@\(hostName)"] {
            if let address = try? MIMEAddress(candidate, displayName: "metrika") { return address }
        }
        return try MIMEAddress("metrika@localhost", displayName: "metrika")
    }
}
