import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaSimulator
import Testing

@testable import MetrikaCLI

/// Issue 37 item 3 in process: `metrika alert` against the simulator's explain scenarios (Monday
/// 2026-11-30 judged). A driver whose requests fail never fails or holds back its alert (the line
/// goes out without it, `--verbose` says why), and the drivers' requests are one per counter and
/// dimension.
@Suite("alert drivers")
struct AlertDriverTests {
    /// The scenarios' changes are a third to a half of the day (search's share of the visits, the
    /// smartphones' tripled) against Mondays that vary: alerts at a 20 % threshold and a score of 2, not at the
    /// defaults (40 %, 4).
    static let config = #"{"alerts": {"min_change": 20, "min_score": 2}}"#

    /// The simulator, with the drivers' requests (`ym:s:date` and a dimension) refused by the daily
    /// quota when `refuseDrivers`, counting what it was asked.
    final class Transport: MetrikaAPI.HTTPTransport, @unchecked Sendable {
        let inner: ExplainCommandTests.SimulatorTransport
        let refuseDrivers: Bool
        /// What marks a driver's request: the days by segment (the hourly ones: `ym:s:date,ym:s:hour,<dimension>`).
        let marker: String
        private let lock = NSLock()
        private var queries: [String] = []

        init(_ simulator: Simulator, refuseDrivers: Bool, hourly: Bool = false) {
            inner = ExplainCommandTests.SimulatorTransport(simulator)
            self.refuseDrivers = refuseDrivers
            marker = hourly ? "dimensions=ym:s:date,ym:s:hour,ym:s:" : "dimensions=ym:s:date,ym:s:"
        }

        var driverRequests: Int { lock.withLock { queries.filter { $0.contains(marker) }.count } }
        var driverQueries: [String] { lock.withLock { queries.filter { $0.contains(marker) } } }
        /// Every Reporting request (`/stat/…`), the comparison endpoint's too.
        var reportingPaths: [String] { lock.withLock { paths.filter { $0.hasPrefix("/stat/") } } }
        private var paths: [String] = []

        func send(_ request: MetrikaAPI.HTTPRequest) async throws -> MetrikaAPI.HTTPResponse {
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.query ?? ""
            lock.withLock {
                queries.append(query)
                paths.append(request.url.path)
            }
            if refuseDrivers, query.contains(marker) {
                let body =
                    #"{"errors": [{"error_type": "quota_requests_by_uid", "message": "Quota exceeded"}], "code": 429, "message": "Quota exceeded"}"#
                return MetrikaAPI.HTTPResponse(
                    status: 429, headers: ["content-type": "application/json"], body: Data(body.utf8))
            }
            return try await inner.send(request)
        }
    }

    static func run(_ arguments: [String], refuseDrivers: Bool, home kept: String? = nil) async throws -> (
        status: Int32, out: String, err: String, driverRequests: Int
    ) {
        let run = try await runAsking(arguments, refuseDrivers: refuseDrivers, home: kept)
        return (run.status, run.out, run.err, run.driverQueries.count)
    }

    static func runAsking(_ arguments: [String], refuseDrivers: Bool, home kept: String? = nil) async throws
        -> (status: Int32, out: String, err: String, driverQueries: [String], reportingPaths: [String])
    {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/explain", isDirectory: true)
        let now = SimulatorOptions.parseInstant("2026-12-01T06:00:00Z")
        let transport = Transport(
            try Simulator(options: SimulatorOptions(fixturesDirectory: root, now: now)), refuseDrivers: refuseDrivers,
            hourly: arguments.contains("--today"))
        let home =
            kept
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("metrika-drivers-\(UUID().uuidString)")
            .path
        defer { if kept == nil { try? FileManager.default.removeItem(atPath: home) } }
        try FileManager.default.createDirectory(atPath: home + "/config/metrika", withIntermediateDirectories: true)
        try Data(AlertDriverTests.config.utf8).write(to: URL(fileURLWithPath: home + "/config/metrika/config.json"))
        let out = TextSink()
        let err = TextSink()
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data",
            "LC_ALL": "C",
            "METRIKA_API_URL": "http://127.0.0.1:9", "METRIKA_TOKEN": "demo-token", "METRIKA_DB": home + "/h.sqlite"
        ]
        let context = CLIContext(
            environment: environment, stdout: out, stderr: err, transport: transport, now: { now ?? Date() })
        let status = await CLI.run(arguments: arguments, context: context)
        return (status, out.text, err.text, transport.driverQueries, transport.reportingPaths)
    }

    @Test("the known drivers, one request per counter alerted and dimension")
    func knownDrivers() async throws {
        let run = try await Self.run(["alert", "--counter", "530001,530002", "--dry-run"], refuseDrivers: false)
        #expect(run.status == 0, "\(run.err)")
        let lines = run.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(run.out)")
        #expect(
            lines.contains { $0.hasPrefix("530001 ") && $0.contains(", mostly Search engine traffic -") }, "\(run.out)")
        #expect(lines.contains { $0.hasPrefix("530002 ") && $0.contains(", mostly Smartphones +") }, "\(run.out)")
        #expect(run.driverRequests == 2 * 6)
        // Issue 48, one baseline: explain of the alert's day says the alert line's number (it said -956
        // against 4 weeks where the alert said -906 against its 6).
        let line = lines.first { $0.hasPrefix("530001 ") } ?? ""
        let said = line.components(separatedBy: "mostly Search engine traffic ").dropFirst().first
        let explained = try await Self.run(
            ["explain", "--counter", "530001", "--dimensions", "trafficSource"], refuseDrivers: false)
        let headline = explained.out.split(separator: "\n").first.map(String.init) ?? ""
        #expect(
            said != nil && headline.contains(": Search engine traffic \(said ?? "?") ("), "\(headline) / \(run.out)")
    }

    @Test("a driver that cannot be fetched: the line without it, a note under --verbose, exit 0")
    func unfetchableDriver() async throws {
        let quiet = try await Self.run(["alert", "--counter", "530001", "--dry-run"], refuseDrivers: true)
        #expect(quiet.status == 0, "\(quiet.err)")
        #expect(quiet.out.hasPrefix("530001 Поиск пропал: visits ") && quiet.out.hasSuffix("%)\n"), "\(quiet.out)")
        #expect(!quiet.err.contains("driver"), "no note without --verbose: \(quiet.err)")
        #expect(quiet.driverRequests == 1, "the first refusal ends the counter's drivers")

        let verbose = try await Self.run(
            ["alert", "--counter", "530001", "--dry-run", "--verbose"], refuseDrivers: true)
        #expect(verbose.status == 0, "\(verbose.err)")
        #expect(verbose.out == quiet.out)
        #expect(verbose.err.contains("Note: counter 530001: its alerts go without their driver ("), "\(verbose.err)")

        // The quota spent: the rest of the run asks for no driver (the second counter costs nothing).
        let two = try await Self.run(
            ["alert", "--counter", "530001,530002", "--dry-run", "--verbose"], refuseDrivers: true)
        #expect(two.status == 0, "\(two.err)")
        #expect(two.out.split(separator: "\n").count == 2 && !two.out.contains("mostly"), "\(two.out)")
        #expect(two.driverRequests == 1)
        #expect(
            two.err.contains("Note: counter 530002: its alerts go without their driver (the API's quota is spent)."),
            "\(two.err)")
    }

    /// The hourly check (`--today`): 530004 loses its search traffic today, so its last finished
    /// hours drop and their driver is search; one request per dimension (`ym:s:date,ym:s:hour,<dimension>`
    /// over the 5 days and the judged hours). A driver that cannot be fetched leaves the line without it.
    @Test("an hourly drop names its known driver; unfetchable, the line goes without it")
    func hourlyDriver() async throws {
        let run = try await Self.runAsking(
            ["alert", "--today", "--counter", "530004", "--dry-run"], refuseDrivers: false)
        #expect(run.status == 0, "\(run.err)")
        #expect(
            run.out.range(
                of:
                    #"^530004 Поиск пропал сегодня: visits \d[\d ]* in \d\d:00–\d\d:00 on Tue 2026-12-01, expected ~[\d ]+ \(-\d+%\), mostly Search engine traffic -\d[\d ]*\n$"#,
                options: .regularExpression) != nil, "\(run.out)")
        #expect(run.driverQueries.count == 6, "\(run.driverQueries)")
        #expect(
            run.driverQueries.allSatisfy {
                $0.contains("date1=2026-11-03&date2=2026-12-01")
                    && $0.contains(
                        "ym:s:date=.('2026-11-03','2026-11-10','2026-11-17','2026-11-24','2026-12-01') AND ym:s:hour=.("
                    )
            },
            "\(run.driverQueries)")

        let verbose = try await Self.run(
            ["alert", "--today", "--counter", "530004", "--dry-run", "--verbose"], refuseDrivers: false)
        #expect(
            verbose.err.contains("Hourly check: 1 counter, 1 report requests, 6 for the drivers."), "\(verbose.err)")

        let refused = try await Self.run(
            ["alert", "--today", "--counter", "530004", "--dry-run", "--verbose"], refuseDrivers: true)
        #expect(refused.status == 0, "\(refused.err)")
        #expect(
            refused.out.hasPrefix("530004 Поиск пропал сегодня: visits ") && refused.out.hasSuffix("%)\n"),
            "\(refused.out)")
        #expect(refused.driverRequests == 1, "the quota ends the asking")
        #expect(refused.err.contains("Note: counter 530004: its alerts go without their driver ("), "\(refused.err)")
    }

    /// Issue 37 item 5: settled days' segments are kept in the history database, so explaining a
    /// settled day again asks the Reporting API nothing and says the same; yesterday, not settled
    /// yet, is asked again.
    @Test("a repeated explanation of a settled day costs 0 Reporting requests")
    func repeatedExplanation() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-segments-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let arguments = ["explain", "--counter", "530001", "--date", "2026-11-23", "--json"]
        let first = try await Self.run(arguments, refuseDrivers: false, home: home)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.driverRequests == 6, "one days-by-segment request per default dimension")
        let second = try await Self.run(arguments, refuseDrivers: false, home: home)
        #expect(second.status == 0, "\(second.err)")
        #expect(second.driverRequests == 0)
        #expect(second.out == first.out, "the kept segments explain the same")
        // A table of the same day from what is kept, and a subset of its dimensions: still nothing asked.
        let table = try await Self.run(
            ["explain", "--counter", "530001", "--date", "2026-11-23", "--dimensions", "trafficSource,deviceCategory"],
            refuseDrivers: true, home: home)
        #expect(table.status == 0 && table.driverRequests == 0, "\(table.err)")

        // A settled range against the previous week: its days by segment, kept; again, nothing asked
        // and the same words. A subset of its dimensions and a rate of the same days read them too.
        // (The days the alert's baseline kept above, 11-02 … 11-23, already explain a range within them.)
        let within = try await Self.runAsking(
            ["explain", "--counter", "530001", "--from", "2026-11-16", "--to", "2026-11-22"], refuseDrivers: true,
            home: home)
        #expect(within.status == 0 && within.reportingPaths.isEmpty, "\(within.err) \(within.reportingPaths)")
        let rangeHome = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-ranges-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: rangeHome) }
        let range = ["explain", "--counter", "530001", "--from", "2026-11-16", "--to", "2026-11-22", "--json"]
        let cold = try await Self.runAsking(range, refuseDrivers: false, home: rangeHome)
        #expect(cold.status == 0, "\(cold.err)")
        #expect(
            cold.reportingPaths.count == 6 && cold.reportingPaths.allSatisfy { $0 == "/stat/v1/data" },
            "\(cold.reportingPaths) \(cold.driverQueries)")
        #expect(
            cold.driverQueries.allSatisfy { $0.contains("date1=2026-11-09&date2=2026-11-22") }, "\(cold.driverQueries)")
        let warm = try await Self.runAsking(range, refuseDrivers: true, home: rangeHome)
        #expect(warm.status == 0 && warm.reportingPaths.isEmpty, "\(warm.err) \(warm.reportingPaths)")
        #expect(warm.out == cold.out, "the kept segments explain the same")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(cold.out.utf8)) as? [String: Any])
        #expect((document["against"] as? [String: Any])?["kind"] as? String == "previous", "\(cold.out)")
        let rate = try await Self.runAsking(
            [
                "explain", "--counter", "530001", "--from", "2026-11-16", "--to", "2026-11-22", "--metric",
                "bounceRate",
                "--dimensions", "trafficSource"
            ], refuseDrivers: false, home: rangeHome)
        #expect(rate.status == 0, "\(rate.err)")
        #expect(
            rate.reportingPaths.count == 1,
            "bounce rate and visits were not both kept: one request \(rate.reportingPaths)")
        // Users are not additive over days: the comparison endpoint, every time.
        let users = try await Self.runAsking(
            [
                "explain", "--counter", "530001", "--from", "2026-11-16", "--to", "2026-11-22", "--metric", "users",
                "--dimensions", "trafficSource"
            ], refuseDrivers: false, home: rangeHome)
        #expect(
            users.status == 0 && users.reportingPaths == ["/stat/v1/data/comparison"],
            "\(users.err) \(users.reportingPaths)")

        // Yesterday (11-30), whose baseline Mondays the first run kept: that day alone is asked, and
        // again the next time (not settled yet).
        let yesterday = ["explain", "--counter", "530001", "--json", "--dimensions", "trafficSource"]
        for _ in 0..<2 {
            let asked = try await Self.runAsking(yesterday, refuseDrivers: false, home: home).driverQueries
            #expect(
                asked.count == 1 && asked.allSatisfy { $0.contains("date1=2026-11-30&date2=2026-11-30") }, "\(asked)")
        }
    }
}
