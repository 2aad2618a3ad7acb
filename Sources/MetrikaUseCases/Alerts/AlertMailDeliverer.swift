import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore
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

    package init(
        sender: MIMEAddress, recipients: [MIMEAddress], sendmail: String, childEnvironment: [String: String],
        rasterizer: any ChartRasterizer, activity: any Activity
    ) {
        self.sender = sender
        self.recipients = recipients
        self.sendmail = sendmail
        self.childEnvironment = childEnvironment
        self.rasterizer = rasterizer.forChildren(in: childEnvironment)
        self.activity = activity
    }

    package var channel: OutboxMessage.Channel { .mail }
    /// Any sendmail: a run that mails sends what an earlier one left (its recipients are in the message).
    package var route: String { "sendmail" }

    package func prepare(_ findings: AlertRun.Findings) async throws -> AlertDrafting {
        let pngs = try await AlertMail.pngCharts(findings.all, rasterizer: rasterizer, activity: activity)
        let sender = self.sender
        let recipients = self.recipients
        let now = activity.now()
        return { findings in
            let message = AlertMail.compose(findings.all, sender: sender, recipients: recipients, pngs: pngs, now: now)
            return [
                OutboxDraft(
                    recipient: recipients.map(\.address).joined(separator: ", "), kind: "mime", body: message.bytes())
            ]
        }
    }

    package func send(_ message: OutboxMessage) async throws {
        try await Sendmail(path: sendmail).deliver(message.body, environment: childEnvironment)
    }

    package func name(of recipient: String) -> String { recipient }
}
