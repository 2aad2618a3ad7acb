import Foundation
import MetrikaSystem
import Testing

/// `metrika sync` as cron runs it: killed halfway, run side by side with other writers and readers,
/// and with some counters failing.
@Suite("Sync end to end", .serialized, .blockingLanes)
struct SyncEndToEndTests {
    /// Fetch-log ranges that are not whole: some day × metric of the range is missing from the values.
    /// Every sync stores the six everyday metrics (visits and pageviews among them).
    static let partialRanges = """
        SELECT f.id FROM fetch_log f
        WHERE (SELECT count(*) FROM daily_values v
               WHERE v.counter_id = f.counter_id AND v.day BETWEEN f.range_from AND f.range_to
                 AND v.metric IN ('ym:s:pageviews','ym:s:visits','ym:s:users','ym:s:pageDepth','ym:s:avgVisitDurationSeconds','ym:s:bounceRate'))
              != 6 * (julianday(f.range_to) - julianday(f.range_from) + 1)
        """

    /// A ClickHouse target that cannot work is said before anything is synced, not after the night.
    @Test(arguments: [
        (["--clickhouse", "ftp://x"], "is not an http(s) URL"),
        (["--cluster", "pair"], "give --clickhouse"),
        (["--clickhouse", "http://127.0.0.1:1,http://127.0.0.1:2"], "also needs --cluster NAME"),
        (["--clickhouse", "http://127.0.0.1:1", "--cluster", "a-b"], "is not a cluster name")
    ])
    func aWrongClickHouseTargetIsRefusedBeforeTheSync(extra: [String], says: String) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["sync", "--counter", "1001"] + extra,
            environment: metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": home.path + "/h.sqlite"]))
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(says), "\(result.stderr)")
        #expect(try api.requests().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: home.path + "/h.sqlite"))
    }

    @Test func killedMidRunLeavesASoundFileThatTheNextRunCompletes() throws {
        let api = try FakeAPI(fixtures: "many")
        let home = try TemporaryDirectory()
        let path = home.path + "/history.sqlite"
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": path])
        let ids = (100_001...100_080).map(String.init).joined(separator: ",")
        let arguments = ["sync", "--counter", ids, "--from", "29daysAgo"]
        // Slow every data answer down so the kill lands mid-run however fast the machine is.
        try api.inject(["kind": "delay", "delay_ms": 60, "count": 1000, "path_prefix": "/stat/v1/data"])

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.metrika)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill once several ranges are committed (the shell reads the WAL database alongside the writer).
        let deadline = Date().addingTimeInterval(30)
        var committed = 0
        while Date() < deadline && process.isRunning {
            usleep(20_000)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            committed = Int((try? HistoryTools.sqlite(path, "SELECT count(*) FROM fetch_log")) ?? "") ?? 0
            if committed >= 8 { break }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGKILL)

        // Mid-run for real: some ranges are stored, not all.
        #expect(try HistoryTools.sqlite(path, "PRAGMA integrity_check") == "ok")
        let stored = try #require(Int(try HistoryTools.sqlite(path, "SELECT count(*) FROM fetch_log")))
        #expect(stored >= 8)
        #expect(stored < 80)
        #expect(try HistoryTools.sqlite(path, Self.partialRanges) == "")

        // The re-run completes the history: every counter, every day of its range, all six metrics.
        try api.reset()
        let rerun = try metrika(arguments, environment: environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.hasPrefix("Synced 80 of 80 counters: "))
        #expect(rerun.stdout.hasSuffix(", 0 failures.\n"))
        #expect(try HistoryTools.sqlite(path, "PRAGMA integrity_check") == "ok")
        #expect(try HistoryTools.sqlite(path, Self.partialRanges) == "")
        let perCounter = try HistoryTools.sqlite(
            path,
            """
            SELECT count(*) || ' counters x ' || min(n) || '-' || max(n) || ' values'
            FROM (SELECT counter_id, count(*) AS n FROM daily_values GROUP BY counter_id)
            """)
        #expect(perCounter == "80 counters x 180-180 values")
        // One data request per counter: the complete ones ask only for their still-changing days.
        #expect(HistoryTools.count(try api.requests(), path: "/stat/v1/data") == 80)
    }

    /// Two syncs and a report started together on one new database: all succeed, nobody sees
    /// "database is locked", and the result is sound.
    @Test func concurrentWritersAndAReaderAllSucceed() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let path = home.path + "/history.sqlite"
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": path])
        let commands = [
            ["sync", "--from", "60daysAgo"],
            ["sync", "--from", "90daysAgo", "--counter", "1001,1002,1004"],
            ["report", "--counter", "1001", "--from", "45daysAgo", "--csv"]
        ]
        for round in 0..<2 {
            let results = ResultsBox(count: commands.count)
            DispatchQueue.concurrentPerform(iterations: commands.count) { index in
                // The second round refetches everything, so all three write at once again.
                let extra = round == 1 && index == 2 ? ["--refresh"] : []
                results.set(index, Result { try metrika(commands[index] + extra, environment: environment) })
            }
            for (index, result) in results.all.enumerated() {
                let finished = try #require(try result?.get())
                #expect(finished.status == 0, "round \(round) \(commands[index]): \(finished.stderr)")
                #expect(!finished.stderr.lowercased().contains("locked"))
            }
            #expect(HistoryTools.lines(results.all[2].flatMap { try? $0.get() }?.stdout ?? "").count == 47)
        }
        #expect(try HistoryTools.sqlite(path, "PRAGMA integrity_check") == "ok")
        #expect(try HistoryTools.sqlite(path, Self.partialRanges) == "")
        #expect(
            try HistoryTools.sqlite(path, "SELECT count(DISTINCT day) FROM daily_values WHERE counter_id = 1001")
                == "91")
    }

    /// One counter failing (a foreign id; an API that keeps failing for one counter's metadata) costs
    /// only that counter: the others are stored, the summary counts it, the exit code says so.
    @Test func oneFailingCounterDoesNotLoseTheOthers() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let path = home.path + "/history.sqlite"
        let environment = metrikaEnvironment(api: api, home: home.path, retryScale: 0.05, extra: ["METRIKA_DB": path])

        let foreign = try metrika(
            ["sync", "--counter", "9999,1001,1002", "--from", "9daysAgo"], environment: environment)
        #expect(foreign.status == 77, "\(foreign.stderr)")
        #expect(foreign.stdout == "Synced 2 of 3 counters: 20 days fetched, 5 requests, 1 failure.\n")
        #expect(foreign.stderr.contains("counter 9999"))
        #expect(
            try HistoryTools.sqlite(
                path,
                "SELECT counter_id || ':' || count(DISTINCT day) FROM daily_values GROUP BY counter_id ORDER BY counter_id"
            )
                == "1001:10\n1002:10")

        // The API fails every attempt for one counter's metadata: that counter fails with 69, the rest sync.
        try api.inject(["kind": "backend_error", "count": 50, "path_prefix": "/management/v1/counter/1003"])
        let flaky = try metrika(["sync", "--counter", "1003,1004,1001", "--from", "9daysAgo"], environment: environment)
        #expect(flaky.status == 69, "\(flaky.stderr)")
        #expect(flaky.stdout.hasPrefix("Synced 2 of 3 counters: "))
        #expect(flaky.stdout.hasSuffix(", 1 failure.\n"))
        #expect(flaky.stderr.contains("counter 1003"))
        #expect(
            try HistoryTools.sqlite(
                path,
                "SELECT counter_id || ':' || count(DISTINCT day) FROM daily_values GROUP BY counter_id ORDER BY counter_id"
            )
                == "1001:10\n1002:10\n1004:10")
        #expect(try HistoryTools.sqlite(path, Self.partialRanges) == "")
    }
}

/// Results of processes run on several threads at once.
final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<ProcessResult, any Error>?]
    init(count: Int) { results = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ result: Result<ProcessResult, any Error>) { lock.withLock { results[index] = result } }
    var all: [Result<ProcessResult, any Error>?] { lock.withLock { results } }
}
