import Foundation
import MetrikaModel
import MetrikaSimulator
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI

/// Issue 40 item 5's rest: the alert run (daily and `--today`) whose API goes away mid-run stops after
/// a few counters in a row could not reach it — one line saying which counters were checked and which
/// were not, exit 69 — instead of the retry policy's attempts and an `Error:` line for every counter
/// left. The simulator runs in this process on loopback, reached through libcurl; it is stopped (its
/// port then refuses connections) as the run's `killAt`th request after the counters list goes out.
/// The retry waits go to a recording sleep and the clock moves by them: no real minutes.
@Suite("Alert run gives up on an API that went away")
struct AlertGiveUpTests {
    /// libcurl to the simulator, which it stops before sending the `killAt`th request after the counters list.
    final class KillingTransport: HTTPTransport {
        let simulator: LoopbackSimulator
        let curl = CurlTransport()
        let killAt: Int
        let sent = Mutex(0)

        init(simulator: LoopbackSimulator, killAt: Int) {
            self.simulator = simulator
            self.killAt = killAt
        }

        func send(_ request: MetrikaAPI.HTTPRequest) async throws -> MetrikaAPI.HTTPResponse {
            if request.url.path != "/management/v1/counters" {
                let count = sent.withLock {
                    $0 += 1
                    return $0
                }
                if count == killAt { simulator.server.stop() }
            }
            return try await curl.send(request)
        }
    }

    static func alert(_ extra: [String], transport: KillingTransport) async -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-alert-giveup-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let out = TextSink()
        let err = TextSink()
        let waits = FaultDrillTests.Waits()
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data",
            "LC_ALL": "C",
            "METRIKA_API_URL": transport.simulator.baseURL, "METRIKA_TOKEN": FaultDrillTests.token,
            "METRIKA_TIMEOUT": "2",
            "METRIKA_DB": home + "/history.sqlite"
        ]
        let context = CLIContext(
            environment: environment, stdout: out, stderr: err, transport: transport, now: { waits.now },
            sleep: { seconds in waits.seconds.withLock { $0 += seconds } })
        let status = await CLI.run(arguments: ["alert"] + extra, context: context)
        return (status, out.text, err.text)
    }

    @Test(
        "The simulator stopped mid-run: one line naming the counters checked and not, exit 69, no counter past the streak tried",
        arguments: [[String](), ["--today"]])
    func givesUp(_ extra: [String]) async throws {
        // 2,601 counters; the 29th request after their list is the last answered. A counter takes two or
        // three, at most three are in flight: several are checked by then, and thousands are not.
        let simulator = try LoopbackSimulator(fixtures: "many")
        let transport = KillingTransport(simulator: simulator, killAt: 30)
        let run = await Self.alert(extra, transport: transport)
        #expect(run.status == 69, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line, not one per counter: \(run.stderr)")
        #expect(
            run.stderr.hasPrefix("Error: 127.0.0.1 could not be reached by 3 counters in a row, so the "),
            "\(run.stderr)")
        #expect(run.stderr.contains("so the alert check stopped: "), "\(run.stderr)")
        #expect(run.stderr.contains(" not checked ("), "\(run.stderr)")
        #expect(
            run.stderr.contains("Run it again when the API answers. The last error: The Metrika API is unavailable"),
            "\(run.stderr)")
        // Checked and not checked add up to every counter of the list, named in one line each way.
        let counts = try #require(run.stderr.firstMatch(of: /(\d+) of (\d+) counters checked.*, (\d+) not checked/))
        let (checked, total, unchecked) = (Int(counts.1)!, Int(counts.2)!, Int(counts.3)!)
        #expect(total == 2_601 && checked >= 1 && checked + unchecked == total, "\(run.stderr)")
        #expect(run.stderr.contains(", … and \(unchecked - 5) more)"), "\(run.stderr)")
        // 3 counters in flight when the streak starts, at most 3 more launched as they end, 5 attempts
        // each (a counter's goals and hours included): far from every counter's 5 attempts.
        let sent = transport.sent.withLock { $0 }
        #expect(sent <= 29 + 6 * 5 * 2, "\(sent) requests, \(run.stderr)")
    }

    @Test("Named counters the history does not know, the API gone before the first: stopped after 3, one line, exit 69")
    func givesUpReadingNamedCounters() async throws {
        let simulator = try LoopbackSimulator(fixtures: "many")
        let transport = KillingTransport(simulator: simulator, killAt: 1)
        let ids = (100_001...100_010).map(String.init).joined(separator: ",")
        let run = await Self.alert(["--counter", ids], transport: transport)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(
            run.stderr.hasPrefix("Error: 127.0.0.1 could not be reached by 3 counters in a row, so the "),
            "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "so the alert check stopped: 0 of 10 counters checked, 10 not checked (100001, 100002, 100003, 100004, 100005, … and 5 more)"
            ),
            "\(run.stderr)")
        // Three counters' reads, 5 attempts each: the other seven are never asked for.
        #expect(transport.sent.withLock { $0 } <= 3 * 5, "\(run.stderr)")
    }
}
