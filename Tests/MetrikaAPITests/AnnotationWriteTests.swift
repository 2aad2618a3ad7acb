import Foundation
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel

/// Issue 48 target 6, `metrika annotate`'s POST: sent as every request is sent, by the profile that
/// reads the counter and admitted by the quota ledger first, and still sent only once.
@Suite struct AnnotationWriteTests {
    /// A ledger that admits every request and says whose it was.
    final class RecordingGate: RequestGate {
        let admitted = Mutex<[String]>([])
        let finished = Mutex(0)
        func admit(login: String, reporting: Bool) async throws -> Int64 {
            admitted.withLock { $0.append(login + (reporting ? " reporting" : "")) }
            return 1
        }
        func finish(_ ticket: Int64) async { finished.withLock { $0 += 1 } }
    }

    /// Two profiles: `agency` can read 1001, `owner` owns it. Each answers its counters list; the
    /// owner's answers the POST (or fails it once with a 503).
    func client(gate: RecordingGate, failing: Bool = false) -> (MetrikaClient, FakeTransport, FakeTransport) {
        let agency = FakeTransport { request in
            request.url.path == "/management/v1/counters"
                ? .respond(200, #"{"rows":1,"counters":[{"id":1001,"name":"x","permission":"view"}]}"#)
                : .respond(500, "{}")
        }
        let owner = FakeTransport { request in
            if request.url.path == "/management/v1/counters" {
                return .respond(200, #"{"rows":1,"counters":[{"id":1001,"name":"x","permission":"own"}]}"#)
            }
            if failing { return .respond(503, #"{"code":503,"message":"busy"}"#) }
            return .respond(
                200,
                #"{"chart_annotation":{"id":100150,"date":"2026-11-25","time":"10:00:00","title":"Распродажа","message":"","group":"B"}}"#
            )
        }
        var client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "agency-token-0123456789", transport: agency,
            sleep: { _ in })
        client.routing = ProfileRouting(routes: [
            APIRoute(profile: "agency", login: "agency-login", transport: agency, token: "agency-token-0123456789"),
            APIRoute(profile: "owner", login: "owner-login", transport: owner, token: "owner-token-0123456789")
        ])
        client.gate = gate
        return (client, agency, owner)
    }

    @Test func thePostGoesByTheCountersProfileThroughTheLedgerOnce() async throws {
        let gate = RecordingGate()
        let (client, agency, owner) = client(gate: gate)
        let note = Annotation(id: 0, day: Day(iso: "2026-11-25")!, time: "10:00", title: "Распродажа", group: "B")
        let written = try await client.createAnnotation(counterID: 1001, note)
        #expect(written.id == 100150 && written.title == "Распродажа")
        let posts = owner.requests.filter { $0.method == "POST" }
        #expect(posts.count == 1 && !agency.requests.contains { $0.method == "POST" })
        #expect(posts.first?.headers["Authorization"] == "OAuth owner-token-0123456789")
        // Every request admitted first, the POST as the owner's login; each finished.
        #expect(gate.admitted.withLock { $0 } == ["agency-login", "owner-login", "owner-login"])
        #expect(gate.finished.withLock { $0 } == 3)
    }

    @Test func aFailedPostIsNotSentAgain() async throws {
        let gate = RecordingGate()
        let (client, _, owner) = client(gate: gate, failing: true)
        let note = Annotation(id: 0, day: Day(iso: "2026-11-25")!, title: "Распродажа")
        await #expect(throws: APIError.self) { try await client.createAnnotation(counterID: 1001, note) }
        #expect(owner.requests.filter { $0.method == "POST" }.count == 1, "a write is never retried into a duplicate")
    }
}
