import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

/// The outbox (migration 13): messages kept until delivered, one recipient's in order, leased by one
/// run at a time, a lease that dies with its process, and per recipient settlements.
@Suite struct OutboxTests {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    static func message(_ recipient: String, _ text: String) -> OutboxMessage {
        OutboxMessage(
            batch: "alert:test", channel: .telegram, route: "telegram", recipient: recipient, kind: "text",
            body: Data(text.utf8), episodes: [7], createdAt: now)
    }

    @Test func aRecipientsMessagesAreLeasedInOrderAndOnlyOnce() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        try await store.queueOutbox([Self.message("111", "a"), Self.message("333", "b"), Self.message("111", "c")])
        let leased = try await store.leaseOutbox(routes: [(.telegram, "telegram")], now: Self.now)
        #expect(leased.map { String(decoding: $0.body, as: UTF8.self) } == ["a", "b", "c"])
        // Leased by this (living) process: another lease gets nothing.
        #expect(try await store.leaseOutbox(routes: [(.telegram, "telegram")], now: Self.now).isEmpty)
        // Another route's run gets nothing either.
        #expect(try await store.leaseOutbox(routes: [(.webhook, "webhook")], now: Self.now).isEmpty)
    }

    @Test func aLeaseOfAProcessThatIsGoneIsVoid() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        try await store.queueOutbox([Self.message("111", "a")])
        _ = try await store.leaseOutbox(routes: [(.telegram, "telegram")], now: Self.now)
        try await store.withLock { database in
            // A pid no process has (above the kernel's pid_max).
            try database.execute("UPDATE outbox SET lease_pid = 99999999")
        }
        #expect(try await store.leaseOutbox(routes: [(.telegram, "telegram")], now: Self.now).count == 1)
    }

    @Test func settlementsArePerRecipientWithBackoffAndExpiry() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let queued = try await store.queueOutbox([
            Self.message("111", "a"), Self.message("333", "b"), Self.message("444", "c")
        ])
        let ids = queued.compactMap(\.id)
        _ = try await store.leaseOutbox(routes: [(.telegram, "telegram")], now: Self.now)
        try await store.settleOutbox(id: ids[0], .delivered, now: Self.now, giveUpAfter: 3600)
        try await store.settleOutbox(id: ids[1], .refused(error: "chat not found"), now: Self.now, giveUpAfter: 3600)
        let retry = Self.now.addingTimeInterval(60)
        #expect(
            try await store.settleOutbox(
                id: ids[2], .failed(error: "502", retryAt: retry), now: Self.now, giveUpAfter: 3600) == .pending)
        let pending = try await store.pendingOutbox()
        #expect(pending.map(\.address.recipient) == ["444"] && pending.first?.episodes == [7])
        // Not due before its backoff; due after it.
        #expect(try await store.leaseOutbox(routes: [(.telegram, "telegram")], now: Self.now).isEmpty)
        let later = try await store.leaseOutbox(routes: [(.telegram, "telegram")], now: retry)
        #expect(later.map(\.id) == [ids[2]] && later.first?.attempts == 1)
        // Failing past the give-up time: expired, said once by the caller, never leased again.
        #expect(
            try await store.settleOutbox(
                id: ids[2], .failed(error: "502", retryAt: retry), now: Self.now.addingTimeInterval(7200),
                giveUpAfter: 3600) == .expired)
        #expect(try await store.pendingOutbox().isEmpty)
    }

    /// `alert --status --json` listed no undelivered message (issue 45): each pending message, with its
    /// tries, next try and its first error beside the last.
    @Test func pendingMessagesKeepTheirFirstErrorBesideTheLast() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let id = try #require(try await store.queueOutbox([Self.message("111", "a")]).first?.id)
        _ = try await store.leaseOutbox(routes: [(.telegram, "telegram")], now: Self.now)
        let retry = Self.now.addingTimeInterval(60)
        _ = try await store.settleOutbox(
            id: id, .failed(error: "502", retryAt: retry), now: Self.now, giveUpAfter: 3600)
        _ = try await store.leaseOutbox(routes: [(.telegram, "telegram")], now: retry)
        let next = retry.addingTimeInterval(120)
        _ = try await store.settleOutbox(
            id: id, .failed(error: "timed out", retryAt: next), now: retry, giveUpAfter: 3600)
        let waiting = try await store.pendingOutboxMessages()
        #expect(
            waiting == [
                OutboxWaiting(
                    channel: .telegram, recipient: "111", kind: "text", attempts: 2, nextAttemptAt: next,
                    firstError: "502", lastError: "timed out", queuedAt: Self.now, episodes: [7])
            ])
    }

    /// A claim and the messages that tell it are one transaction; a release drops the batch's messages.
    @Test func aReleasedClaimTakesItsMessagesAlong() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let episode = AlertEpisode(
            counterID: 1, metric: "ym:s:visits", kind: "drop", since: Day(iso: "2026-12-01")!,
            lastDay: Day(iso: "2026-12-01")!, value: 1, expected: 10, notifiedAt: Self.now)
        let (claims, queued) = try await store.claimNews([.open(episode)]) { won in
            won.compactMap { $0 }.map { _ in Self.message("111", "drop") }
        }
        #expect(claims.count == 1 && queued.count == 1)
        #expect(try await store.pendingOutbox().count == 1)
        try await store.releaseClaims(claims.compactMap { $0 }, droppingBatch: "alert:test")
        #expect(try await store.pendingOutbox().isEmpty)
        #expect(try await store.allOpenAlertEpisodes().isEmpty)
    }
}
