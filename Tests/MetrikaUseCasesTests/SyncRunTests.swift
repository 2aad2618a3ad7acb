import Foundation
import MetrikaModel
import MetrikaStore
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaUseCases

/// `SyncRun`, the job of `metrika sync`: per-counter failures said through `Activity`, an API that
/// went away said once (issue 40 item 5), and a request to stop said as what was synced.
@Suite("Sync run")
struct SyncRunTests {
    /// `RuleAPI`, except that the statistics of the counters in `gone` cannot be reached, and the
    /// `stopAt`th statistics request asks the run to stop, then waits to be cancelled.
    final class FlakyAPI: HTTPTransport {
        let api: RuleAPI
        let gone: Set<Int>
        let stopAt: Int?
        let stop: ManualStop?
        let statRequests = Mutex(0)

        init(counters: [Int], gone: Set<Int>, stopAt: Int? = nil, stop: ManualStop? = nil) {
            var bodies: [Int: String] = [:]
            for id in counters {
                bodies[id] =
                    #"{"id":\#(id),"name":"Site \#(id)","site":"s.example","time_zone_name":"UTC","create_time":"2020-01-01T00:00:00Z"}"#
            }
            api = RuleAPI(counters: bodies)
            self.gone = gone
            self.stopAt = stopAt
            self.stop = stop
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.url.path.hasPrefix("/stat/") {
                let count = statRequests.withLock {
                    $0 += 1
                    return $0
                }
                if count == stopAt {
                    stop?.send(15)
                    try await Task.sleep(nanoseconds: 60_000_000_000)
                }
                let ids = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first {
                    $0.name == "ids"
                }?.value
                if let id = ids.flatMap(Int.init), gone.contains(id) {
                    throw TransportError.cannotConnect("Connection refused")
                }
            }
            return try await api.send(request)
        }
    }

    final class ManualStop: StopRequests {
        private let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)
        func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> @Sendable () -> Void {
            self.handler.withLock { $0 = handler }
            return { self.handler.withLock { $0 = nil } }
        }
        func send(_ signal: Int32) { handler.withLock { $0 }?(signal) }
    }

    static func run(_ api: FlakyAPI, ids: [Int], stop: ManualStop? = nil) async throws -> (
        summary: SyncSummary, notes: [String]
    ) {
        let activity = RecordedActivity()
        let client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: api,
            requestTimeout: 5, sleep: { _ in }, now: { testNow })
        let run = SyncRun(
            store: try await HistoryStore.open(path: ":memory:"), client: client, activity: activity, stopRequests: stop
        )
        let summary = try await run.run(SyncRequest(counterIDs: ids, from: nil, unsettledDays: 2))
        return (summary, activity.notes)
    }

    @Test("A counter that gets through ends the streak: the failures before it are each said, and nothing is given up")
    func streakBroken() async throws {
        // One at a time would make the order certain; at most 3 at once, two failures and a success
        // end in some order, but never three failures in a row out of these four counters.
        let api = FlakyAPI(counters: [1, 2, 3, 4], gone: [1, 2])
        let (summary, notes) = try await Self.run(api, ids: [1, 2, 3, 4])
        #expect(summary.gaveUp == nil)
        #expect(summary.synced == 2)
        #expect(notes.filter { $0.hasPrefix("Error: counter ") }.count == 2, "\(notes)")
    }

    @Test(
        "Three counters in a row that cannot reach the API: the run gives up, says nothing per counter, and tries no more"
    )
    func givesUp() async throws {
        let ids = Array(1...12)
        let api = FlakyAPI(counters: ids, gone: Set(ids))
        let (summary, notes) = try await Self.run(api, ids: ids)
        let gaveUp = try #require(summary.gaveUp)
        guard case .hostGone(let host, let limit, _, let synced, let total) = gaveUp else {
            Issue.record("\(gaveUp)")
            return
        }
        #expect(host == "api.example.test" && limit == 3 && synced == 0 && total == 12)
        #expect(gaveUp.exitCode == ExitCode.unavailable)
        #expect(notes.isEmpty, "\(notes)")
        #expect(summary.total == 12)
        // The first three in flight and at most three launched while they ended, 5 attempts each.
        #expect(api.statRequests.withLock { $0 } <= 6 * 5)
    }

    @Test("A stop request ends the run as an Interruption that says what was synced")
    func interrupted() async throws {
        let stop = ManualStop()
        // Statistics requests: a counter's days take one; the fourth asks to stop.
        let api = FlakyAPI(counters: Array(1...8), gone: [], stopAt: 4, stop: stop)
        do {
            _ = try await Self.run(api, ids: Array(1...8), stop: stop)
            Issue.record("the run was not interrupted")
        } catch let interruption as Interruption {
            #expect(interruption.signal == 15)
            #expect(interruption.account.hasPrefix("sync stopped: "), "\(interruption.account)")
            #expect(
                interruption.account.contains(" of 8 counters synced (their days are kept)"), "\(interruption.account)")
        }
    }

    @Test("ConnectionGiveUp: a streak to one host, ended by a success or a failure of another kind")
    func giveUpRule() {
        var rule = ConnectionGiveUp(limit: 3)
        let gone = APIError.unavailable("cannot connect (refused), 5 attempts")
        let steps: [((any Error)?, String)] = [
            (gone, "a"), (gone, "a"), (nil, "a"), (gone, "a"), (APIError.accessDenied("no"), "a"), (gone, "a"),
            (gone, "b"), (gone, "b"), (gone, "b")
        ]
        var answers: [Bool] = []
        for (failure, host) in steps { answers.append(rule.record(failure, host: host)) }
        #expect(answers == [false, false, false, false, false, false, false, false, true])
        #expect(rule.gaveUp && rule.streak == 3 && rule.lastReason == gone.message)
    }
}
