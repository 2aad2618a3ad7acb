import Foundation
import MetrikaModel
import MetrikaStore
import Testing

@testable import MetrikaUseCases

/// Issue 45: a 16-minute `mail --telegram` digest showed no progress. Now the outbox's delivery says
/// `Sending to … : n of N` on the progress line as each message goes (a terminal only).
@Suite("Outbox delivery progress")
struct OutboxProgressTests {
    /// A sender that accepts every message.
    struct Accepting: OutboxSender {
        var channel: OutboxMessage.Channel { .telegram }
        var route: String { "telegram" }
        func send(_ message: OutboxMessage) async throws {}
        func name(of recipient: String) -> String { "Telegram chat \(recipient)" }
    }

    @Test func eachMessageIsCountedOnTheProgressLine() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        try await store.queueOutbox(
            ["a", "b", "c"].map {
                OutboxMessage(
                    batch: "mail:test", channel: .telegram, route: "telegram", recipient: "111", kind: "photo",
                    body: Data($0.utf8), episodes: [], createdAt: testNow)
            })
        let activity = RecordedActivity()
        var delivery = OutboxDelivery(store: store, senders: [Accepting()], activity: activity)
        delivery.showsProgress = true
        let report = try await delivery.flush()
        #expect(report.delivered == 3)
        #expect(
            activity.progressLines == [
                "Sending to Telegram chat 111: 1 of 3", "Sending to Telegram chat 111: 2 of 3",
                "Sending to Telegram chat 111: 3 of 3"
            ])
    }
}
