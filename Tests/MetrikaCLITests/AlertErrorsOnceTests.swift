import Foundation
import MetrikaModel
import MetrikaSimulator
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI

/// Issue 45 target 9, errors said once per failure: under an hourly cron (stderr no terminal) an API
/// outage or a counter the token cannot read printed its error every hour, and cron mailed each one.
/// Now a failure lasting one run says nothing, one lasting more is said once at its second run, the
/// later failing runs say nothing and still exit non-zero, and the first run without it says it is
/// back. The simulator runs in this process on loopback; `down` makes the API unreachable.
@Suite("Alert errors said once under cron")
struct AlertErrorsOnceTests {
    final class SwitchedTransport: HTTPTransport {
        let curl = CurlTransport()
        let down = Mutex(false)
        /// The user's daily quota spent: every API request answers 429 `quota_requests_by_uid`.
        let spent = Mutex(false)

        func send(_ request: MetrikaAPI.HTTPRequest) async throws -> MetrikaAPI.HTTPResponse {
            if down.withLock({ $0 }) { throw TransportError.cannotConnect("Connection refused") }
            if spent.withLock({ $0 }) {
                let message = "Quota exceeded: daily request limit for the user (5000); the quota resets at 00:00 GMT"
                let body =
                    #"{"errors":[{"error_type":"quota_requests_by_uid","message":"\#(message)"}],"code":429,"#
                    + #""message":"\#(message)"}"#
                return MetrikaAPI.HTTPResponse(
                    status: 429, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            }
            return try await curl.send(request)
        }
    }

    struct Runner {
        let simulator: LoopbackSimulator
        let transport = SwitchedTransport()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-alert-once-\(UUID().uuidString)"
        ).path

        func alert(_ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
            let out = TextSink()
            let err = TextSink()
            let waits = FaultDrillTests.Waits()
            let environment = [
                "PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/config",
                "XDG_DATA_HOME": home + "/data", "LC_ALL": "C", "METRIKA_API_URL": simulator.baseURL,
                "METRIKA_TOKEN": FaultDrillTests.token, "METRIKA_TIMEOUT": "2", "METRIKA_DB": home + "/history.sqlite"
            ]
            let context = CLIContext(
                environment: environment, stdout: out, stderr: err, transport: transport, now: { waits.now },
                sleep: { seconds in waits.seconds.withLock { $0 += seconds } })
            let status = await CLI.run(arguments: ["alert"] + arguments, context: context)
            return (status, out.text, err.text)
        }
    }

    @Test func anOutageIsSaidOnceAtItsSecondRunAndItsEndOnce() async throws {
        let runner = Runner(simulator: try LoopbackSimulator(fixtures: "alerts"))
        defer { try? FileManager.default.removeItem(atPath: runner.home) }
        let hourly = ["--today", "--counter", "520008"]
        let ok = await runner.alert(hourly)
        #expect(ok.status == 0 && ok.stderr.isEmpty, "\(ok.stderr)")

        runner.transport.down.withLock { $0 = true }
        var said: [String] = []
        for run in 1...4 {
            let failed = await runner.alert(hourly)
            #expect(failed.status == 69, "run \(run): \(failed.status) \(failed.stderr)")
            said.append(failed.stderr)
        }
        #expect(said[0].isEmpty, "a failure of one run said: \(said[0])")
        #expect(
            said[1].hasPrefix("Error: counter 520008: The Metrika API is unavailable")
                && said[1].split(separator: "\n").count == 1,
            "the second failing run says it, once: \(said[1])")
        #expect(said[2].isEmpty && said[3].isEmpty, "said again: \(said[2])\(said[3])")

        runner.transport.down.withLock { $0 = false }
        let back = await runner.alert(hourly)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(
            back.stderr.hasPrefix("Back: counter 520008 is checked again after 4 failed runs since ")
                && back.stderr.contains("its checks were missed (The Metrika API is unavailable")
                && back.stderr.split(separator: "\n").count == 1,
            "\(back.stderr)")
        let quiet = await runner.alert(hourly)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    /// Issue 45: a spent daily quota printed its error every hour, all night. Now said once, at the
    /// second failing run; the later runs are silent and still exit non-zero.
    @Test func aSpentQuotaIsSaidOnce() async throws {
        let runner = Runner(simulator: try LoopbackSimulator(fixtures: "alerts"))
        defer { try? FileManager.default.removeItem(atPath: runner.home) }
        let hourly = ["--today", "--counter", "520008"]
        #expect(await runner.alert(hourly).status == 0)
        runner.transport.spent.withLock { $0 = true }
        var runs: [(status: Int32, stdout: String, stderr: String)] = []
        for _ in 1...3 { runs.append(await runner.alert(hourly)) }
        #expect(runs.allSatisfy { $0.status != 0 }, "\(runs.map(\.status))")
        #expect(runs[0].stderr.isEmpty, "a failure of one run said: \(runs[0].stderr)")
        #expect(
            runs[1].stderr.contains("quota") && runs[1].stderr.split(separator: "\n").count == 1,
            "the second failing run says it, once: \(runs[1].stderr)")
        #expect(runs[2].stderr.isEmpty, "said again: \(runs[2].stderr)")
    }

    /// A counter the token cannot read among good ones (`--counter 520008,999`): said at the job's
    /// first run, then never again, each run still exit non-zero.
    @Test func aCounterItCannotReadIsSaidOnce() async throws {
        let runner = Runner(simulator: try LoopbackSimulator(fixtures: "alerts"))
        defer { try? FileManager.default.removeItem(atPath: runner.home) }
        let hourly = ["--today", "--counter", "520008,999"]
        var runs: [(status: Int32, stdout: String, stderr: String)] = []
        for _ in 1...3 { runs.append(await runner.alert(hourly)) }
        #expect(runs.allSatisfy { $0.status != 0 }, "\(runs.map(\.status))")
        #expect(runs[0].stderr.hasPrefix("Error: counter 999: "), "\(runs[0].stderr)")
        #expect(runs[1].stderr.isEmpty && runs[2].stderr.isEmpty, "\(runs[1].stderr)\(runs[2].stderr)")
    }
}
