import Foundation
import MetrikaModel
import MetrikaSimulator
import MetrikaTestSupport
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The fault drills, the whole matrix, in-process: each fault of the simulator (running in
/// this process on a loopback port, reached through libcurl as the binary reaches it) against both
/// `metrika counters` and a history-backed `metrika report` over a settled past range, through
/// `CLI.run`. The retry policy is the production one; its waits go to a recording `sleep`, and the
/// run's clock (`now`) advances by exactly those waits, so a drill takes the time of its requests and
/// neither the policy's caps nor the test's bound depend on how busy the test process is (its
/// cooperative threads are shared with every other suite). The bound on a run's time is checked on
/// what the policy lets it take: the recorded waits plus the request timeout for every attempt. A few
/// of these drills also run against the built binary (`FaultDrillEndToEndTests`), where the bound is
/// the real wall time.
// Serialized: on threads of their own nothing else bounds how many of the 48 drills run at once, and the
// slow drills' timing (a 2 s request timeout against a 4 s delay) is what they check.
@Suite("Fault drills in-process", .ownThreads, .serialized)
struct FaultDrillTests {
    static let token = "demo-token"
    /// METRIKA_TIMEOUT of every drill: a short request timeout keeps the slow drills short.
    static let requestTimeout = 2.0

    /// Ten settled days (well before the two still-changing ones), in Moscow time like the fixtures.
    static var range: (from: String, to: String) {
        let today = Day(ordinal: Int((TestClock.date.timeIntervalSince1970 + 3 * 3600) / 86_400))
        return (today.adding(days: -40).iso, today.adding(days: -31).iso)
    }

    static func reportArguments(_ extra: [String] = []) -> [String] {
        ["report", "--counter", "1001", "--from", range.from, "--to", range.to, "--csv"] + extra
    }

    /// One `CLI.run`: its exit status, what it printed, and the seconds it asked to sleep.
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var slept: Double
        var stdoutLines: [String] {
            stdout.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).map(String.init)
        }
    }

    /// The waits a run asked for, added up instead of slept: also the run's clock, which starts at
    /// the pinned time (the simulator's) and moves only by them.
    final class Waits: Sendable {
        let seconds = Mutex<Double>(0)
        let start = TestClock.date
        var now: Date { start.addingTimeInterval(seconds.withLock { $0 }) }
    }

    /// Runs metrika in-process against `simulator` with a home directory and history database of its own.
    static func run(_ arguments: [String], _ simulator: LoopbackSimulator, home: String, database: String) async -> Run
    {
        let out = TextSink()
        let err = TextSink()
        let waits = Waits()
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data",
            "LC_ALL": "C",
            "METRIKA_API_URL": simulator.baseURL, "METRIKA_OAUTH_URL": simulator.baseURL, "METRIKA_TOKEN": token,
            "METRIKA_TIMEOUT": String(Int(requestTimeout)), "METRIKA_DB": database
        ]
        let context = CLIContext(
            environment: environment, stdout: out, stderr: err, transport: CurlTransport(), now: { waits.now },
            sleep: { seconds in waits.seconds.withLock { $0 += seconds } })
        let status = await CLI.run(arguments: arguments, context: context)
        return Run(status: status, stdout: out.text, stderr: err.text, slept: waits.seconds.withLock { $0 })
    }

    /// Requests the simulator logged under a prefix; a delayed answer is logged when it is sent, so
    /// the slow drills wait for the last one.
    static func requests(_ simulator: LoopbackSimulator, _ prefix: String, atLeast expected: Int) async throws -> Int {
        let deadline = Date().addingTimeInterval(Double(FaultDrill.slow) / 1000 + 10)
        var count = try await simulator.requestCount(pathPrefix: prefix)
        while count < expected && Date() < deadline {
            try await Task.sleep(nanoseconds: 100_000_000)
            count = try await simulator.requestCount(pathPrefix: prefix)
        }
        return count
    }

    /// The longest the run could have taken by the policy: its recorded waits, and every request
    /// taking the whole request timeout (libcurl enforces it in real time, on a thread of its own).
    static func longestTime(_ run: Run, requests: Int) -> Double {
        run.slept + Double(requests) * requestTimeout
    }

    /// The waits are the production policy's: none without a retry, at least one before each retry
    /// (the policy's smallest first wait is half of 0.5 s), and never past its 30 s cap.
    static func expectWaits(_ run: Run, requests: Int, _ drill: FaultDrill) {
        if requests > 1 {
            #expect(run.slept >= 0.25, "\(drill.name): retried after \(run.slept) s of waiting")
        } else {
            #expect(run.slept == 0, "\(drill.name): waited \(run.slept) s without a retry")
        }
        #expect(run.slept <= RetryPolicy.standard.maxTotalWait, "\(drill.name): waited \(run.slept) s")
    }

    @Test(arguments: FaultDrill.all)
    func counters(_ drill: FaultDrill) async throws {
        let simulator = try LoopbackSimulator()
        let home = try ScratchDirectory()
        let database = home.path + "/history.sqlite"
        let clean = await Self.run(["counters", "--csv"], simulator, home: home.path, database: database)
        #expect(clean.status == 0, "\(clean.stderr)")
        try await simulator.reset()
        try await simulator.inject(drill.spec(pathPrefix: "/management/v1/counters"))
        let result = await Self.run(["counters", "--csv"], simulator, home: home.path, database: database)
        let requests = try await Self.requests(simulator, "/management/v1/counters", atLeast: drill.requests)
        drill.expectSane(
            drill.counters, status: result.status, stdout: result.stdout, stderr: result.stderr, signaled: false,
            token: Self.token,
            seconds: Self.longestTime(result, requests: requests))
        #expect(requests == drill.requests, "\(drill.name)")
        Self.expectWaits(result, requests: requests, drill)
        drill.expectCountersOutput(result.stdout, clean: clean.stdout)
    }

    @Test(arguments: FaultDrill.all)
    func report(_ drill: FaultDrill) async throws {
        let simulator = try LoopbackSimulator()
        let home = try ScratchDirectory()
        let database = home.path + "/history.sqlite"
        // The expected bytes come from a clean run against its own database.
        let baseline = await Self.run(
            Self.reportArguments(), simulator, home: home.path, database: home.path + "/baseline.sqlite")
        #expect(baseline.status == 0, "\(baseline.stderr)")
        #expect(baseline.stdoutLines.count == 11)
        try await simulator.reset()
        try await simulator.inject(drill.spec(pathPrefix: "/stat/"))
        let result = await Self.run(Self.reportArguments(), simulator, home: home.path, database: database)
        let requests = try await Self.requests(simulator, "/stat/v1/data", atLeast: drill.requests)
        // Every request of the run counts towards its time: the day data's and the counter's metadata.
        let allRequests = try await simulator.requestCount(pathPrefix: "/")
        drill.expectSane(
            drill.report, status: result.status, stdout: result.stdout, stderr: result.stderr, signaled: false,
            token: Self.token,
            seconds: Self.longestTime(result, requests: allRequests))
        drill.expectReportOutput(result.stdout, stderr: result.stderr, baseline: baseline.stdout)
        #expect(requests == drill.requests, "\(drill.name)")
        Self.expectWaits(result, requests: requests, drill)

        // The history holds the whole range or none of it.
        let days = try SQLiteShell.query(
            database, "SELECT count(DISTINCT day) FROM daily_values WHERE counter_id = 1001")
        let values = try SQLiteShell.query(database, "SELECT count(*) FROM daily_values WHERE counter_id = 1001")
        let fetches = try SQLiteShell.query(database, "SELECT count(*) FROM fetch_log WHERE counter_id = 1001")
        if case .recovers = drill.report {
            #expect(
                days == "10" && values == "60" && fetches == "1",
                "\(drill.name): \(days) days, \(values) values, \(fetches) fetches")
            // Offline, from the history alone, the same report.
            let offline = await Self.run(
                Self.reportArguments(["--offline"]), simulator, home: home.path, database: database)
            #expect(offline.status == 0 && offline.stdout == baseline.stdout, "\(drill.name): \(offline.stderr)")
        } else {
            #expect(
                days == "0" && values == "0" && fetches == "0",
                "\(drill.name): \(days) days, \(values) values, \(fetches) fetches")
            // Nothing half-done blocks the next run: without the fault it fetches the whole range.
            try await simulator.reset()
            let again = await Self.run(Self.reportArguments(), simulator, home: home.path, database: database)
            #expect(again.status == 0 && again.stdout == baseline.stdout, "\(drill.name): \(again.stderr)")
            #expect(
                try SQLiteShell.query(database, "SELECT count(*) FROM daily_values WHERE counter_id = 1001") == "60")
        }
    }
}

/// The simulator (MetrikaSimulator, which shares no code with the client) in this process, on a free
/// loopback port, driven through its control endpoints (`/__sim/…`, docs/simulator.md) as the
/// end-to-end tests drive `metrika-fake-api`. Stopped when released.
final class LoopbackSimulator: Sendable {
    let server: MetrikaSimulator.HTTPServer
    let baseURL: String

    /// The repository's Fixtures directory, found from this file's location.
    static let fixturesRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures", isDirectory: true)

    init(fixtures: String = "default") throws {
        let simulator = try Simulator(
            options: SimulatorOptions(
                fixturesDirectory: Self.fixturesRoot.appendingPathComponent(fixtures, isDirectory: true),
                now: TestClock.date))
        server = MetrikaSimulator.HTTPServer(idleTimeoutSeconds: 10, handler: { simulator.handle($0) })
        baseURL = "http://127.0.0.1:\(try server.start(port: 0))"
    }

    deinit { server.stop() }

    /// Queues a fault (see docs/simulator.md): e.g. `["kind": "backend_error", "count": 3]`.
    func inject(_ fault: [String: Any]) async throws {
        _ = try await control("POST", "/__sim/faults", body: try JSONSerialization.data(withJSONObject: fault))
    }

    /// Clears the request log and the fault queue.
    func reset() async throws { _ = try await control("POST", "/__sim/reset", body: Data()) }

    /// API requests (control requests excluded) whose path starts with a prefix.
    func requestCount(pathPrefix: String) async throws -> Int {
        let object =
            try JSONSerialization.jsonObject(with: try await control("GET", "/__sim/log", body: nil)) as? [String: Any]
        let requests = object?["requests"] as? [[String: Any]] ?? []
        return requests.filter { ($0["path"] as? String ?? "").hasPrefix(pathPrefix) }.count
    }

    private func control(_ method: String, _ path: String, body: Data?) async throws -> Data {
        var request = URLRequest(url: URL(string: baseURL + path)!, timeoutInterval: 30)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (status, data) = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(Int, Data), any Error>) in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
                }
            }.resume()
        }
        try #require(status == 200, "\(method) \(path): HTTP \(status) \(String(decoding: data, as: UTF8.self))")
        return data
    }
}

/// A scratch directory removed when released.
final class ScratchDirectory: Sendable {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "metrika-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// SQL run by the system `sqlite3` shell: a separate program, so it reads the history file as any
/// other SQLite reader would (a missing shell skips the test, naming the package).
enum SQLiteShell {
    static func query(_ path: String, _ sql: String) throws -> String {
        try ToolCheck.require("sqlite3", package: "sqlite3", searchPath: "/usr/bin")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "sqlite3 \(sql): \(errors)")
        return text.trimmingCharacters(in: .newlines)
    }
}
