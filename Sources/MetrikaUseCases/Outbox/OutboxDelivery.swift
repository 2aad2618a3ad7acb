import Foundation
import MetrikaModel
import MetrikaStore

/// Sends what the outbox holds for the routes this run can reach (its `senders`), oldest first, each
/// recipient's messages in order, and records each one as the channel accepts it. Per recipient: a
/// refusal (chat not found, blocked, 403, 404) is said once and that recipient's messages are given
/// up; a transient failure keeps them for a later run, with backoff, for `giveUpAfter`; the other
/// recipients go on either way. A stop (`DeliveryStop`) finishes the message in flight and leaves
/// the rest pending. At least once: a message is sent again only when the process died between the
/// channel's acceptance and its record.
package struct OutboxDelivery: Sendable {
    /// How long a message that keeps failing for now is tried (then said once, and given up).
    package static let giveUpAfter: TimeInterval = 48 * 3600

    package var store: HistoryStore
    package var senders: [any OutboxSender]
    package var activity: any Activity
    /// Say each recipient served (a terminal, or --verbose): success is quiet where cron watches.
    package var announce = false
    /// Show `Sending to Telegram: 12 of 300` on the progress line (a terminal only).
    package var showsProgress = false
    package var stop: DeliveryStop?

    package init(store: HistoryStore, senders: [any OutboxSender], activity: any Activity, stop: DeliveryStop? = nil) {
        self.store = store
        self.senders = senders
        self.activity = activity
        self.stop = stop
    }

    /// The wait before the next try after `attempts` failed ones: 1, 2, 4 … minutes, at most an hour
    /// (an hourly cron tries every run).
    package static func backoff(attempts: Int) -> TimeInterval {
        min(3600, 60 * pow(2, Double(max(0, attempts - 1))))
    }

    /// What a flush did.
    package struct Report: Sendable {
        package var delivered = 0
        /// Recipients served whole, in order.
        package var served: [OutboxAddress] = []
        /// The first failure (the run's exit status), and every recipient that failed.
        package var failure: (any MetrikaFailure)?
        package var failed: [OutboxAddress] = []
        package var refused: [OutboxAddress] = []
        /// Messages left pending by a stop.
        package var kept = 0
        /// The signal that stopped it.
        package var stoppedBy: Int32?
    }

    /// Sends every due message of the senders' routes; never throws for a channel's failure (they are
    /// noted and in the report), only for the history database's.
    package func flush() async throws -> Report {
        var report = Report()
        let now = activity.now
        let leased = try await store.leaseOutbox(routes: senders.map { ($0.channel, $0.route) }, now: now())
        guard !leased.isEmpty else { return report }
        var order: [OutboxAddress] = []
        var groups: [OutboxAddress: [OutboxMessage]] = [:]
        for message in leased {
            if groups[message.address] == nil { order.append(message.address) }
            groups[message.address, default: []].append(message)
        }
        var downRoutes: Set<String> = []
        let total = leased.count
        var done = 0
        defer { if showsProgress { activity.endProgress() } }
        for address in order {
            let group = groups[address] ?? []
            guard let sender = senders.first(where: { $0.channel == address.channel && $0.route == address.route })
            else { continue }
            var index = 0
            // From here on, the group's messages were not tried: their leases are let go.
            var untried = group.count
            var whole = true
            recipient: while index < group.count {
                let message = group[index]
                if stop?.signal != nil || downRoutes.contains(routeKey(address)) {
                    report.stoppedBy = stop?.signal
                    untried = index
                    whole = false
                    break recipient
                }
                if showsProgress {
                    activity.progress(
                        "Sending to \(sender.name(of: address.recipient)): \(done + 1) of \(total)", force: false)
                }
                do {
                    if let stop {
                        try await stop.perform { try await sender.send(message) }
                    } else {
                        try await sender.send(message)
                    }
                    try await settle(message, .delivered)
                    report.delivered += 1
                    done += 1
                    index += 1
                } catch let failure as any MetrikaFailure {
                    whole = false
                    let line = activity.naming.message(of: failure)
                    report.failure = report.failure ?? failure
                    switch sender.verdict(failure) {
                    case .refused:
                        for refused in group[index...] { try await settle(refused, .refused(error: line)) }
                        report.refused.append(address)
                        activity.note(
                            "Error: \(Self.sentence(line)); given up: \(Self.messages(group.count - index)) to \(sender.name(of: address.recipient)) not sent."
                        )
                        break recipient
                    case .transient:
                        let retryAt = now().addingTimeInterval(Self.backoff(attempts: message.attempts + 1))
                        let state = try await settle(message, .failed(error: line, retryAt: retryAt))
                        if state == .expired {
                            activity.note(
                                "Error: \(Self.sentence(line)); given up after \(Int(Self.giveUpAfter / 3600)) h of tries: a message to \(sender.name(of: address.recipient)) not sent."
                            )
                            index += 1
                            continue recipient
                        }
                        report.failed.append(address)
                        activity.note(
                            "Error: \(Self.sentence(line)); kept in the outbox for the next run: \(Self.messages(group.count - index)) to \(sender.name(of: address.recipient))."
                        )
                        untried = index + 1
                        break recipient
                    case .routeDown:
                        downRoutes.insert(routeKey(address))
                        report.failed.append(address)
                        activity.note("Error: \(line)")
                        untried = index
                        break recipient
                    }
                } catch {
                    // A stop ended the send (or the run was cancelled): it stays pending.
                    if stop?.signal == nil, !(error is CancellationError) { throw error }
                    report.stoppedBy = stop?.signal
                    untried = index
                    whole = false
                    break recipient
                }
            }
            for message in group[min(untried, group.count)...] {
                try await settle(message, .untried)
                if report.stoppedBy != nil { report.kept += 1 }
            }
            if whole {
                report.served.append(address)
                if announce {
                    activity.note("Sent \(Self.messages(group.count)) to \(sender.name(of: address.recipient)).")
                }
            }
        }
        return report
    }

    private func routeKey(_ address: OutboxAddress) -> String { address.channel.rawValue + "\u{1}" + address.route }

    @discardableResult
    private func settle(_ message: OutboxMessage, _ settlement: OutboxSettlement) async throws -> OutboxMessage.State {
        guard let id = message.id else { return .pending }
        return try await store.settleOutbox(id: id, settlement, now: activity.now(), giveUpAfter: Self.giveUpAfter)
    }

    /// `1 message`, `3 messages`.
    package static func messages(_ count: Int) -> String { count == 1 ? "1 message" : "\(count) messages" }

    /// A failure's line without its full stop, to go on after a semicolon.
    static func sentence(_ line: String) -> String {
        var text = line
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
