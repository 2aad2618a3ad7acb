import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Several Yandex logins in one run (issue 47) through the built binary against the simulator's
/// `Fixtures/agency` with its quotas on: three logins with overlapping counters and a represented
/// account; each counter read once, by the profile that owns it; a `ulogin` profile; a login whose
/// quota is nearly spent (its counters put off in one line, no 429); two processes on one ledger.
@Suite("Agencies: several logins, ulogin, the quota ledger", .blockingLanes)
struct AgencyEndToEndTests {
    final class World: @unchecked Sendable {
        let api: FakeAPI
        let home: TemporaryDirectory

        init() throws {
            api = try FakeAPI(fixtures: "agency", arguments: ["--quotas"])
            home = try TemporaryDirectory()
            let directory = home.path + "/config/metrika"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (name, token) in [("a", "agency-a-token"), ("b", "agency-b-token"), ("c", "agency-c-token")] {
                _ = FileManager.default.createFile(
                    atPath: directory + "/token-\(name).json", contents: Data("\(token)\n".utf8),
                    attributes: [.posixPermissions: 0o600])
            }
            // Profile x signs in as agency-c (its token file) and acts for client-x.
            let config = """
                {"profiles": {
                  "a": {"login": "agency-a"},
                  "b": {"login": "agency-b"},
                  "c": {"login": "agency-c"},
                  "x": {"token_file": "token-c.json", "login": "agency-c", "ulogin": "client-x"}
                }}
                """
            try Data(config.utf8).write(to: URL(fileURLWithPath: directory + "/config.json"))
        }

        var database: String { home.path + "/history.sqlite" }

        func run(_ arguments: [String], extra: [String: String] = [:]) throws -> ProcessResult {
            var environment = metrikaEnvironment(api: api, home: home.path, token: nil, extra: extra)
            environment["METRIKA_DB"] = database
            return try metrika(arguments, environment: environment)
        }

        /// Each API request's login, path and query (the simulator's log).
        func log() throws -> [(login: String, path: String, query: String, status: Int)] {
            try api.requests().map {
                (
                    $0["login"] as? String ?? "", $0["path"] as? String ?? "", $0["query"] as? String ?? "",
                    $0["status"] as? Int ?? 0
                )
            }
        }

        func quota() throws -> [String: Any] {
            let data = try blockingRequest(URLRequest(url: URL(string: api.baseURL + "/__sim/quota")!))
            return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        }
    }

    static func ids(_ query: String) -> String? {
        URLComponents(string: "/?" + query)?.queryItems?.first { $0.name == "ids" }?.value
    }

    @Test func countersOfAllProfilesEachReadByItsOwner() throws {
        let world = try World()
        let list = try world.run(["counters", "--profile", "all", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any]
        let counters = document?["counters"] as? [[String: Any]] ?? []
        var profiles: [Int: String] = [:]
        for counter in counters { profiles[counter["id"] as? Int ?? 0] = counter["profile"] as? String }
        #expect(
            profiles == [
                610001: "a", 610002: "a", 610003: "b", 610004: "b", 610005: "c", 610006: "x", 610007: "x"
            ], "\(list.stdout)")
        let table = try world.run(["counters", "--profile", "all"])
        #expect(table.stdout.contains("Profile"), "\(table.stdout)")
        let one = try world.run(["counters", "--profile", "a"])
        #expect(!one.stdout.contains("Profile"), "one profile: no column\n\(one.stdout)")

        // The hourly check over every profile: one Reporting request per counter, by its owner.
        try world.api.reset()
        let check = try world.run(["alert", "--today", "--profile", "all", "--dry-run"])
        #expect([0, 1].contains(check.status), "\(check.stderr)")
        let stat = try world.log().filter { $0.path.hasPrefix("/stat/") }
        let owners = [
            "610001": "agency-a", "610002": "agency-a", "610003": "agency-b", "610004": "agency-b",
            "610005": "agency-c", "610006": "agency-c", "610007": "agency-c"
        ]
        #expect(stat.count == owners.count, "\(stat.map { ($0.login, $0.query) })")
        for request in stat {
            let id = Self.ids(request.query) ?? ""
            #expect(owners[id] == request.login, "counter \(id) read by \(request.login)")
            let acting = id == "610006" || id == "610007"
            #expect(request.query.contains("ulogin=client-x") == acting, "\(request.query)")
        }
        #expect(Set(stat.map { Self.ids($0.query) ?? "" }).count == owners.count, "each counter read once")
        #expect(try world.log().allSatisfy { $0.status != 429 })

        // The ledger counted them per login; `metrika quota` says so.
        let quota = try world.run(["quota", "--json"])
        #expect(quota.status == 0, "\(quota.stderr)")
        let logins =
            (try JSONSerialization.jsonObject(with: Data(quota.stdout.utf8)) as? [String: Any])?["logins"]
            as? [[String: Any]] ?? []
        #expect(Set(logins.compactMap { $0["login"] as? String }) == ["agency-a", "agency-b", "agency-c"])
        let simulated = (try world.quota()["logins"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) {
            $0[$1["login"] as? String ?? ""] = $1["today"] as? Int
        }
        for use in logins {
            let login = use["login"] as? String ?? ""
            #expect(use["today"] as? Int == simulated[login], "the ledger and the API agree on \(login)")
        }
    }

    @Test func uloginProfileAndAccounts() throws {
        let world = try World()
        let accounts = try world.run(["accounts", "--profile", "c", "--json"])
        #expect(accounts.status == 0, "\(accounts.stderr)")
        #expect(accounts.stdout.contains("\"user_login\" : \"client-x\"") || accounts.stdout.contains("\"client-x\""))
        let report = try world.run(["report", "--profile", "x", "--counter", "610006", "--csv"])
        #expect(report.status == 0, "\(report.stderr)")
        let stat = try world.log().filter { $0.path.hasPrefix("/stat/") }
        #expect(!stat.isEmpty && stat.allSatisfy { $0.query.contains("ulogin=client-x") && $0.login == "agency-c" })
        // Without ulogin, agency-c cannot read client-x's counter.
        let plain = try world.run(["report", "--profile", "c", "--counter", "610006", "--csv"])
        #expect(plain.status == 77, "\(plain.stderr)")
    }

    @Test func nearlySpentLoginIsPutOffInOneLine() throws {
        let world = try World()
        // agency-b has 2 requests left today, and the ledger knows it (another run spent them).
        let spent = try world.run(["counters", "--profile", "b", "--json"])
        #expect(spent.status == 0, "\(spent.stderr)")
        let body = try JSONSerialization.data(withJSONObject: ["login": "agency-b", "used_today": 4_997])
        var request = URLRequest(url: URL(string: world.api.baseURL + "/__sim/quota")!)
        request.httpMethod = "POST"
        request.httpBody = body
        _ = try blockingRequest(request)
        try seedLedger(world, login: "agency-b", count: 4_997)
        try world.api.reset()

        let check = try world.run(["alert", "--today", "--profile", "all", "--dry-run"])
        #expect(check.status == 0, "\(check.stderr)")
        let notes = check.stderr.split(separator: "\n").filter { $0.contains("left for the next run") }
        #expect(notes.count == 1, "\(check.stderr)")
        // The requests left cover the counters list (which carries the goals) and the first counter;
        // the last one, 610004, waits for the next run.
        #expect(notes.first?.contains("agency-b") == true && notes.first?.contains("610004") == true, "\(check.stderr)")
        let served = try world.log()
        #expect(served.allSatisfy { $0.status != 429 }, "no 429: \(served.filter { $0.status == 429 })")
        // The other logins' counters were checked.
        let checked = Set(try world.log().filter { $0.path.hasPrefix("/stat/") }.compactMap { Self.ids($0.query) })
        #expect(checked.isSuperset(of: ["610001", "610002", "610005", "610006", "610007"]), "\(checked)")
    }

    @Test func twoProcessesShareOneLoginsLedger() throws {
        let world = try World()
        // Two checks of the same profiles at once: together they never pass 3 in flight per login.
        let runs = [["alert", "--today", "--profile", "a,b", "--dry-run"], ["counters", "--profile", "a,b"]]
        let results = ConcurrentResults()
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            results.append(try? world.run(runs[index % 2]))
        }
        #expect(results.all.count == 4 && results.all.allSatisfy { $0.status == 0 }, "\(results.all.map(\.stderr))")
        let quota = try world.quota()
        #expect(quota["rejected"] as? Int == 0, "\(quota)")
        for login in quota["logins"] as? [[String: Any]] ?? [] {
            #expect((login["peak_in_flight"] as? Int ?? 0) <= 3, "\(login)")
        }
        // The ledger counted every request of both processes.
        let ledger = try world.run(["quota", "--json"])
        let logins =
            (try JSONSerialization.jsonObject(with: Data(ledger.stdout.utf8)) as? [String: Any])?["logins"]
            as? [[String: Any]] ?? []
        let served = (quota["logins"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) {
            $0[$1["login"] as? String ?? ""] = $1["today"] as? Int
        }
        for use in logins {
            #expect(use["today"] as? Int == served[use["login"] as? String ?? ""], "\(use) vs \(served)")
            #expect(use["in_flight"] as? Int == 0)
        }
    }

    /// Records `count` earlier requests of `login` in the ledger of `world`'s database (what another
    /// tool on the same machine sent today), through `sqlite3` when it is installed.
    func seedLedger(_ world: World, login: String, count: Int) throws {
        guard let sqlite = ["/usr/bin/sqlite3", "/bin/sqlite3"].first(where: FileManager.default.isExecutableFile)
        else {
            throw SimpleError("sqlite3 is not installed (apt-get install sqlite3): cannot seed the ledger")
        }
        let now = ISO8601DateFormatter().date(from: world.api.now)!.timeIntervalSince1970
        let sql = """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO quota_requests (login, at, sent, reporting) SELECT '\(login)', \(now - 60), 0, 0 FROM n;
            """
        let result = try runProcess(sqlite, [world.database, sql], environment: [:])
        if result.status != 0 { throw SimpleError("sqlite3: \(result.stderr)") }
    }
}

final class ConcurrentResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [ProcessResult] = []
    func append(_ result: ProcessResult?) {
        lock.lock()
        if let result { results.append(result) }
        lock.unlock()
    }
    var all: [ProcessResult] {
        lock.lock()
        defer { lock.unlock() }
        return results
    }
}
