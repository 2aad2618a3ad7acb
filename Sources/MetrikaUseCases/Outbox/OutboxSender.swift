import Foundation
import MetrikaModel
import MetrikaStore

/// One way out of the outbox (a Telegram bot, a webhook, sendmail): sends one message of its route
/// and says what a failure means for the recipient.
package protocol OutboxSender: Sendable {
    var channel: OutboxMessage.Channel { get }
    /// The way there without its secret (`OutboxMessage.route`): only messages of this route are its.
    var route: String { get }
    /// Sends one message; returns once the channel accepted it. A `MetrikaFailure` is judged by `verdict`.
    func send(_ message: OutboxMessage) async throws
    /// What a failure of `send` means.
    func verdict(_ failure: any MetrikaFailure) -> DeliveryVerdict
    /// The recipient in a note: `Telegram chat 111`, `the webhook https://hooks.slack.com/…`.
    func name(of recipient: String) -> String
}

extension OutboxSender {
    package func verdict(_ failure: any MetrikaFailure) -> DeliveryVerdict { .transient }
}

/// What a failed send means for its recipient.
package enum DeliveryVerdict: Sendable, Equatable {
    /// Tried again on later runs, with backoff, for `OutboxDelivery.giveUpAfter`.
    case transient
    /// Refused for good (chat not found, bot blocked, 403, 404): said once, given up.
    case refused
    /// Nothing of this route can go (a bot token Telegram refuses): every message stays pending.
    case routeDown
}

/// One message to one recipient, before it is queued: what a deliverer drafts.
package struct OutboxDraft: Sendable, Equatable {
    package var recipient: String
    package var kind: String
    package var body: Data
    package var fileName: String?
    package var caption: String?

    package init(recipient: String, kind: String, body: Data, fileName: String? = nil, caption: String? = nil) {
        self.recipient = recipient
        self.kind = kind
        self.body = body
        self.fileName = fileName
        self.caption = caption
    }

    /// The message it becomes in `batch`, from `sender`, telling `episodes`.
    package func message(batch: String, sender: any OutboxSender, episodes: [Int], at date: Date) -> OutboxMessage {
        OutboxMessage(
            batch: batch, channel: sender.channel, route: sender.route, recipient: recipient, kind: kind, body: body,
            fileName: fileName, caption: caption, episodes: episodes, createdAt: date)
    }
}
