import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Small tools the history, sync and cache end-to-end tests share: the sqlite3 shell, file bytes,
/// JSON of a command's stdout, days relative to today, and direct calls to the simulator.
enum HistoryTools {
    /// The history schema's migrations, in order, with their versions, as this build applies them (one
    /// place to change when a migration is added; the binary is what these tests see, not the Store's
    /// source).
    static let migrations: [(version: Int, name: String)] = [
        (1, "history"), (2, "log_jobs"), (3, "alerts"), (4, "counter_currency"), (5, "log_loads"), (6, "daily_mirror"),
        (7, "alert_episode_ids"),
        (8, "log_loaded_days"), (9, "hourly_values"), (10, "bot_offsets"), (11, "segment_values"), (12, "alert_family"),
        (13, "outbox"), (14, "unattended_runs"), (16, "quota_ledger"), (17, "chart_annotations"),
        (19, "hourly_stories")
    ]
    static var latestSchema: Int { migrations.last?.version ?? 0 }

    /// Runs SQL with the system `sqlite3` shell (a separate program, so it checks the file as any
    /// other SQLite reader would) and returns its stdout without the final newline.
    static func sqlite(_ path: String, _ sql: String) throws -> String {
        try ToolCheck.require("sqlite3", package: "sqlite3", searchPath: "/usr/bin")
        let result = try runProcess(
            "/usr/bin/sqlite3", [path, sql], environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
        guard result.status == 0 else { throw SimpleError("sqlite3 \(sql) failed: \(result.stderr)") }
        var text = result.stdout
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let dictionary = object as? [String: Any] else {
            throw SimpleError("not a JSON object: \(text.prefix(200))")
        }
        return dictionary
    }

    /// Today in Moscow, the time zone of every fixture counter the tests use (UTC+3, no DST).
    static var moscowToday: Day { Day(ordinal: Int((TestClock.date.timeIntervalSince1970 + 3 * 3600) / 86_400)) }

    /// API requests the simulator logged, by exact path.
    static func count(_ requests: [[String: Any]], path: String) -> Int {
        requests.filter { ($0["path"] as? String) == path }.count
    }

    /// `GET` on the simulator with the demo token, as a JSON object: to compare metrika with the API itself.
    static func get(_ api: FakeAPI, _ pathAndQuery: String) throws -> [String: Any] {
        try json(String(decoding: try api.apiGET(pathAndQuery), as: UTF8.self))
    }

    /// Lines of output; CSV ends its records with CRLF (RFC 4180), which Swift reads as one character.
    static func lines(_ text: String) -> [String] { text.split(whereSeparator: \.isNewline).map(String.init) }

    /// Rows of a `--json` report, keyed by column name.
    static func rows(_ report: [String: Any]) -> [[String: Any]] { report["rows"] as? [[String: Any]] ?? [] }
}

/// `metrika report` served from the history database: how many requests each run costs, offline
/// reports with the API gone, weighted weeks, and files metrika must refuse.
@Suite("History end to end", .serialized, .blockingLanes)
struct HistoryEndToEndTests {
    @Test func requestCountsFallAsTheHistoryFills() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path)
        let ninetyDays = ["report", "--counter", "1001", "--from", "89daysAgo", "--to", "today", "--csv"]

        // First run: the counter's metadata and ONE daily request for all 90 days.
        let first = try metrika(ninetyDays, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(HistoryTools.lines(first.stdout).count == 1 + 90)
        var log = try api.requests()
        #expect(HistoryTools.count(log, path: "/stat/v1/data") == 1)
        #expect(HistoryTools.count(log, path: "/management/v1/counter/1001") == 1)
        #expect(log.count == 2, "\(log)")

        // Same run again: only what may still change (today, yesterday, the range's users) — at most one request.
        try api.reset()
        let second = try metrika(ninetyDays, environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        log = try api.requests()
        #expect(log.count <= 1, "\(log)")
        #expect(HistoryTools.count(log, path: "/management/v1/counter/1001") == 0)
        // Settled days are identical in both runs (only the last two rows may move).
        #expect(
            Array(HistoryTools.lines(first.stdout).prefix(89)) == Array(HistoryTools.lines(second.stdout).prefix(89)))

        // A settled range (ends three days ago): the first run may fetch its users total, the second costs nothing.
        let settled = [
            "report", "--counter", "1001", "--from", "40daysAgo", "--to", "3daysAgo", "--group", "week", "--json"
        ]
        #expect(try metrika(settled, environment: environment).status == 0)
        try api.reset()
        let settledAgain = try metrika(settled, environment: environment)
        #expect(settledAgain.status == 0, "\(settledAgain.stderr)")
        #expect(try api.requests().count == 0)

        // Offline: no request even with the API up...
        let offline = ninetyDays + ["--offline"]
        let online = try metrika(offline, environment: environment)
        #expect(online.status == 0, "\(online.stderr)")
        #expect(try api.requests().count == 0)
        // ...and the same bytes with the API gone.
        api.stop()
        let stopped = try metrika(offline, environment: environment)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stdout == online.stdout)
        #expect(HistoryTools.lines(stopped.stdout).count == 91)
        #expect(!stopped.stderr.contains("Error"))
        // Offline also serves the weekly report, users and all.
        let weeks = try metrika(settled + ["--offline"], environment: environment)
        #expect(weeks.status == 0, "\(weeks.stderr)")
        #expect(weeks.stdout == settledAgain.stdout)
    }

    /// Weeks from stored days: ratios weighted by visits, page depth from sums, users from the API's
    /// own total for the week — checked against the daily report and the simulator's answer.
    @Test func weeksAreWeightedAndUsersComeFromTheAPI() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path)
        // Two whole, settled weeks.
        let monday = HistoryTools.moscowToday.adding(days: -20).startOfWeek
        let sunday = monday.adding(days: 13)
        let range = ["--counter", "1001", "--from", monday.iso, "--to", sunday.iso, "--json"]
        let weekly = try metrika(["report", "--group", "week"] + range, environment: environment)
        #expect(weekly.status == 0, "\(weekly.stderr)")
        let daily = try metrika(["report"] + range, environment: environment)
        #expect(daily.status == 0, "\(daily.stderr)")
        let days = HistoryTools.rows(try HistoryTools.json(daily.stdout))
        let weeks = HistoryTools.rows(try HistoryTools.json(weekly.stdout))
        #expect(days.count == 14)
        try #require(weeks.count == 2)

        for (index, week) in weeks.enumerated() {
            let start = monday.adding(days: 7 * index)
            #expect(week["date"] as? String == start.iso)
            #expect(week["date_end"] as? String == start.adding(days: 6).iso)
            let inWeek = days.filter {
                ($0["date"] as? String ?? "") >= start.iso && ($0["date"] as? String ?? "") <= start.adding(days: 6).iso
            }
            try #require(inWeek.count == 7)
            func sum(_ key: String) -> Double { inWeek.reduce(0) { $0 + (($1[key] as? Double) ?? .nan) } }
            func weighted(_ key: String) -> Double {
                inWeek.reduce(0) { $0 + (($1[key] as? Double) ?? .nan) * (($1["visits"] as? Double) ?? .nan) }
                    / sum("visits")
            }
            let visits = sum("visits")
            #expect(visits > 0)
            #expect(week["visits"] as? Double == visits)
            #expect(week["pageviews"] as? Double == sum("pageviews"))
            let bounce = try #require(week["bounce_rate"] as? Double)
            #expect(abs(bounce - weighted("bounce_rate")) < 1e-9)
            // Not the plain mean of the daily rates (the days' visits differ, so the two differ).
            #expect(abs(bounce - sum("bounce_rate") / 7) > 1e-6)
            let depth = try #require(week["page_depth"] as? Double)
            #expect(abs(depth - sum("pageviews") / visits) < 1e-9)
            let duration = try #require(week["avg_visit_duration"] as? Double)
            #expect(abs(duration - weighted("avg_visit_duration")) < 1e-9)

            // Users: the API's count of distinct users over the week, never the sum of daily users.
            let users = try #require(week["users"] as? Double)
            #expect(users < sum("users"))
            let answer = try HistoryTools.get(
                api,
                "/stat/v1/data?ids=1001&metrics=ym:s:users&date1=\(start.iso)&date2=\(start.adding(days: 6).iso)&accuracy=full"
            )
            let totals = try #require(answer["totals"] as? [Double])
            #expect(totals == [users])
        }
    }

    @Test func anEmptyFileIsMigrated() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let path = home.path + "/empty.sqlite"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": path])
        let result = try metrika(
            ["report", "--counter", "1001", "--from", "10daysAgo", "--to", "3daysAgo", "--csv"],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(HistoryTools.lines(result.stdout).count == 1 + 8)
        #expect(
            try HistoryTools.sqlite(path, "SELECT version || ':' || name FROM metrika_migrations")
                == HistoryTools.migrations.map { "\($0.version):\($0.name)" }.joined(separator: "\n"))
        #expect(try HistoryTools.sqlite(path, "PRAGMA user_version") == "\(HistoryTools.latestSchema)")
        #expect(try HistoryTools.sqlite(path, "PRAGMA journal_mode") == "wal")
        #expect(
            try HistoryTools.sqlite(path, "SELECT count(DISTINCT day) FROM daily_values WHERE counter_id = 1001") == "8"
        )
        #expect(try HistoryTools.sqlite(path, "PRAGMA integrity_check") == "ok")
    }

    /// Not a database at all: every command that opens the history refuses it with 78, names it, and
    /// leaves every byte as it was.
    static let openingCommands: [[String]] = [
        ["report", "--counter", "1001", "--offline"],
        ["report", "--counter", "1001"],
        ["sync", "--counter", "1001"],
        ["cache", "info"],
        ["cache", "prune", "--before", "2020-01-01"]
    ]
    static let notDatabases: [String] = ["text", "random"]

    @Test(arguments: notDatabases, openingCommands)
    func refusesAFileThatIsNotADatabase(content: String, command: [String]) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let path = home.path + "/history.sqlite"
        let data: Data
        if content == "text" {
            data = Data("date,visits\n2026-01-01,5\nnot a database at all, just a CSV someone saved here\n".utf8)
        } else {
            var state: UInt64 = 0x1234_5678
            data = Data(
                (0..<16_384).map { _ -> UInt8 in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return UInt8(truncatingIfNeeded: state >> 33)
                })
        }
        try data.write(to: URL(fileURLWithPath: path))
        let result = try metrika(
            command, environment: metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": path]))
        #expect(result.status == 78, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(path))
        #expect(result.stderr.contains("not an SQLite database"))
        #expect(try HistoryTools.bytes(path) == data)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        // Refused before any request for data.
        #expect(HistoryTools.count(try api.requests(), path: "/stat/v1/data") == 0)
    }

    /// A database from a newer metrika (its migrations table or user_version ahead of this build):
    /// a clear message, exit 78, the main file untouched.
    static let schemaBumps: [String] = [
        "PRAGMA user_version = \(HistoryTools.latestSchema + 1)",
        "INSERT INTO metrika_migrations (version, name, applied_at) VALUES (\(HistoryTools.latestSchema + 1), 'from the future', 0)"
    ]

    @Test(arguments: schemaBumps)
    func refusesANewerSchema(bump: String) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let path = home.path + "/history.sqlite"
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": path])
        #expect(try metrika(["sync", "--counter", "1001", "--from", "5daysAgo"], environment: environment).status == 0)
        _ = try HistoryTools.sqlite(path, bump)
        let before = try HistoryTools.bytes(path)
        for command in [["report", "--counter", "1001", "--offline"], ["sync", "--counter", "1001"], ["cache", "info"]]
        {
            let result = try metrika(command, environment: environment)
            #expect(result.status == 78, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(path))
            #expect(
                result.stderr.contains(
                    "newer metrika (schema version \(HistoryTools.latestSchema + 1), this metrika knows up to \(HistoryTools.latestSchema))"
                ))
            #expect(try HistoryTools.bytes(path) == before)
        }
        #expect(
            try HistoryTools.sqlite(path, "SELECT max(version) FROM metrika_migrations")
                == "\(HistoryTools.latestSchema + (bump.hasPrefix("PRAGMA") ? 0 : 1))")
    }

    /// A real history whose pages after the first are overwritten: the schema still reads, so opening
    /// is cheap and succeeds, but every command that meets the damage stops with 78 naming the file,
    /// and sync (which checks the whole file first) writes nothing.
    @Test(arguments: ["everything after page 1", "the daily values' root page"])
    func refusesADamagedDatabase(damage: String) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let path = home.path + "/history.sqlite"
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": path])
        #expect(try metrika(["sync", "--from", "30daysAgo"], environment: environment).status == 0)
        // The last connection checkpointed the log into the file and removed it.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let root = try #require(
            Int(try HistoryTools.sqlite(path, "SELECT rootpage FROM sqlite_master WHERE name = 'daily_values'")))
        var data = try HistoryTools.bytes(path)
        let pageSize = Int(data[16]) << 8 | Int(data[17])
        try #require(data.count > 4 * pageSize)
        // The first damage breaks the metrika_migrations table that opening reads; the second only the
        // values, which opening never reads: those commands fail when they meet it (sync checks first).
        let damaged = damage.hasPrefix("everything") ? pageSize..<data.count : (root - 1) * pageSize..<root * pageSize
        for index in damaged { data[index] = 0xA5 }
        try data.write(to: URL(fileURLWithPath: path))
        try api.reset()

        for command in [
            ["report", "--counter", "1001", "--offline"], ["sync", "--counter", "1001"], ["cache", "info"],
            ["cache", "prune", "--before", "2020-01-01"]
        ] {
            let result = try metrika(command, environment: environment)
            #expect(result.status == 78, "\(command): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains(path))
            #expect(
                result.stderr.contains("is damaged") || result.stderr.contains("not an SQLite database"),
                "\(result.stderr)")
            #expect(try HistoryTools.bytes(path) == data)
        }
        #expect(try api.requests().filter { ($0["path"] as? String ?? "").hasPrefix("/stat/") }.isEmpty)
    }
}
