import Foundation
import Testing

@testable import MetrikaStore

/// The quota ledger (tables `quota_requests`, `quota_in_flight`, migration 16): per login, the day,
/// the 5-minute Reporting window, requests in flight and the machine's second.
@Suite struct QuotaLedgerTests {
    let noon = Date(timeIntervalSince1970: 1_781_524_800) // 2026-06-15T12:00:00Z
    let pid = getpid()

    func ticket(_ decision: QuotaDecision) -> Int64? {
        if case .admitted(let ticket) = decision { return ticket }
        return nil
    }

    @Test func threeInFlightPerLoginThenAWait() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        var tickets: [Int64] = []
        for _ in 0..<3 {
            let decision = try await store.admitQuotaRequest(
                login: "a", reporting: false, at: noon, sent: Date(), pid: pid)
            tickets += [ticket(decision)].compactMap { $0 }
        }
        #expect(tickets.count == 3)
        let fourth = try await store.admitQuotaRequest(login: "a", reporting: false, at: noon, sent: Date(), pid: pid)
        #expect(fourth == .wait(seconds: 0.05, limit: .parallel))
        let other = try await store.admitQuotaRequest(login: "b", reporting: false, at: noon, sent: Date(), pid: pid)
        #expect(ticket(other) != nil, "another login has quotas of its own")
        try await store.finishQuotaRequest(tickets[0])
        let fifth = try await store.admitQuotaRequest(login: "a", reporting: false, at: noon, sent: Date(), pid: pid)
        #expect(ticket(fifth) != nil)
        let use = try await store.quotaUse(at: noon)
        #expect(use.first { $0.login == "a" } == QuotaUse(login: "a", today: 4, last5Minutes: 0, inFlight: 3))
    }

    @Test func theReportingWindowAndTheDay() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        try await store.recordQuotaUse(login: "a", count: 200, reporting: true, at: noon.addingTimeInterval(-100))
        let stat = try await store.admitQuotaRequest(login: "a", reporting: true, at: noon, sent: Date(), pid: pid)
        #expect(stat == .wait(seconds: 200, limit: .reporting), "the oldest leaves the window in 200 s")
        let management = try await store.admitQuotaRequest(
            login: "a", reporting: false, at: noon, sent: Date(), pid: pid)
        #expect(ticket(management) != nil, "the 5-minute limit is the Reporting API's only")
        let later = try await store.admitQuotaRequest(
            login: "a", reporting: true, at: noon.addingTimeInterval(201), sent: Date(), pid: pid)
        #expect(ticket(later) != nil)
        try await store.recordQuotaUse(login: "a", count: 4_798, reporting: false, at: noon)
        let spent = try await store.admitQuotaRequest(login: "a", reporting: false, at: noon, sent: Date(), pid: pid)
        #expect(spent == .wait(seconds: 12 * 3600, limit: .daily), "until 00:00 UTC")
        let tomorrow = try await store.admitQuotaRequest(
            login: "a", reporting: false, at: noon.addingTimeInterval(12 * 3600), sent: Date(), pid: pid)
        #expect(ticket(tomorrow) != nil, "a new API day")
    }

    @Test func aDeadProcessInFlightStopsCounting() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        for _ in 0..<3 {
            _ = try await store.admitQuotaRequest(login: "a", reporting: false, at: noon, sent: Date(), pid: 999_999)
        }
        let decision = try await store.admitQuotaRequest(
            login: "a", reporting: false, at: noon, sent: Date(), pid: pid)
        #expect(ticket(decision) != nil, "process 999999 is gone: its requests are not in flight")
    }
}
