import Foundation
import MetrikaModel
import MetrikaTestSupport
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI

/// Issue 40 item 5: a sync whose API goes away stops after a few counters in a row could not reach
/// it — one line saying what was synced and what was not, exit 69 — instead of spending the retry
/// policy's attempts and an `Error:` line on every counter left. The retry waits go to a recording
/// sleep and the clock moves by them: no real minutes.
@Suite("Sync gives up on an API that went away")
struct SyncGiveUpTests {
    /// The counters list answers with `counters` counters; every other request finds nobody home
    /// (`cannotConnect`).
    final class GoneAPI: HTTPTransport {
        let counters: Int
        let statRequests = Mutex(0)

        init(counters: Int) {
            self.counters = counters
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let path = request.url.path
            if path == "/management/v1/counters" {
                let items = (1...counters).map { id in
                    #"{"id":\#(5000 + id),"name":"Site \#(id)","site":"s\#(id).example","status":"Active","permission":"own","time_zone_name":"UTC","create_time":"2020-01-01T00:00:00Z"}"#
                }
                return HTTPResponse(
                    status: 200, headers: [:],
                    body: Data(#"{"rows":\#(counters),"counters":[\#(items.joined(separator: ","))]}"#.utf8))
            }
            statRequests.withLock { $0 += 1 }
            throw TransportError.cannotConnect("Connection refused")
        }
    }

    final class Waits: Sendable {
        let seconds = Mutex<Double>(0)
        let start = TestClock.date
        var now: Date { start.addingTimeInterval(seconds.withLock { $0 }) }
    }

    static func sync(_ transport: GoneAPI) async -> (status: Int32, stdout: String, stderr: String) {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("metrika-giveup-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let out = TextSink()
        let err = TextSink()
        let waits = Waits()
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data",
            "LC_ALL": "C",
            "METRIKA_API_URL": "http://127.0.0.1:9", "METRIKA_TOKEN": "demo-token",
            "METRIKA_DB": home + "/history.sqlite"
        ]
        let context = CLIContext(
            environment: environment, stdout: out, stderr: err, transport: transport, now: { waits.now },
            sleep: { seconds in waits.seconds.withLock { $0 += seconds } })
        let status = await CLI.run(arguments: ["sync"], context: context)
        return (status, out.text, err.text)
    }

    @Test("40 counters, the API gone: one line, exit 69, and no counter past the streak is tried")
    func givesUp() async throws {
        let api = GoneAPI(counters: 40)
        let run = await Self.sync(api)
        #expect(run.status == 69)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line, not one per counter: \(run.stderr)")
        #expect(run.stderr.hasPrefix("Error: 127.0.0.1 could not be reached by 3 counters in a row, so the "))
        #expect(run.stderr.contains("0 of 40 counters synced, 40 not synced"))
        #expect(run.stdout.isEmpty)
        // 3 counters in flight when the streak starts, at most 3 more launched as they end: never 40 × 5 attempts.
        let requests = api.statRequests.withLock { $0 }
        #expect(requests <= 6 * 5, "\(requests) requests to a host that is gone")
    }
}
