import Foundation
import Testing

/// `metrika logs --clickhouse` and `sync --clickhouse` into real ClickHouse servers, each test once
/// against Debian's 18.16 and once against today's engine (chdb, ClickHouse 26.x): typed columns,
/// escaped values and arrays read back by SQL, a re-run that replaces the range, the resume after
/// kill -9, and the clean. Each server starts once and is emptied between tests; a test whose server
/// cannot run here is skipped, naming the package.
@Suite("ClickHouse end to end", .blockingLanes(first: true))
struct ClickHouseEndToEndTests {
    static let now = "2026-06-15T12:00:00Z"
    static let fields = "visitID,date,startURL,title,goalsID,goalsOrder,regionCity,pageViews"

    func environment(_ api: FakeAPI, _ home: TemporaryDirectory, _ kind: ClickHouseKind) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path, retryScale: 0.05,
            extra: [
                "METRIKA_NOW": Self.now, "METRIKA_LOGS_POLL": "0", "METRIKA_DB": home.path + "/h.sqlite",
                "METRIKA_CLICKHOUSE_USER": kind.user, "METRIKA_CLICKHOUSE_PASSWORD": kind.password
            ])
    }

    func logStatuses(_ api: FakeAPI) throws -> [String] {
        let data = try api.apiGET("/management/v1/counter/1001/logrequests")
        let requests =
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["requests"] as? [[String: Any]] ?? []
        return requests.compactMap { $0["status"] as? String }
    }

    func loadsTypedRowsThatMatchTheTSVAndARerunReplacesTheRange(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "2000"])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        let range = ["--counter", "1001", "--from", "2026-05-31", "--to", "2026-06-02", "--fields", Self.fields]
        // The same rows as TSV, to compare counts and sums with.
        let file = home.path + "/v.tsv"
        #expect(try metrika(["logs"] + range + ["--output", file], environment: env).status == 0)
        let rows = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").dropFirst()
        let pageViewsSum = rows.reduce(0) {
            $0 + (Int($1.split(separator: "\t", omittingEmptySubsequences: false)[8]) ?? 0)
        }

        let loaded = try metrika(["logs"] + range + ["--clickhouse", server.url], environment: env)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(!loaded.stderr.contains(kind.password))
        #expect(
            try server.query("SELECT count(), sum(page_views), uniqExact(visit_id) FROM metrika.visits")
                == "\(rows.count)\t\(pageViewsSum)\t\(rows.count)")
        #expect(
            try server.query(
                "SELECT type FROM system.columns WHERE database = 'metrika' AND table = 'visits' AND name IN ('visit_id', 'date', 'goals_id', 'goals_order', 'counter_id') ORDER BY name"
            )
                == "UInt32\nDate\nArray(UInt32)\nArray(String)\nUInt64")
        #expect(
            try server.query(
                "SELECT count() FROM metrika.visits WHERE position(start_url, 'поиск\\ttab\\\\slash\\nline') > 0")
                != "0")
        #expect(
            try server.query(
                "SELECT count() FROM metrika.visits WHERE has(goals_order, 'товар \\'A\\'') AND length(goals_order) = 2"
            ) != "0")
        #expect(try server.query("SELECT count() FROM metrika.visits WHERE has(goals_id, 4001)") != "0")
        #expect(try server.query("SELECT DISTINCT counter_id FROM metrika.visits") == "1001")
        // One partition per counter and day: a re-loaded day is replaced whole, nothing else copied.
        #expect(
            try server.query("SELECT partition_key FROM system.tables WHERE database = 'metrika' AND name = 'visits'")
                == "(counter_id, date)")
        #expect(
            try server.query(
                "SELECT DISTINCT partition_id FROM system.parts WHERE database = 'metrika' AND table = 'visits' AND active ORDER BY partition_id"
            )
                == "1001-20260531\n1001-20260601\n1001-20260602")
        #expect(try logStatuses(api).allSatisfy { $0 == "cleaned_by_user" })

        // Another counter's row on the same day, which no re-load of 1001 may touch.
        _ = try server.query("INSERT INTO metrika.visits (visit_id, counter_id, date) VALUES (42, 2002, '2026-06-01')")
        // Run the middle day again, and the whole range: each visit is there once.
        #expect(
            try metrika(
                [
                    "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields", Self.fields,
                    "--clickhouse", server.url
                ], environment: env
            ).status == 0)
        #expect(try metrika(["logs"] + range + ["--clickhouse", server.url], environment: env).status == 0)
        #expect(
            try server.query("SELECT count(), uniqExact(visit_id) FROM metrika.visits WHERE counter_id = 1001")
                == "\(rows.count)\t\(rows.count)")
        #expect(
            try server.query("SELECT visit_id, date FROM metrika.visits WHERE counter_id = 2002") == "42\t2026-06-01")
        #expect(try server.query("SELECT count() FROM system.tables WHERE database = 'metrika'") == "1")
        #expect(try logStatuses(api).allSatisfy { $0 == "cleaned_by_user" })
    }

    func killNineMidLoadResumesTheSameRequestWithoutDuplicates(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "500"])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        let arguments = [
            "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields", Self.fields,
            "--clickhouse", server.url
        ]
        // The downloads slowed so the kill lands between parts.
        try killLogsMidLoad(arguments, environment: env, api: api)
        #expect(try logStatuses(api) == ["processed"])
        try api.reset()

        let again = try metrika(arguments, environment: env)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("resuming log request"))
        let creates = try api.requests().filter {
            ($0["method"] as? String) == "POST" && ($0["path"] as? String ?? "").hasSuffix("/logrequests")
        }.count
        #expect(creates == 0)
        let expected =
            try String(contentsOfFile: try exportTSV(api, home, env), encoding: .utf8).split(separator: "\n").count - 1
        #expect(
            try server.query("SELECT count(), uniqExact(visit_id) FROM metrika.visits") == "\(expected)\t\(expected)")
        #expect(try server.query("SELECT count() FROM system.tables WHERE database = 'metrika'") == "1")
        #expect(try logStatuses(api).allSatisfy { $0 == "cleaned_by_user" })
    }

    /// Parts as the real Logs API sends them (`--logs-quirks all`: escaped and CSV-quoted string
    /// arrays — logs_api_integration bdd94f7 and #33 —, a header in another order — #4 —, the
    /// ym:s: header names — #29 —, CRLF, a byte order mark, no last line feed) load exactly.
    func realWorldPartsLoadAsTheAPIMeantThem(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "700", "--logs-quirks", "all"])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        let range = [
            "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields",
            "visitID,date,dateTime,goalsOrder,goalsDateTime,pageViews"
        ]
        let file = home.path + "/raw.tsv"
        #expect(try metrika(range + ["--output", file], environment: env).status == 0)
        // The file keeps the bytes as sent (CRLF and all), one header, every row on a line of its own.
        let raw = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(
            raw.starts(with: Data("\u{FEFF}ym:s:counterID\tym:s:date\tym:s:dateTime".utf8))
                && raw.range(of: Data("\"[\\'Телевизор 55\"\"\\'".utf8)) != nil)
        #expect(raw.range(of: Data("\u{FEFF}".utf8), in: 3..<raw.count) == nil && raw.last == 10)
        let rows = raw.filter { $0 == 10 }.count - 1
        #expect(rows > 1000)
        let loaded = try metrika(range + ["--clickhouse", server.url], environment: env)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        let summary = try server.query(
            "SELECT count(), uniqExact(visit_id), min(date), max(date), countIf(page_views = 0) FROM metrika.visits")
        #expect(summary == "\(rows)\t\(rows)\t2026-06-01\t2026-06-01\t0", "\(loaded.stderr)")
        #expect(
            try server.query(
                "SELECT count() FROM metrika.visits WHERE has(goals_order, 'Телевизор 55\"') AND has(goals_order, 'товар \\'A\\'')"
            ) != "0")
        #expect(
            try server.query("SELECT count() FROM metrika.visits WHERE goals_order = ['товар \\'A\\'', 'b']") != "0")
        #expect(
            try server.query(
                "SELECT count() FROM metrika.visits WHERE length(goals_date_time) = 1 AND toDate(goals_date_time[1]) = date"
            ) != "0")
        #expect(try server.query("SELECT count() FROM metrika.visits WHERE toDate(date_time) != date") == "0")
    }

    /// A row that cannot be loaded (a raw tab: one field too many — what logs_api_integration filtered
    /// out silently) stops the run naming the part as the progress line counts it, the row and the
    /// raw bytes; nothing reaches the table and the request is kept for the re-run.
    func aRowThatCannotBeLoadedStopsTheRunNamingPartAndRow(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "500", "--logs-quirks", "broken_row"])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        let result = try metrika(
            [
                "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields", Self.fields,
                "--clickhouse", server.url
            ], environment: env)
        #expect(result.status == 65, "\(result.stderr)")
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errors.count == 1)
        let error = String(errors.first ?? "")
        #expect(
            error.contains("part 1 of ") && error.contains("row 2: 10 fields where the header names 9")
                && error.contains("\\traw tab'"), "\(error)")
        #expect(result.stderr.contains("is kept"))
        #expect(try server.query("SELECT count() FROM metrika.visits") == "0")
        #expect(try logStatuses(api) == ["processed"])
    }

    func exportTSV(_ api: FakeAPI, _ home: TemporaryDirectory, _ env: [String: String]) throws -> String {
        let file = home.path + "/check.tsv"
        let result = try metrika(
            [
                "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields", Self.fields,
                "--output", file
            ], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        return file
    }

    func errorsAreOneLineNamingTheTableWithTheDocumentedExitCodes(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        let base = ["logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01"]
        let unreachable = try metrika(
            base + ["--clickhouse", "http://127.0.0.1:\(try ClickHouseServer.freePort())"], environment: env)
        #expect(unreachable.status == 69)
        #expect(unreachable.stderr.contains("metrika.visits"))
        #expect(try server.query("SELECT 1") == "1")
        // A table whose columns don't fit the fields: refused before a log is ordered (issue 24.6).
        _ = try server.query("CREATE DATABASE IF NOT EXISTS other")
        _ = try server.query(
            "CREATE TABLE other.t (counter_id UInt32, date Date, visit_id UInt64) ENGINE = MergeTree() PARTITION BY toYYYYMM(date) ORDER BY (counter_id, date, visit_id)"
        )
        let rejected = try metrika(base + ["--clickhouse", server.url, "--table", "other.t"], environment: env)
        #expect(rejected.status == 78, "\(rejected.stderr)")
        let errors = rejected.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errors.count == 1)
        #expect(
            errors.first?.contains("table other.t has no column for ym:s:dateTime, ym:s:clientID") == true,
            "\(rejected.stderr)")
        #expect(errors.first?.contains("ADD COLUMN date_time DateTime, ADD COLUMN client_id UInt64") == true)
        #expect(try logStatuses(api).isEmpty)
        let wrongPassword = try metrika(
            base + ["--clickhouse", server.url],
            environment: env.merging(["METRIKA_CLICKHOUSE_PASSWORD": "nope"]) { $1 })
        #expect(wrongPassword.status == 77)
        #expect(!wrongPassword.stderr.contains("nope"))
        let inURL = try metrika(
            base + ["--clickhouse", "http://metrika:pw@127.0.0.1:\(server.httpPort)"], environment: env)
        #expect(inURL.status == 64)
    }

    /// Issue 32.4: columns of the wrong type are found before a log is ordered (exit 78, the fix
    /// named), as missing ones are; before, the log was ordered and downloaded, then Code 43.
    func columnsOfTheWrongTypeAreRefusedBeforeALogIsOrdered(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        _ = try server.query("CREATE DATABASE IF NOT EXISTS other")
        _ = try server.query(
            """
            CREATE TABLE other.t (counter_id String, date String, visit_id UInt64, page_views String, goals_id Array(UInt64), bounce UInt16)
            ENGINE = MergeTree() PARTITION BY (counter_id, date) ORDER BY (counter_id, date, visit_id)
            """)
        let base = [
            "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--clickhouse", server.url,
            "--table", "other.t"
        ]
        let refused = try metrika(base + ["--fields", "visitID,pageViews,goalsID,bounce"], environment: env)
        #expect(refused.status == 78, "\(refused.stderr)")
        let errors = refused.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(
            errors == [
                "Error: table other.t has columns of the wrong type (counter_id is String, not UInt32, date is String, not Date, page_views is String, not Int32); "
                    + "nothing was ordered. Fix: ALTER TABLE other.t MODIFY COLUMN page_views Int32; counter_id, date are in the table's key, which ALTER "
                    + "cannot retype: create the table again with the types of docs/clickhouse.md (or drop it and let metrika create it); or choose another --table."
            ], "\(refused.stderr)")
        #expect(try logStatuses(api).isEmpty)
        #expect(try server.query("SELECT count() FROM system.tables WHERE database = 'other'") == "1")
        // The ALTER it names works; wider integers (goals_id UInt64, bounce UInt16) are taken as they are.
        _ = try server.query("ALTER TABLE other.t MODIFY COLUMN page_views Int32")
        _ = try server.query("DROP TABLE other.t")
        _ = try server.query(
            """
            CREATE TABLE other.t (counter_id UInt32, date Date, visit_id UInt64, page_views Int32, goals_id Array(UInt64), bounce UInt16)
            ENGINE = MergeTree() PARTITION BY (counter_id, date) ORDER BY (counter_id, date, visit_id)
            """)
        let loaded = try metrika(base + ["--fields", "visitID,pageViews,goalsID,bounce"], environment: env)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(try server.query("SELECT count() > 0 FROM other.t") == "1")
    }

    /// Issue 32.4: `--clean-all --clickhouse` drops every staging table the counter's failed runs
    /// left (found by name in system.tables), and says how many; other tables stay.
    func cleanAllDropsEveryStagingTableOfTheCounter(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "500"])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        let arguments = [
            "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields", Self.fields,
            "--clickhouse", server.url
        ]
        try killLogsMidLoad(arguments, environment: env, api: api)
        // Another counter's staging table and a table of the user's own that only looks alike.
        _ = try server.query("CREATE TABLE metrika.visits__staging_2002_20260601_20260601 AS metrika.visits")
        _ = try server.query("CREATE TABLE metrika.visits__staging_1001_notes AS metrika.visits")
        #expect(
            try server.query(
                "SELECT count() FROM system.tables WHERE database = 'metrika' AND name LIKE 'visits\\_\\_staging\\_1001\\_2026%'"
            ) != "0")

        let cleaned = try metrika(
            ["logs", "--counter", "1001", "--clean-all", "--clickhouse", server.url], environment: env)
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        // The staging table, and the table of the part the kill cut, if it cut one.
        #expect(
            cleaned.stderr.contains("logs: counter 1001: 1 log request cleaned or cancelled; "), "\(cleaned.stderr)")
        #expect(
            cleaned.stderr.contains(" dropped (metrika.visits__staging_1001_20260601_20260601"), "\(cleaned.stderr)")
        #expect(
            try server.query("SELECT name FROM system.tables WHERE database = 'metrika' ORDER BY name")
                == "visits\nvisits__staging_1001_notes\nvisits__staging_2002_20260601_20260601")
        let again = try metrika(
            ["logs", "--counter", "1001", "--clean-all", "--clickhouse", server.url], environment: env)
        #expect(
            again.stderr.contains("0 log requests cleaned or cancelled; 0 staging tables dropped."), "\(again.stderr)")
    }

    /// Issue 32.5: after 06-01…06-09 and then 05-20…05-29, `--list` names the gap 05-30…05-31 (with
    /// rows and the last load, in TSV and JSON) and a run without dates fills it first, saying so.
    func theListNamesTheGapsAndARunWithoutDatesFillsThemFirst(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-rows-per-day", "10"])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        let base = [
            "logs", "--counter", "1001", "--source", "visits", "--fields", Self.fields, "--clickhouse", server.url
        ]
        #expect(try metrika(base + ["--from", "2026-06-01", "--to", "2026-06-09"], environment: env).status == 0)
        #expect(try metrika(base + ["--from", "2026-05-20", "--to", "2026-05-29"], environment: env).status == 0)
        let into = "127.0.0.1:\(server.httpPort)/metrika.visits"

        let list = try metrika(["logs", "--counter", "1001", "--list"], environment: env)
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(
            lines.firstIndex(of: "source\tloaded_into\tfirst_day\tlast_day\tloaded_at\trows\tloaded\tmissing"),
            "\(list.stdout)")
        let cells = lines[header + 1].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        #expect(cells.count == 8)
        #expect(Array(cells.prefix(4)) == ["visits", into, "2026-05-20", "2026-06-09"])
        #expect(
            Array(cells.suffix(3)) == ["190", "2026-05-20/2026-05-29,2026-06-01/2026-06-09", "2026-05-30/2026-05-31"],
            "\(list.stdout)")
        let json = try metrika(["logs", "--counter", "1001", "--list", "--json"], environment: env)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        let load = try #require((object["loads"] as? [[String: Any]])?.first)
        #expect(load["rows"] as? Int == 190)
        #expect((load["missing"] as? [[String: String]]) == [["from": "2026-05-30", "to": "2026-05-31"]])

        let night = try metrika(base, environment: env)
        #expect(night.status == 0, "\(night.stderr)")
        #expect(
            night.stderr.contains(
                "logs: counter 1001, visits: 2026-05-30…2026-05-31 never loaded between the days loaded before; loading it first."
            ), "\(night.stderr)")
        #expect(
            night.stderr.contains("loaded up to 2026-06-09 before; loading 2026-06-07…2026-06-14."), "\(night.stderr)")
        #expect(try logRanges(api).suffix(2) == ["2026-05-30…2026-05-31", "2026-06-07…2026-06-14"])
        #expect(
            try server.query("SELECT count(), uniqExact(date), min(date), max(date) FROM metrika.visits")
                == "260\t26\t2026-05-20\t2026-06-14")
        let after = try metrika(["logs", "--counter", "1001", "--list"], environment: env)
        #expect(after.stdout.hasSuffix("\t260\t2026-05-20/2026-06-14\t\n"), "\(after.stdout)")
    }

    func logRanges(_ api: FakeAPI) throws -> [String] {
        let data = try api.apiGET("/management/v1/counter/1001/logrequests")
        let requests =
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["requests"] as? [[String: Any]] ?? []
        return requests.compactMap { request in
            (request["date1"] as? String).map { "\($0)…\(request["date2"] as? String ?? "")" }
        }
    }

    /// Issue 23.2: the nightly run needs no dates: after an earlier load it loads the last 3 loaded
    /// days again, then every finished day up to yesterday; without one it is a usage error.
    func aRunWithoutDatesContinuesTheLastLoadWithTheLateDays(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "2000"])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        let nightly = [
            "logs", "--counter", "1001", "--source", "visits", "--fields", Self.fields, "--clickhouse", server.url
        ]

        let first = try metrika(nightly, environment: env)
        #expect(first.status == 64, "\(first.stderr)")
        #expect(
            first.stderr.contains(
                "no earlier load of counter 1001's visits into 127.0.0.1:\(server.httpPort)/metrika.visits"),
            "\(first.stderr)")
        #expect(first.stderr.contains("give --from DATE"))
        #expect(try logRanges(api).isEmpty)
        #expect(try metrika(nightly + ["--from", "2026-06-01", "--late-days", "2"], environment: env).status == 64)

        #expect(try metrika(nightly + ["--from", "2026-06-08", "--to", "2026-06-10"], environment: env).status == 0)
        let night = try metrika(nightly, environment: env)
        #expect(night.status == 0, "\(night.stderr)")
        #expect(
            night.stderr.contains("loaded up to 2026-06-10 before; loading 2026-06-08…2026-06-14"), "\(night.stderr)")
        #expect(try logRanges(api) == ["2026-06-08…2026-06-10", "2026-06-08…2026-06-14"])
        let list = try metrika(["logs", "--counter", "1001", "--list"], environment: env)
        #expect(
            list.stdout.contains(
                "\nsource\tloaded_into\tfirst_day\tlast_day\tloaded_at\trows\tloaded\tmissing\nvisits\t127.0.0.1:\(server.httpPort)/metrika.visits\t2026-06-08\t2026-06-14\t"
            ), "\(list.stdout)")

        // The next day (the simulator and metrika both a day on): the last 3 loaded days, then the new one.
        let nextNow = "2026-06-16T12:00:00Z"
        let nextAPI = try FakeAPI(arguments: ["--now", nextNow, "--logs-part-rows", "2000"])
        var nextEnv = environment(nextAPI, home, kind)
        nextEnv["METRIKA_NOW"] = nextNow
        let next = try metrika(nightly, environment: nextEnv)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try logRanges(nextAPI) == ["2026-06-12…2026-06-15"])
        // Exact: every visit of 06-08…06-15 once, as the Logs API serves them.
        let file = home.path + "/all.tsv"
        #expect(
            try metrika(
                [
                    "logs", "--counter", "1001", "--from", "2026-06-08", "--to", "2026-06-15", "--fields", Self.fields,
                    "--output", file
                ], environment: nextEnv
            ).status == 0)
        let expected = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").count - 1
        #expect(
            try server.query("SELECT count(), uniqExact(visit_id), min(date), max(date) FROM metrika.visits")
                == "\(expected)\t\(expected)\t2026-06-08\t2026-06-15")
        #expect(try server.query("SELECT count() FROM system.tables WHERE database = 'metrika'") == "1")

        // No late days and yesterday loaded: nothing to order.
        let idle = try metrika(nightly + ["--late-days", "0"], environment: nextEnv)
        #expect(idle.status == 0, "\(idle.stderr)")
        #expect(idle.stderr.contains("nothing to load"))
        #expect(try logRanges(nextAPI).count == 2)
    }

    /// A failed night keeps its request for a resume that the next night (a range moved on) never
    /// makes: the next run without dates cleans it and drops its staging tables, and loads its days.
    func aRunWithoutDatesCleansWhatAFailedEarlierOneKept(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "2000"])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        let nightly = ["logs", "--counter", "1001", "--fields", Self.fields, "--clickhouse", server.url]
        #expect(try metrika(nightly + ["--from", "2026-06-08", "--to", "2026-06-10"], environment: env).status == 0)
        try api.inject(["kind": "logs_cut_part", "count": 5])
        let failed = try metrika(nightly + ["--late-days", "2"], environment: env)
        #expect(failed.status == 69, "\(failed.stderr)")
        #expect(try logStatuses(api).last == "processed")
        #expect(
            try server.query(
                "SELECT count() FROM system.tables WHERE database = 'metrika' AND name LIKE 'visits__staging_1001_20260609_20260614%'"
            ) != "0")

        let next = try metrika(nightly, environment: env)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stderr.contains("(2026-06-09…2026-06-14), kept by a failed run, is cleaned"), "\(next.stderr)")
        #expect(try logStatuses(api).allSatisfy { $0 == "cleaned_by_user" })
        #expect(try server.query("SELECT name FROM system.tables WHERE database = 'metrika'") == "visits")
        let file = home.path + "/week.tsv"
        #expect(
            try metrika(
                [
                    "logs", "--counter", "1001", "--from", "2026-06-08", "--to", "2026-06-14", "--fields", Self.fields,
                    "--output", file
                ], environment: env
            ).status == 0)
        let expected = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").count - 1
        #expect(
            try server.query("SELECT count(), uniqExact(visit_id) FROM metrika.visits") == "\(expected)\t\(expected)")
    }

    /// Issue 25: a Distributed table given to the single-server mode wrote rows into the shards
    /// through its staging table, then failed at REPLACE PARTITION: every run added the rows again.
    func aDistributedTableIsRefusedBeforeAnythingIsOrderedOrWritten() throws {
        // 18.16 only: a Distributed table needs a cluster in remote_servers, which chdb has not.
        let kind = ClickHouseKind.server18
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        _ = try server.query("CREATE DATABASE other")
        _ = try server.query(
            "CREATE TABLE other.visits_local (counter_id UInt32, date Date, visit_id UInt64, start_url String) ENGINE = MergeTree() PARTITION BY (counter_id, date) ORDER BY (counter_id, date, visit_id)"
        )
        _ = try server.query(
            "CREATE TABLE other.visits AS other.visits_local ENGINE = Distributed(solo, other, visits_local, rand())")
        let arguments = [
            "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields",
            "visitID,date,startURL",
            "--clickhouse", server.url, "--table", "other.visits"
        ]
        for _ in 1...2 {
            let refused = try metrika(arguments, environment: env)
            #expect(refused.status == 78, "\(refused.stderr)")
            let errors = refused.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
            #expect(errors.count == 1)
            #expect(errors.first?.contains("table other.visits is a Distributed table") == true, "\(refused.stderr)")
            #expect(errors.first?.contains("--cluster NAME") == true)
        }
        #expect(try logStatuses(api).isEmpty)
        #expect(try server.query("SELECT count() FROM other.visits_local") == "0")
        #expect(
            try server.query("SELECT name FROM system.tables WHERE database = 'other' ORDER BY name")
                == "visits\nvisits_local")
    }

    /// A table made by earlier metrika (partitioned by month) keeps working: re-loads replace by month,
    /// other days and other counters' rows stay.
    func aTableOfEarlierMetrikaPartitionedByMonthStillReplacesExactly(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "2000"])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        _ = try server.query("CREATE DATABASE metrika")
        let columns =
            "visit_id UInt64, counter_id UInt32, date Date, start_url String, title String, goals_id Array(UInt32), goals_order Array(String), region_city String, page_views Int32"
        _ = try server.query(
            "CREATE TABLE metrika.visits (\(columns)) ENGINE = MergeTree() PARTITION BY toYYYYMM(date) ORDER BY (counter_id, date, visit_id)"
        )
        _ = try server.query(
            "INSERT INTO metrika.visits (visit_id, counter_id, date) VALUES (1, 2002, '2026-06-01'), (2, 1001, '2026-06-03')"
        )
        let range = [
            "logs", "--counter", "1001", "--from", "2026-05-31", "--to", "2026-06-02", "--fields", Self.fields,
            "--clickhouse", server.url
        ]
        #expect(try metrika(range, environment: env).status == 0)
        let first = try server.query(
            "SELECT count() FROM metrika.visits WHERE counter_id = 1001 AND date <= '2026-06-02'")
        #expect(first != "0")
        #expect(
            try metrika(
                [
                    "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields", Self.fields,
                    "--clickhouse", server.url
                ], environment: env
            ).status == 0)
        #expect(
            try server.query(
                "SELECT count(), uniqExact(visit_id) FROM metrika.visits WHERE counter_id = 1001 AND date <= '2026-06-02'"
            ) == "\(first)\t\(first)")
        #expect(
            try server.query("SELECT counter_id, date FROM metrika.visits WHERE visit_id IN (1, 2) ORDER BY visit_id")
                == "2002\t2026-06-01\n1001\t2026-06-03")
        #expect(try server.query("SELECT count() FROM system.tables WHERE database = 'metrika'") == "1")
    }

    func syncMirrorsTheDailyHistoryAndAResyncReplacesIt(kind: ClickHouseKind) throws {
        let server = try kind.start()
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let env = environment(api, home, kind)
        let sync = ["sync", "--counter", "1001", "--from", "2026-06-01", "--clickhouse", server.url]
        let first = try metrika(sync, environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stderr.contains("ClickHouse: 90 daily values mirrored into metrika.daily (0 unchanged"),
            "\(first.stderr)")
        let second = try metrika(sync, environment: env)
        #expect(second.status == 0)
        // Issue 24.5: the second sync re-fetched today and yesterday, found the same numbers, sent nothing.
        #expect(
            second.stderr.contains("ClickHouse: 0 daily values mirrored into metrika.daily (90 unchanged"),
            "\(second.stderr)")
        // 2026-06-01…06-15: 15 days × 6 everyday metrics, each once (not only under FINAL).
        #expect(
            try server.query("SELECT count(), uniqExact(metric) FROM metrika.daily WHERE counter_id = 1001") == "90\t6")
        #expect(
            try server.query("SELECT count(), uniqExact(metric) FROM metrika.daily FINAL WHERE counter_id = 1001")
                == "90\t6")
        // A value that differs from what was sent (as when a day's numbers move) is sent again, alone.
        _ = try HistoryTools.sqlite(
            home.path + "/h.sqlite", "UPDATE daily_mirror SET value = -1 WHERE day = '2026-06-14' AND metric = 'visits'"
        )
        let changed = try metrika(sync, environment: env)
        #expect(
            changed.stderr.contains("ClickHouse: 1 daily value mirrored into metrika.daily (89 unchanged"),
            "\(changed.stderr)")
        #expect(try server.query("SELECT count() FROM metrika.daily WHERE counter_id = 1001") == "91")
        // A table dropped since gets everything again.
        _ = try server.query("DROP TABLE metrika.daily")
        let refilled = try metrika(sync, environment: env)
        #expect(refilled.stderr.contains("ClickHouse: 90 daily values mirrored"), "\(refilled.stderr)")
        #expect(
            try server.query("SELECT count(), uniqExact(metric) FROM metrika.daily FINAL WHERE counter_id = 1001")
                == "90\t6")
        #expect(
            try server.query(
                "SELECT type FROM system.columns WHERE database = 'metrika' AND table = 'daily' ORDER BY name")
                == "UInt32\nDate\nString\nFloat64\nUInt64")
        // The day's visits in the history equal the rows the Logs API serves for that day.
        let file = home.path + "/d.tsv"
        #expect(
            try metrika(
                [
                    "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--fields", "date",
                    "--output", file
                ], environment: env
            ).status == 0)
        let rows = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").count - 1
        #expect(
            try server.query(
                "SELECT value FROM metrika.daily FINAL WHERE counter_id = 1001 AND metric = 'visits' AND date = '2026-06-01'"
            ) == "\(rows)")
    }
}

/// Each server's tests, one after another: a test empties its server first, so two tests of one
/// server cannot overlap. The two servers' lines run side by side (they were one line of 25 tests,
/// the longest chain of the whole run).
extension ClickHouseEndToEndTests {
    @Suite("clickhouse-server 18.16", .serialized)
    struct Server18 {
        let tests = ClickHouseEndToEndTests()

        @Test func loadsTypedRowsThatMatchTheTSVAndARerunReplacesTheRange() throws {
            try tests.loadsTypedRowsThatMatchTheTSVAndARerunReplacesTheRange(kind: .server18)
        }
        @Test func killNineMidLoadResumesTheSameRequestWithoutDuplicates() throws {
            try tests.killNineMidLoadResumesTheSameRequestWithoutDuplicates(kind: .server18)
        }
        @Test func realWorldPartsLoadAsTheAPIMeantThem() throws {
            try tests.realWorldPartsLoadAsTheAPIMeantThem(kind: .server18)
        }
        @Test func aRowThatCannotBeLoadedStopsTheRunNamingPartAndRow() throws {
            try tests.aRowThatCannotBeLoadedStopsTheRunNamingPartAndRow(kind: .server18)
        }
        @Test func errorsAreOneLineNamingTheTableWithTheDocumentedExitCodes() throws {
            try tests.errorsAreOneLineNamingTheTableWithTheDocumentedExitCodes(kind: .server18)
        }
        @Test func columnsOfTheWrongTypeAreRefusedBeforeALogIsOrdered() throws {
            try tests.columnsOfTheWrongTypeAreRefusedBeforeALogIsOrdered(kind: .server18)
        }
        @Test func cleanAllDropsEveryStagingTableOfTheCounter() throws {
            try tests.cleanAllDropsEveryStagingTableOfTheCounter(kind: .server18)
        }
        @Test func theListNamesTheGapsAndARunWithoutDatesFillsThemFirst() throws {
            try tests.theListNamesTheGapsAndARunWithoutDatesFillsThemFirst(kind: .server18)
        }
        @Test func aRunWithoutDatesContinuesTheLastLoadWithTheLateDays() throws {
            try tests.aRunWithoutDatesContinuesTheLastLoadWithTheLateDays(kind: .server18)
        }
        @Test func aRunWithoutDatesCleansWhatAFailedEarlierOneKept() throws {
            try tests.aRunWithoutDatesCleansWhatAFailedEarlierOneKept(kind: .server18)
        }
        @Test func aTableOfEarlierMetrikaPartitionedByMonthStillReplacesExactly() throws {
            try tests.aTableOfEarlierMetrikaPartitionedByMonthStillReplacesExactly(kind: .server18)
        }
        @Test func syncMirrorsTheDailyHistoryAndAResyncReplacesIt() throws {
            try tests.syncMirrorsTheDailyHistoryAndAResyncReplacesIt(kind: .server18)
        }
        @Test func aDistributedTableIsRefusedBeforeAnythingIsOrderedOrWritten() throws {
            try tests.aDistributedTableIsRefusedBeforeAnythingIsOrderedOrWritten()
        }
    }

    @Suite("chdb (ClickHouse 26)", .serialized)
    struct Chdb {
        let tests = ClickHouseEndToEndTests()

        @Test func loadsTypedRowsThatMatchTheTSVAndARerunReplacesTheRange() throws {
            try tests.loadsTypedRowsThatMatchTheTSVAndARerunReplacesTheRange(kind: .chdb)
        }
        @Test func killNineMidLoadResumesTheSameRequestWithoutDuplicates() throws {
            try tests.killNineMidLoadResumesTheSameRequestWithoutDuplicates(kind: .chdb)
        }
        @Test func realWorldPartsLoadAsTheAPIMeantThem() throws {
            try tests.realWorldPartsLoadAsTheAPIMeantThem(kind: .chdb)
        }
        @Test func aRowThatCannotBeLoadedStopsTheRunNamingPartAndRow() throws {
            try tests.aRowThatCannotBeLoadedStopsTheRunNamingPartAndRow(kind: .chdb)
        }
        @Test func errorsAreOneLineNamingTheTableWithTheDocumentedExitCodes() throws {
            try tests.errorsAreOneLineNamingTheTableWithTheDocumentedExitCodes(kind: .chdb)
        }
        @Test func columnsOfTheWrongTypeAreRefusedBeforeALogIsOrdered() throws {
            try tests.columnsOfTheWrongTypeAreRefusedBeforeALogIsOrdered(kind: .chdb)
        }
        @Test func cleanAllDropsEveryStagingTableOfTheCounter() throws {
            try tests.cleanAllDropsEveryStagingTableOfTheCounter(kind: .chdb)
        }
        @Test func theListNamesTheGapsAndARunWithoutDatesFillsThemFirst() throws {
            try tests.theListNamesTheGapsAndARunWithoutDatesFillsThemFirst(kind: .chdb)
        }
        @Test func aRunWithoutDatesContinuesTheLastLoadWithTheLateDays() throws {
            try tests.aRunWithoutDatesContinuesTheLastLoadWithTheLateDays(kind: .chdb)
        }
        @Test func aRunWithoutDatesCleansWhatAFailedEarlierOneKept() throws {
            try tests.aRunWithoutDatesCleansWhatAFailedEarlierOneKept(kind: .chdb)
        }
        @Test func aTableOfEarlierMetrikaPartitionedByMonthStillReplacesExactly() throws {
            try tests.aTableOfEarlierMetrikaPartitionedByMonthStillReplacesExactly(kind: .chdb)
        }
        @Test func syncMirrorsTheDailyHistoryAndAResyncReplacesIt() throws {
            try tests.syncMirrorsTheDailyHistoryAndAResyncReplacesIt(kind: .chdb)
        }
    }
}
