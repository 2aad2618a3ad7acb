import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem
import MetrikaUseCases

/// `metrika alert --mail`'s deliverer: the alerts through sendmail (`Sendmail`) as `AlertMail`
/// composes them (a day's with a chart of each metric, an hour's as lines).
struct AlertMailDeliverer: AlertDeliverer {
    var sender: MIMEAddress
    var recipients: [MIMEAddress]
    var sendmail: String
    /// The children's environment (rsvg-convert, sendmail): without the webhook's secret.
    var childEnvironment: [String: String]
    var context: CLIContext
    /// Say "Mailed …" on stderr (a terminal, or --verbose): success is quiet where cron watches.
    var announce: Bool

    func deliver(_ findings: AlertRun.Findings) async throws {
        var rasterizer = context.rasterizer
        if let live = rasterizer as? RSVGConvertRasterizer {
            var scrubbed = RSVGConvertRasterizer(environment: childEnvironment)
            scrubbed.timeout = live.timeout
            scrubbed.maximumOutput = live.maximumOutput
            rasterizer = scrubbed
        }
        let message = try await AlertMail.compose(findings.all, sender: sender, recipients: recipients, rasterizer: rasterizer,
                                                  activity: context)
        try await Sendmail(path: sendmail).deliver(message.bytes(), environment: childEnvironment)
        if announce { context.note("Mailed \(recipients.map(\.address).joined(separator: ", ")): \(message.messageID)") }
    }

    func failureNote(_ failure: any MetrikaFailure) -> String {
        untoldNote(failure)
    }
}
