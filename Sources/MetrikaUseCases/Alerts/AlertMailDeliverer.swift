import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem

/// `metrika alert --mail`'s deliverer: the alerts through sendmail (`Sendmail`) as `AlertMail`
/// composes them (a day's with a chart of each metric, an hour's as lines).
package struct AlertMailDeliverer: AlertDeliverer {
    var sender: MIMEAddress
    var recipients: [MIMEAddress]
    var sendmail: String
    /// The children's environment (rsvg-convert, sendmail): without the webhook's secret.
    var childEnvironment: [String: String]
    /// Draws the charts, its child (if it runs one) in `childEnvironment`.
    var rasterizer: any ChartRasterizer
    var activity: any Activity
    /// Say "Mailed …" on stderr (a terminal, or --verbose): success is quiet where cron watches.
    var announce: Bool

    package init(
        sender: MIMEAddress, recipients: [MIMEAddress], sendmail: String, childEnvironment: [String: String],
        rasterizer: any ChartRasterizer, activity: any Activity, announce: Bool
    ) {
        self.sender = sender
        self.recipients = recipients
        self.sendmail = sendmail
        self.childEnvironment = childEnvironment
        self.rasterizer = rasterizer.forChildren(in: childEnvironment)
        self.activity = activity
        self.announce = announce
    }

    package func deliver(_ findings: AlertRun.Findings) async throws {
        let message = try await AlertMail.compose(
            findings.all, sender: sender, recipients: recipients, rasterizer: rasterizer, activity: activity)
        try await Sendmail(path: sendmail).deliver(message.bytes(), environment: childEnvironment)
        if announce {
            activity.note("Mailed \(recipients.map(\.address).joined(separator: ", ")): \(message.messageID)")
        }
    }

    package func failureNote(_ failure: any MetrikaFailure) -> String {
        untoldNote(failure)
    }
}
