import Foundation
import Testing

/// Two clickhouse-server shards on loopback (no ZooKeeper) that know each other as cluster `pair`,
/// started once for the test run (each server's watchdog stops it when the test process is gone).
enum ClickHouseShards {
    static let cluster = "pair"

    static let shared: Result<[ClickHouseServer], SimpleError> = {
        let result: Result<[ClickHouseServer], SimpleError>
        do {
            let tcpPorts = [try ClickHouseServer.freePort(), try ClickHouseServer.freePort()]
            var servers: [ClickHouseServer] = []
            for port in tcpPorts {
                servers.append(try ClickHouseServer(tcpPort: port, cluster: (cluster, tcpPorts)))
            }
            result = .success(servers)
        } catch {
            result = .failure(error as? SimpleError ?? SimpleError("\(error)"))
        }
        return result
    }()
}

/// `metrika logs --clickhouse URL1,URL2 --cluster NAME` (issue 25): every guarantee of one server on a
/// two-shard cluster — exact counts through the Distributed table, rows on both shards, a re-run
/// replaces, a killed run leaves the old rows and resumes, nothing left behind on any shard.
@Suite("ClickHouse cluster end to end", .serialized, .blockingLanes(first: true))
final class ClickHouseClusterEndToEndTests {
    static let now = "2026-06-15T12:00:00Z"
    static let fields = "visitID,date,startURL,goalsID,pageViews"
    let shards: [ClickHouseServer]

    /// The suite's tests are enabled only where clickhouse-server is installed (a missing server is a
    /// skip); an installed server that does not start is a failure, never a test that checked nothing.
    init() throws {
        shards = try ClickHouseShards.shared.get()
        for server in shards { _ = try server.query("DROP DATABASE IF EXISTS metrika") }
        // The history database is per test (its directory), so nothing remembers an earlier test's mirror.
    }

    var urls: String { shards.map(\.url).joined(separator: ",") }

    func environment(_ api: FakeAPI, _ home: TemporaryDirectory) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path,
            extra: [
                "METRIKA_NOW": Self.now, "METRIKA_LOGS_POLL": "0", "METRIKA_DB": home.path + "/h.sqlite",
                "METRIKA_CLICKHOUSE_USER": ClickHouseServer.user,
                "METRIKA_CLICKHOUSE_PASSWORD": ClickHouseServer.password
            ])
    }

    func load(_ counter: Int, _ from: String, _ to: String, _ env: [String: String]) throws -> ProcessResult {
        try metrika(
            [
                "logs", "--counter", "\(counter)", "--from", from, "--to", to, "--fields", Self.fields, "--clickhouse",
                urls, "--cluster", ClickHouseShards.cluster
            ],
            environment: env)
    }

    /// Rows the Logs API serves for a counter and range (the TSV export of the same request).
    func expectedRows(_ counter: Int, _ from: String, _ to: String, _ env: [String: String], _ home: TemporaryDirectory)
        throws -> Int
    {
        let file = home.path + "/\(counter)-\(from)-\(to).tsv"
        let result = try metrika(
            ["logs", "--counter", "\(counter)", "--from", from, "--to", to, "--fields", Self.fields, "--output", file],
            environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        // Line feeds counted as bytes: a CRLF part's "\r\n" is one Character to String.split.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        return bytes.filter { $0 == 10 }.count + (bytes.last == 10 || bytes.isEmpty ? 0 : 1) - 1
    }

    func tablesLeft(_ shards: [ClickHouseServer]) throws -> [String] {
        try shards.map { try $0.query("SELECT name FROM system.tables WHERE database = 'metrika' ORDER BY name") }
    }

    func logStatuses(_ api: FakeAPI, _ counter: Int) throws -> [String] {
        let data = try api.apiGET("/management/v1/counter/\(counter)/logrequests")
        let requests =
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["requests"] as? [[String: Any]] ?? []
        return requests.compactMap { $0["status"] as? String }
    }

    @Test(
        .enabled(
            if: ClickHouseServer.installed,
            "needs clickhouse-server (apt-get install clickhouse-server); .ci/run installs it"))
    func twoCountersAndAReloadGiveExactCountsThroughTheDistributedTableWithRowsOnEveryShard() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "1500"])
        let home = try TemporaryDirectory()
        let env = environment(api, home)
        for counter in [1001, 1002] {
            let result = try load(counter, "2026-06-01", "2026-06-02", env)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains(ClickHouseServer.password))
        }
        let reload = try load(1001, "2026-06-02", "2026-06-02", env)
        #expect(reload.status == 0, "\(reload.stderr)")
        for counter in [1001, 1002] {
            let expected = try expectedRows(counter, "2026-06-01", "2026-06-02", env, home)
            #expect(expected > 0)
            for shard in shards { // the same answer through either shard's Distributed table
                #expect(
                    try shard.query(
                        "SELECT count(), uniqExact(visit_id) FROM metrika.visits WHERE counter_id = \(counter)")
                        == "\(expected)\t\(expected)")
            }
            #expect(try logStatuses(api, counter).allSatisfy { $0 == "cleaned_by_user" })
        }
        // Rows on both shards, each by its client: a client's rows are on one shard only.
        let perShard = try shards.map { Int(try $0.query("SELECT count() FROM metrika.visits_local")) ?? 0 }
        #expect(perShard.allSatisfy { $0 > 0 }, "\(perShard)")
        #expect(try shards[0].query("SELECT count() FROM metrika.visits_local WHERE client_id % 2 != 0") == "0")
        #expect(try shards[1].query("SELECT count() FROM metrika.visits_local WHERE client_id % 2 != 1") == "0")
        #expect(
            try shards[0].query("SELECT engine FROM system.tables WHERE database = 'metrika' AND name = 'visits'")
                == "Distributed")
        #expect(try tablesLeft(shards) == ["visits\nvisits_local", "visits\nvisits_local"])
    }

    @Test(
        .enabled(
            if: ClickHouseServer.installed,
            "needs clickhouse-server (apt-get install clickhouse-server); .ci/run installs it"))
    func aKilledReloadLeavesTheOldRowsOnEveryShardAndTheRerunResumesExactly() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "500"])
        let home = try TemporaryDirectory()
        let env = environment(api, home)
        #expect(try load(1001, "2026-06-01", "2026-06-01", env).status == 0)
        let expected = try expectedRows(1001, "2026-06-01", "2026-06-01", env, home)
        let before = try shards.map { try $0.query("SELECT count() FROM metrika.visits_local") }

        try api.reset() // count only the downloads of the run to kill
        let arguments = [
            "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields", Self.fields,
            "--clickhouse", urls, "--cluster", ClickHouseShards.cluster
        ]
        let killed = try killLogsMidLoad(arguments, environment: env, api: api)
        // The old rows, on every shard, untouched.
        #expect(try shards.map { try $0.query("SELECT count() FROM metrika.visits_local") } == before)
        #expect(
            try shards[0].query("SELECT count(), uniqExact(visit_id) FROM metrika.visits") == "\(expected)\t\(expected)"
        )
        try api.reset()

        let again = try metrika(arguments, environment: env)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("resuming log request"))
        // The killed run's split files are gone (the next run sweeps what a killed one left).
        let spools = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
            $0.hasPrefix("metrika-shards-\(killed)-")
        }
        #expect(spools.isEmpty)
        #expect(
            try shards[1].query("SELECT count(), uniqExact(visit_id) FROM metrika.visits") == "\(expected)\t\(expected)"
        )
        #expect(try tablesLeft(shards) == ["visits\nvisits_local", "visits\nvisits_local"])
    }

    /// Parts as the real Logs API sends them (BOM, CRLF, sorted header, quoted arrays, no last line
    /// feed) are split over the shards and load exactly there too.
    @Test(
        .enabled(
            if: ClickHouseServer.installed,
            "needs clickhouse-server (apt-get install clickhouse-server); .ci/run installs it"))
    func realWorldPartsLoadExactlyOverTheShards() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "700", "--logs-quirks", "all"])
        let home = try TemporaryDirectory()
        let env = environment(api, home)
        let expected = try expectedRows(1001, "2026-06-01", "2026-06-01", env, home)
        let loaded = try load(1001, "2026-06-01", "2026-06-01", env)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        let summary = try shards[0].query(
            "SELECT count(), uniqExact(visit_id), min(date), max(date) FROM metrika.visits")
        #expect(summary == "\(expected)\t\(expected)\t2026-06-01\t2026-06-01", "\(loaded.stderr)")
        #expect(
            try shards.map { Int(try $0.query("SELECT count() FROM metrika.visits_local")) ?? 0 }.allSatisfy { $0 > 0 })
    }

    /// `sync --clickhouse URL1,URL2 --cluster NAME`: metrika.daily over both shards, each counter's
    /// history on one shard, only changes sent again.
    @Test(
        .enabled(
            if: ClickHouseServer.installed,
            "needs clickhouse-server (apt-get install clickhouse-server); .ci/run installs it"))
    func syncMirrorsTheDailyHistoryIntoTheClusterSendingOnlyChanges() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let env = environment(api, home)
        let sync = [
            "sync", "--counter", "1001,1002", "--from", "2026-06-01", "--clickhouse", urls, "--cluster",
            ClickHouseShards.cluster
        ]
        let first = try metrika(sync, environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        // Every stored value of the two counters (a value the API left out is not sent).
        let stored = try HistoryTools.sqlite(
            home.path + "/h.sqlite", "SELECT count(*) FROM daily_values WHERE value IS NOT NULL AND day >= '2026-06-01'"
        )
        #expect(
            first.stderr.contains("ClickHouse: \(stored) daily values mirrored into metrika.daily (0 unchanged"),
            "\(first.stderr)")
        let second = try metrika(sync, environment: env)
        #expect(
            second.stderr.contains("ClickHouse: 0 daily values mirrored into metrika.daily (\(stored) unchanged"),
            "\(second.stderr)")
        for shard in shards { // through either shard's Distributed table: every value once
            #expect(
                try shard.query("SELECT count(), uniqExact(counter_id, metric, date) FROM metrika.daily")
                    == "\(stored)\t\(stored)")
        }
        // 1001 is odd: shard 2; 1002 even: shard 1.
        #expect(try shards[0].query("SELECT DISTINCT counter_id FROM metrika.daily_local") == "1002")
        #expect(try shards[1].query("SELECT DISTINCT counter_id FROM metrika.daily_local") == "1001")
    }

    @Test(
        .enabled(
            if: ClickHouseServer.installed,
            "needs clickhouse-server (apt-get install clickhouse-server); .ci/run installs it"))
    func aClusterTheServersDoNotKnowAsGivenIsRefusedBeforeTheOrder() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let env = environment(api, home)
        let base = ["logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields", Self.fields]
        let unknown = try metrika(base + ["--clickhouse", urls, "--cluster", "nosuch"], environment: env)
        #expect(unknown.status == 78, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("knows no cluster nosuch"))
        let oneURL = try metrika(
            base + ["--clickhouse", shards[0].url, "--cluster", ClickHouseShards.cluster], environment: env)
        #expect(oneURL.status == 78, "\(oneURL.stderr)")
        #expect(oneURL.stderr.contains("knows cluster pair with 2 shards, but 1 URLs were given"))
        let noName = try metrika(base + ["--clickhouse", urls], environment: env)
        #expect(noName.status == 64, "\(noName.stderr)")
        #expect(noName.stderr.contains("also needs --cluster NAME"))
        #expect(try logStatuses(api, 1001).isEmpty)
        // The single-server mode pointed at the Distributed table a cluster load made: refused.
        #expect(try load(1001, "2026-06-01", "2026-06-01", env).status == 0)
        let single = try metrika(base + ["--clickhouse", shards[0].url], environment: env)
        #expect(single.status == 78, "\(single.stderr)")
        #expect(single.stderr.contains("metrika.visits is a Distributed table"))
    }
}
