import Foundation

/// One message to one recipient of one channel, as the outbox keeps it (table `outbox`): written
/// before it is sent, marked delivered only once the channel accepted it. A message is never sent
/// twice unless the process died between the channel's acceptance and its record (at least once).
package struct OutboxMessage: Sendable, Equatable {
    /// The ways out.
    package enum Channel: String, Sendable, Equatable, CaseIterable {
        case telegram, webhook, mail
    }

    /// Where a message stands.
    package enum State: String, Sendable, Equatable {
        /// Not yet accepted: the next run that can reach its route sends it (once due).
        case pending
        /// Accepted by the channel.
        case delivered
        /// Refused for good (chat not found, bot blocked, 403, 404): said once, never tried again.
        case refused
        /// Failed for longer than the outbox retries (`HistoryStore.outboxGiveUpAfter`): said once.
        case expired
    }

    /// Its id in the outbox; nil until queued.
    package var id: Int?
    /// What it belongs to: one run's news (`alert:<uuid>`) or one digest (`digest:<key>`).
    package var batch: String
    package var channel: Channel
    /// The way there, never a secret (the sender's: today `telegram`, `webhook`, `sendmail`, so that a
    /// run whose bot token, webhook URL or sendmail was fixed sends what an earlier run could not).
    package var route: String
    /// Who gets it: a chat id, `webhook`, a mail's addresses (the mail's own header names them).
    package var recipient: String
    /// What its body is (`text`, `photo`, `json`, `mime`): the sender's to read.
    package var kind: String
    package var body: Data
    package var fileName: String?
    package var caption: String?
    /// The alert episodes it tells (`alert --status` says which are not yet delivered).
    package var episodes: [Int]
    package var createdAt: Date
    package var state: State
    /// Tries that failed.
    package var attempts: Int
    /// Not sent again before this.
    package var nextAttemptAt: Date
    /// The last failure's one line.
    package var lastError: String?

    package init(
        id: Int? = nil, batch: String, channel: Channel, route: String, recipient: String, kind: String, body: Data,
        fileName: String? = nil, caption: String? = nil, episodes: [Int] = [], createdAt: Date,
        state: State = .pending, attempts: Int = 0, nextAttemptAt: Date? = nil, lastError: String? = nil
    ) {
        self.id = id
        self.batch = batch
        self.channel = channel
        self.route = route
        self.recipient = recipient
        self.kind = kind
        self.body = body
        self.fileName = fileName
        self.caption = caption
        self.episodes = episodes
        self.createdAt = createdAt
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt ?? createdAt
        self.lastError = lastError
    }

    /// The recipient's key: messages to one recipient of one route go in the order they were queued.
    package var address: OutboxAddress { OutboxAddress(channel: channel, route: route, recipient: recipient) }
}

/// One recipient of one route of one channel.
package struct OutboxAddress: Sendable, Hashable {
    package var channel: OutboxMessage.Channel
    package var route: String
    package var recipient: String

    package init(channel: OutboxMessage.Channel, route: String, recipient: String) {
        self.channel = channel
        self.route = route
        self.recipient = recipient
    }
}

/// What became of one message sent from the outbox (`HistoryStore.settleOutbox`).
package enum OutboxSettlement: Sendable, Equatable {
    case delivered
    /// Failed for now: tried again from `retryAt` (after `giveUpAt`: expired instead).
    case failed(error: String, retryAt: Date)
    /// Refused for good.
    case refused(error: String)
    /// Not tried (a stop, a failure before it for the same recipient): its lease is let go.
    case untried
}

/// The outbox's pending messages, for `alert --status` and a run's closing note.
package struct OutboxPending: Sendable, Equatable {
    package var address: OutboxAddress
    package var count: Int
    package var oldest: Date
    package var lastError: String?
    /// Episodes these messages tell.
    package var episodes: Set<Int>
}

/// One message still to deliver, as `alert --status --json` lists it (`HistoryStore.pendingOutboxMessages`).
package struct OutboxWaiting: Sendable, Equatable {
    package var channel: OutboxMessage.Channel
    /// A chat id, a webhook URL, a mail address.
    package var recipient: String
    /// What the message is (`text`, `photo`, the webhook's `body`, a `mail`).
    package var kind: String
    /// Deliveries tried so far.
    package var attempts: Int
    package var nextAttemptAt: Date
    /// The first failure's words (nil: never tried), and the last's.
    package var firstError: String?
    package var lastError: String?
    package var queuedAt: Date
    /// Episodes (alert ids) it tells.
    package var episodes: [Int]
}
