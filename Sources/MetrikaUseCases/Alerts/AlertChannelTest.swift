import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore

/// `metrika alert --test`: one sample alert through each channel, straight to it (not through the
/// outbox: nothing is kept, nothing told), so that a wrong bot token, chat or webhook shows now rather
/// than on the day an alert fires. One result per channel and recipient.
package enum AlertChannelTest {
    /// The sample's one line.
    package static let line =
        "This is a test alert from metrika alert --test: this channel works. Real alerts look like: "
        + "1001 Shop: visits 200 on Sun 2026-11-29, expected ~600 (-67%)."

    /// One channel and recipient, and what became of its sample: nil when delivered.
    package struct Outcome: Sendable {
        package var who: String
        package var failure: (any MetrikaFailure)?
    }

    /// Sends the sample of every deliverer to each of its recipients.
    package static func run(_ deliverers: [any AlertDeliverer], now: Date) async throws -> [Outcome] {
        var outcomes: [Outcome] = []
        for deliverer in deliverers {
            for draft in deliverer.sampleDrafts(now: now) {
                let message = draft.message(batch: "test", sender: deliverer, episodes: [], at: now)
                do {
                    try await deliverer.send(message)
                    outcomes.append(Outcome(who: deliverer.name(of: draft.recipient), failure: nil))
                } catch let failure as any MetrikaFailure {
                    outcomes.append(Outcome(who: deliverer.name(of: draft.recipient), failure: failure))
                }
            }
        }
        return outcomes
    }
}

extension WebhookDeliverer {
    package func sampleDrafts(now: Date) -> [OutboxDraft] {
        let body = AlertText.webhookBody(
            text: "metrika: a test alert. " + AlertChannelTest.line, alerts: [], recovered: [],
            forSlack: webhook.isSlack)
        return [OutboxDraft(recipient: "webhook", kind: "json", body: body)]
    }
}

extension TelegramDeliverer {
    package func sampleDrafts(now: Date) -> [OutboxDraft] {
        let text = "<b>metrika: a test alert</b>\n\n" + TelegramHTML.escape(AlertChannelTest.line)
        return chats.map { OutboxDraft(recipient: $0.value, kind: "text", body: Data(text.utf8)) }
    }
}

extension AlertMailDeliverer {
    package func sampleDrafts(now: Date) -> [OutboxDraft] {
        let text = "metrika: a test alert\n\n\(AlertChannelTest.line)\n"
        let html =
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body><p>"
            + HTMLText.prose(AlertChannelTest.line) + "</p></body></html>\n"
        let message = MIMEMessage(
            from: sender, to: recipients, subject: "metrika: a test alert", date: now,
            seed: UInt64.random(in: 1...UInt64.max),
            body: MIMEPart.report(text: text, html: html, inline: [], attachments: []))
        return [
            OutboxDraft(
                recipient: recipients.map(\.address).joined(separator: ", "), kind: "mime", body: message.bytes())
        ]
    }
}
