import Foundation
import MetrikaModel
import MetrikaTestSupport
import Testing

/// The built `metrika report` against the simulator on a loopback port: every test starts its own
/// simulator and home directory, so request logs and history databases never mix.
@Suite("metrika report end to end", .blockingLanes)
struct ReportEndToEndTests {
    // MARK: - Support

    /// One simulator and one empty home.
    final class World: @unchecked Sendable {
        let api: FakeAPI
        let home: TemporaryDirectory

        init() throws {
            api = try FakeAPI()
            home = try TemporaryDirectory()
        }

        var environment: [String: String] { metrikaEnvironment(api: api, home: home.path) }

        func report(_ arguments: [String]) throws -> ProcessResult {
            try metrika(["report"] + arguments, environment: environment)
        }

        /// Requests the simulator served under a path prefix.
        func requests(_ prefix: String = "/") throws -> [[String: Any]] {
            try api.requests().filter { ($0["path"] as? String ?? "").hasPrefix(prefix) }
        }
    }

    /// What `scripts/report_json_check.py` prints after checking a document against docs/json.md.
    struct JSONSummary: Decodable {
        struct CounterPart: Decodable {
            var counter_id: Int
            var name: String
            var site: String
            var time_zone: String
            var sampled: Bool
            var sample_share: String?
            var totals: [String]
            var missing_days: [String]
            /// `--compare` only: `from=…`, `to=…`, `totals.<metric>=…`, `change.<metric>=…`.
            var previous: [String]?
            /// A report cut by `--limit` only: `rows_total=…`, `rows=…`, `<metric>=…`.
            var other: [String]?
        }

        var version: Int
        var grouping: String?
        var period: [String]
        var query: [String: String]
        var columns: [String]
        var rows: [[String]]
        var counters: [CounterPart]
        var sampled: Bool
    }

    static var scripts: URL { Binaries.repositoryRoot.appendingPathComponent("Tests/MetrikaRenderTests/scripts") }

    /// Runs a checker script on `text` (written to a file first).
    static func python(_ script: String, on text: String) throws -> ProcessResult {
        try ToolCheck.require("python3", package: "python3", searchPath: "/usr/bin:/bin")
        let directory = try TemporaryDirectory()
        let file = directory.path + "/input"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return try runProcess(
            "/usr/bin/env", ["python3", scripts.appendingPathComponent(script).path, file],
            environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
    }

    /// CSV records as Python's csv module (strict) reads them.
    static func parseCSV(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String]] {
        let result = try python("csv_roundtrip.py", on: text)
        #expect(result.status == 0, "python csv: \(result.stderr)", sourceLocation: sourceLocation)
        return try JSONDecoder().decode([[String]].self, from: Data(result.stdout.utf8))
    }

    /// The JSON document checked and summarized by Python's json module.
    static func parseJSON(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONSummary {
        let result = try python("report_json_check.py", on: text)
        #expect(result.status == 0, "python json check: \(result.stderr)", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(JSONSummary.self, from: Data(result.stdout.utf8))
    }

    /// Today in a time zone, as the simulator and metrika both compute it from their pinned clock.
    static func today(_ timeZone: String) -> Day {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone)!
        let parts = calendar.dateComponents([.year, .month, .day], from: TestClock.date)
        return Day(year: parts.year!, month: parts.month!, day: parts.day!)!
    }

    static let moscow = "Europe/Moscow"
    static let shopTitle = "Интернет-магазин «Ромашка» (1001, romashka-shop.ru)"

    /// Table cells of a line: split on runs of two or more spaces.
    static func cells(_ line: String) -> [String] {
        line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A grouped table number back to an integer: `12 345` → 12345.
    static func integer(_ cell: String) -> Int? { Int(cell.replacingOccurrences(of: " ", with: "")) }

    // MARK: - The default report

    @Test func defaultReportIsSixMetricsByDayEndingToday() throws {
        let world = try World()
        let result = try world.report(["--counter", "1001"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        let today = Self.today(Self.moscow)
        let first = today.adding(days: -6)
        let lines = result.stdout.components(separatedBy: "\n")
        #expect(lines[0] == "\(Self.shopTitle) · \(first.iso) … \(today.iso) · by day")
        #expect(
            Self.cells(lines[1]) == [
                "Date", "Pageviews", "Visits", "Users", "Page depth", "Time on site", "Bounce rate"
            ])
        let dataLines = Array(lines[3..<10])
        let dates: [String] = dataLines.map { Self.cells($0)[0] }
        let expectedDates: [String] = (0..<7).map { (n: Int) -> String in first.adding(days: n).iso }
        #expect(dates == expectedDates)
        // Only today is marked as still changing.
        let marked: [Bool] = dataLines.map { $0.hasSuffix("  *") }
        #expect(marked == [false, false, false, false, false, false, true])
        #expect(result.stdout.contains("* today is not over yet: its numbers will still change.\n"))
        for line in dataLines {
            let row = Self.cells(line)
            #expect(row.count >= 7)
            #expect(row[4].wholeMatch(of: /\d+\.\d\d/) != nil, "page depth \(row[4])")
            #expect(row[5].wholeMatch(of: /\d\d:\d\d/) != nil, "time on site \(row[5])")
            #expect(row[6].wholeMatch(of: /\d{1,3}\.\d%/) != nil, "bounce rate \(row[6])")
        }
        #expect(Self.cells(lines[11])[0] == "Total")
        // One daily fetch (the users total over the range comes with it) and one counter lookup.
        #expect(try world.requests("/stat/").count == 1)
    }

    /// The table's totals are the documented ones: sums of counts, the API's users total (never a
    /// sum), visit-weighted bounce rate and duration, pageviews per visit — checked against the
    /// raw daily numbers of the same history.
    @Test func totalsAreWeightedAndUsersAreNeverSummed() throws {
        let world = try World()
        let table = try world.report(["--counter", "1001", "--from", "13daysAgo", "--to", "yesterday"])
        #expect(table.status == 0, "stderr: \(table.stderr)")
        let raw = try world.report([
            "--counter", "1001", "--from", "13daysAgo", "--to", "yesterday", "--csv", "--raw", "--offline"
        ])
        #expect(raw.status == 0, "stderr: \(raw.stderr)")
        let records = try Self.parseCSV(raw.stdout)
        #expect(
            records[0] == ["date", "pageviews", "visits", "users", "page_depth", "avg_visit_duration", "bounce_rate"])
        let days = records.dropFirst().map { $0.map { Double($0) } }
        #expect(days.count == 13)
        let pageviews = days.reduce(0) { $0 + $1[1]! }
        let visits = days.reduce(0) { $0 + $1[2]! }
        let usersSum = days.reduce(0) { $0 + $1[3]! }
        let duration = days.reduce(0) { $0 + $1[5]! * $1[2]! } / visits
        let bounce = days.reduce(0) { $0 + $1[6]! * $1[2]! } / visits
        let total = try #require(table.stdout.components(separatedBy: "\n").first { $0.hasPrefix("Total") }).components(
            separatedBy: "  "
        )
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(Self.integer(total[1]) == Int(pageviews))
        #expect(Self.integer(total[2]) == Int(visits))
        let users = try #require(Self.integer(total[3]))
        #expect(
            users > 0 && Double(users) < usersSum,
            "users total \(users) must be the API's distinct users, below the daily sum \(usersSum)")
        #expect(total[4] == DecimalText.format(pageviews / visits, fractionDigits: 2))
        #expect(total[5] == ValueFormatter.duration(duration))
        #expect(total[6] == DecimalText.format(bounce, fractionDigits: 1) + "%")
        // The offline run made no request at all.
        #expect(try world.requests("/stat/").count == 1)
    }

    @Test func csvIsRFC4180WithSnakeCaseHeader() throws {
        let world = try World()
        let result = try world.report(["--counter", "1001", "--csv"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // LF line ends by default (docs/reports.md; --crlf for RFC 4180's CRLF).
        #expect(result.stdout.hasSuffix("\n") && !result.stdout.unicodeScalars.contains("\r"))
        let records = try Self.parseCSV(result.stdout)
        #expect(
            records[0] == ["date", "pageviews", "visits", "users", "page_depth", "avg_visit_duration", "bounce_rate"])
        let today = Self.today(Self.moscow)
        let dates: [String] = records.dropFirst().map { $0[0] }
        let expectedDates: [String] = (0..<7).map { (n: Int) -> String in today.adding(days: n - 6).iso }
        #expect(dates == expectedDates)
        for record in records.dropFirst() {
            #expect(record[1...3].allSatisfy { $0.wholeMatch(of: /\d+/) != nil }, "counts without grouping: \(record)")
            #expect(record[4].wholeMatch(of: /\d+\.\d\d/) != nil)
            #expect(record[5].wholeMatch(of: /\d+:\d\d:\d\d/) != nil, "H:MM:SS, read as a duration by spreadsheets")
            #expect(record[6].wholeMatch(of: /\d{1,3}\.\d%/) != nil)
        }
    }

    @Test func jsonIsTheDocumentedVersionOne() throws {
        let world = try World()
        let result = try world.report(["--counter", "1001", "--json", "--metrics", "visits,users,bounceRate"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let summary = try Self.parseJSON(result.stdout)
        let today = Self.today(Self.moscow)
        #expect(summary.version == 1)
        #expect(summary.grouping == "day")
        #expect(summary.period == [today.adding(days: -6).iso, today.iso])
        #expect(summary.columns == ["date", "visits", "users", "bounce_rate"])
        #expect(summary.query["counters"] == "[1001]")
        #expect(summary.query["metrics"] == #"["ym:s:visits","ym:s:users","ym:s:bounceRate"]"#)
        #expect(summary.query["from"] == #""6daysAgo""#)
        #expect(summary.rows.count == 7)
        #expect(summary.rows.last?.first == "date=\(today.iso)")
        let flags: [String] = summary.rows.map { $0.last ?? "" }
        let expectedFlags: [String] = Array(repeating: "incomplete=false", count: 6) + ["incomplete=true"]
        #expect(flags == expectedFlags)
        #expect(summary.sampled == false)
        #expect(summary.counters.count == 1)
        #expect(summary.counters[0].counter_id == 1001)
        #expect(summary.counters[0].name == "Интернет-магазин «Ромашка»")
        #expect(summary.counters[0].time_zone == "Europe/Moscow")
        #expect(summary.counters[0].totals.map { $0.prefix { $0 != "=" } } == ["visits", "users", "bounce_rate"])
        // Visits are whole numbers in JSON, and the total is their sum.
        let visits = summary.rows.map { Int($0[1].dropFirst("visits=".count))! }
        #expect(summary.counters[0].totals[0] == "visits=\(visits.reduce(0, +))")
    }

    @Test func weeksAddUpTheirDays() throws {
        let world = try World()
        let today = Self.today(Self.moscow)
        let first = today.adding(days: -27)
        let weekly = try world.report([
            "--counter", "1001", "--from", first.iso, "--group", "week", "--metrics", "visits,users", "--csv"
        ])
        #expect(weekly.status == 0, "stderr: \(weekly.stderr)")
        let weeks = try Self.parseCSV(weekly.stdout)
        #expect(weeks[0] == ["date", "date_end", "visits", "users"])
        // Monday-start weeks, the first and last clipped to the range.
        var expected: [[String]] = []
        var start = first
        while start <= today {
            let end = min(start.startOfWeek.adding(days: 6), today)
            expected.append([start.iso, end.iso])
            start = end.adding(days: 1)
        }
        #expect(weeks.dropFirst().map { Array($0[0...1]) } == expected)
        let daily = try world.report([
            "--counter", "1001", "--from", first.iso, "--metrics", "visits,users", "--csv", "--offline"
        ])
        let days = try Self.parseCSV(daily.stdout).dropFirst()
        for week in weeks.dropFirst() {
            let sum = days.filter { $0[0] >= week[0] && $0[0] <= week[1] }.reduce(0) { $0 + Int($1[1])! }
            #expect(Int(week[2]) == sum, "week \(week[0])")
        }
        let text = try world.report(["--counter", "1001", "--from", first.iso, "--group", "week", "--offline"])
        #expect(text.stdout.contains("* this week is not over yet"))
        #expect(text.stdout.contains("Week of"))
    }

    // MARK: - Dimensions, presets, languages, limits

    @Test func trafficSourcesAreSortedByVisitsWithIDsInJSON() throws {
        let world = try World()
        // Up to yesterday: today's numbers grow between runs.
        let csv = try world.report([
            "--counter", "1001", "--dimensions", "trafficSource", "--metrics", "visits", "--to", "yesterday", "--csv"
        ])
        #expect(csv.status == 0, "stderr: \(csv.stderr)")
        let records = try Self.parseCSV(csv.stdout)
        #expect(records[0] == ["traffic_source", "visits"])
        let visits = records.dropFirst().map { Int($0[1])! }
        #expect(visits == visits.sorted(by: >))
        #expect(records.contains { $0[0] == "Search engine traffic" })
        let json = try world.report([
            "--counter", "1001", "--dimensions", "trafficSource", "--metrics", "visits", "--to", "yesterday", "--json"
        ])
        let summary = try Self.parseJSON(json.stdout)
        #expect(summary.grouping == nil)
        let searchVisits: String = try #require(records.first { $0[0] == "Search engine traffic" })[1]
        let searchRow: [String] = [
            "traffic_source=Search engine traffic", "traffic_source_id=organic", "visits=" + searchVisits
        ]
        #expect(summary.rows.contains(searchRow))
        let russian = try world.report([
            "--counter", "1001", "--dimensions", "trafficSource", "--metrics", "visits", "--lang", "ru"
        ])
        #expect(russian.status == 0)
        #expect(russian.stdout.contains("Переходы из поисковых систем"))
        #expect(!russian.stdout.contains("Search engine traffic"))
    }

    @Test func presetSourcesSummaryTakesItsColumnsFromTheAPI() throws {
        let world = try World()
        let result = try world.report(["--counter", "1001", "--preset", "sources_summary", "--csv"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let records = try Self.parseCSV(result.stdout)
        #expect(records[0] == ["traffic_source", "visits", "users", "bounce_rate", "page_depth", "avg_visit_duration"])
        #expect(records.count > 5)
        let request = try #require(try world.requests("/stat/").first)
        #expect((request["query"] as? String ?? "").contains("preset=sources_summary"))
    }

    /// Issue 24 item 2, through the real binary on a pseudo-terminal: at 60 and 80 columns every line
    /// fits and every row starts with its whole date; a pipe gets the full table whatever COLUMNS says.
    @Test(arguments: [60, 80])
    func aNarrowTerminalKeepsTheDates(columns: Int) throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let world = try World()
        let environment = world.environment.merging([
            "TERM": "xterm", "PATH": "/usr/bin:/bin", "COLUMNS": String(columns), "NO_COLOR": "1"
        ]) { $1 }
        for extra in [[], ["--compare"]] {
            let command =
                ([Binaries.metrika, "report", "--counter", "1001", "--from", "2026-10-01", "--to", "2026-10-07"] + extra)
                .joined(separator: " ")
            let terminal = try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment)
            #expect(terminal.status == 0, "\(terminal.stdout)")
            let lines = terminal.stdout.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
            for line in lines { #expect(displayWidth(of: line) <= columns, "\(extra) \(line)") }
            // Rows begin with the whole date and the column gap (the title's period line has " … ").
            let days = lines.filter { $0.hasPrefix("2026-10-0") && !$0.contains(" … ") }
            #expect(
                days.count >= 7 && days.count % 7 == 0 && days.allSatisfy { $0.dropFirst(10).hasPrefix("  ") },
                "\(extra)\n\(terminal.stdout)")
            #expect(!terminal.stdout.contains("\n…"))
        }
        let piped = try metrika(
            ["report", "--counter", "1001", "--from", "2026-10-01", "--to", "2026-10-07", "--compare"],
            environment: world.environment.merging(["COLUMNS": String(columns)]) { $1 })
        #expect(
            piped.stdoutLines.contains { displayWidth(of: $0) > 120 } && piped.stdout.contains("before"),
            "\(piped.stdout)")
    }

    /// Issue 24 item 3: `--preset traffic --group week` sent no `group=` (daily rows) and titled its
    /// column `datePeriod<group>` (CSV `date_period_group`).
    @Test func presetTrafficHonoursGroupAndNamesItsPeriod() throws {
        let world = try World()
        let arguments = [
            "--counter", "1001", "--preset", "traffic", "--group", "week", "--from", "2026-10-05", "--to", "2026-10-25",
            "--metrics", "visits"
        ]
        let table = try world.report(arguments)
        #expect(table.status == 0, "stderr: \(table.stderr)")
        #expect(table.stdout.contains("\nWeek of "), "\(table.stdout)")
        #expect(!table.stdout.contains("datePeriod") && !table.stdout.contains("<group>"), "\(table.stdout)")
        let request = try #require(try world.requests("/stat/").first)
        #expect((request["query"] as? String ?? "").contains("group=week"), "\(request)")

        let csv = try world.report(arguments + ["--csv"])
        let records = try Self.parseCSV(csv.stdout)
        #expect(records[0] == ["week", "visits"], "\(records)")
        // Three whole weeks, Monday to Sunday: three rows, not 21 days.
        #expect(records.dropFirst().map { $0[0] } == ["2026-10-05", "2026-10-12", "2026-10-19"], "\(records)")

        let json = try HistoryTools.json(try world.report(arguments + ["--json"]).stdout)
        let columns = (json["columns"] as? [[String: Any]] ?? []).map { $0["name"] as? String ?? "" }
        #expect(columns == ["week", "visits"], "\(columns)")
        #expect((json["query"] as? [String: Any])?["group"] as? String == "week")
    }

    @Test(arguments: [
        ("datePeriodweek", "Week of", "week"), ("ym:s:datePeriodmonth", "Month", "month"),
        ("ym:s:datePeriodday", "Date", "date"),
        ("ym:s:datePeriodyear", "Year", "year")
    ])
    func datePeriodDimensionsReadAsPeriods(dimension: String, title: String, column: String) throws {
        let world = try World()
        let arguments = [
            "--counter", "1001", "--dimensions", dimension, "--metrics", "visits", "--from", "2025-10-01", "--to",
            "2026-10-31"
        ]
        let table = try world.report(arguments)
        #expect(table.status == 0, "stderr: \(table.stderr)")
        #expect(table.stdout.contains("\n\(title) "), "\(table.stdout.prefix(300))")
        #expect(!table.stdout.contains("datePeriod"))
        let records = try Self.parseCSV(try world.report(arguments + ["--csv"]).stdout)
        #expect(records.first?.first == column, "\(records.first ?? [])")
    }

    /// A preset without a date period: --group cannot cut it, and a note says so.
    @Test func groupWithAPresetWithoutPeriodsSaysItHasNoEffect() throws {
        let world = try World()
        let result = try world.report(["--counter", "1001", "--preset", "sources_summary", "--group", "week", "--csv"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("--group week has no effect here"), "\(result.stderr)")
    }

    /// A limited report says so in its output, not only on stderr (issue 32, item 6): an `Other (N
    /// rows)` line of what the rows left out add up to (none for users: not a sum) and the Total
    /// labelled as over every row, in the table, CSV, JSON and HTML alike.
    @Test func limitCutsAndSaysSo() throws {
        let world = try World()
        let arguments = [
            "--counter", "1001", "--dimensions", "searchPhrase", "--metrics", "visits,users", "--limit", "5", "--to",
            "yesterday"
        ]
        let result = try world.report(arguments + ["--csv"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let records = try Self.parseCSV(result.stdout)
        #expect(records.count == 7)
        #expect(result.stderr.contains("showing the first 5 of"))

        let json = try world.report(arguments + ["--json"])
        #expect(json.status == 0, "stderr: \(json.stderr)")
        let summary = try Self.parseJSON(json.stdout)
        let other = try #require(summary.counters.first?.other, "\(json.stdout)")
        try #require(other.count == 4)
        let rowsTotal = try #require(Int(other[0].dropFirst("rows_total=".count)))
        #expect(other[1] == "rows=\(rowsTotal - 5)")
        let visits = summary.rows.map { Int($0[1].dropFirst("visits=".count))! }
        let totalVisits = try #require(
            summary.counters.first?.totals.first.flatMap { Int($0.dropFirst("visits=".count)) })
        #expect(other[2] == "visits=\(totalVisits - visits.reduce(0, +))")
        #expect(other[3] == "users=null")

        // The CSV's last record is the same rest: a column's sum is the report's total.
        let label = "Other (\(DigitGroups.group(String(rowsTotal - 5))) rows)"
        #expect(records.last == [label, String(totalVisits - visits.reduce(0, +)), ""])

        let table = try world.report(arguments)
        #expect(table.status == 0, "stderr: \(table.stderr)")
        let lines = table.stdout.components(separatedBy: "\n")
        #expect(lines.contains { $0.hasPrefix(label + " ") && $0.hasSuffix("—") }, "\(table.stdout)")
        #expect(
            lines.contains { $0.hasPrefix("Total (\(DigitGroups.group(String(rowsTotal))) rows) ") }, "\(table.stdout)")

        let html = try world.report(arguments + ["--format", "html"])
        #expect(html.status == 0, "stderr: \(html.stderr)")
        // Numbers never break in HTML: their spaces are no-break ones.
        let page = html.stdout.replacingOccurrences(of: "\u{00A0}", with: " ")
        #expect(page.contains(">\(label)<"), "\(html.stdout)")
        #expect(page.contains(">Total (\(DigitGroups.group(String(rowsTotal))) rows)<"), "\(html.stdout)")
    }

    /// 50,000 search phrases of the big counter: three pages, every row exactly once, CSV intact.
    @Test func bigDimensionReportIsPaged() throws {
        let world = try World()
        // Up to yesterday: today's numbers change between pages and could move a row across a page
        // boundary. A generous timeout: a 20,000-row page of the big counter takes the simulator a while.
        var environment = world.environment
        environment["METRIKA_TIMEOUT"] = "120"
        let result = try metrika(
            [
                "report", "--counter", "1004", "--dimensions", "searchPhrase", "--metrics", "visits",
                "--limit", "50000", "--to", "yesterday", "--csv"
            ], environment: environment, timeout: 300)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // The header, 50,000 phrases, and the record of the phrases left out.
        var records = try Self.parseCSV(result.stdout)
        #expect(records.count == 50_002)
        #expect(records.last?.first?.hasPrefix("Other (") == true)
        records.removeLast()
        #expect(Set(records.dropFirst().map { $0[0] }).count == 50_000)
        let visits = records.dropFirst().map { Int($0[1])! }
        #expect(visits == visits.sorted(by: >))
        let answered = try world.requests("/stat/v1/data").filter { $0["status"] as? Int == 200 }
        let offsets: [String] = answered.compactMap { (request: [String: Any]) -> String? in
            (request["query"] as? String)?.split(separator: "&").first { $0.hasPrefix("offset=") }.map(String.init)
        }
        #expect(offsets == ["offset=1", "offset=20001", "offset=40001"])
    }

    /// A time series that has to come from the API (not full accuracy) covers every day of a long range.
    @Test func longTimeSeriesThroughTheAPIIsNotCut() throws {
        let world = try World()
        let result = try world.report([
            "--counter", "1001", "--accuracy", "high", "--from", "149daysAgo", "--metrics", "visits", "--csv"
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let records = try Self.parseCSV(result.stdout)
        #expect(records.count == 151)
        #expect(records.last?[0] == Self.today(Self.moscow).iso)
    }

    // MARK: - Several counters, sampling, --raw

    @Test func twoCountersGetACounterColumnAndOneTablePerCounter() throws {
        let world = try World()
        let csv = try world.report(["--counter", "1001,1002", "--metrics", "visits", "--from", "2daysAgo", "--csv"])
        #expect(csv.status == 0, "stderr: \(csv.stderr)")
        let records = try Self.parseCSV(csv.stdout)
        #expect(records[0] == ["counter_id", "date", "visits"])
        #expect(records.dropFirst().map { $0[0] } == ["1001", "1001", "1001", "1002", "1002", "1002"])
        let shopToday = Self.today(Self.moscow)
        let hostileToday = Self.today("Asia/Yekaterinburg")
        let shopDays: [String] = (0..<3).map { (n: Int) -> String in shopToday.adding(days: n - 2).iso }
        let hostileDays: [String] = (0..<3).map { (n: Int) -> String in hostileToday.adding(days: n - 2).iso }
        let dates: [String] = records.dropFirst().map { $0[1] }
        #expect(dates == shopDays + hostileDays)

        let json = try world.report([
            "--counter", "1001,1002", "--metrics", "visits", "--from", "2daysAgo", "--json", "--offline"
        ])
        let summary = try Self.parseJSON(json.stdout)
        #expect(summary.columns == ["counter_id", "date", "visits"])
        #expect(summary.counters.map(\.counter_id) == [1001, 1002])
        #expect(summary.counters[1].name == "<script>alert(\"x\")</script> & Co")
        #expect(
            summary.rows.map { $0[0] } == [
                "counter_id=1001", "counter_id=1001", "counter_id=1001", "counter_id=1002", "counter_id=1002",
                "counter_id=1002"
            ])

        let text = try world.report(["--counter", "1001,1002", "--metrics", "visits", "--from", "2daysAgo", "--offline"]
        )
        let titles = text.stdout.components(separatedBy: "\n").filter { $0.contains(" · ") }
        #expect(titles.count == 2)
        #expect(titles[0].hasPrefix(Self.shopTitle))
        #expect(titles[1].hasPrefix("<script>alert(\"x\")</script> & Co (1002, xss-and-co.example.com)"))
        #expect(!text.stdout.contains("counter_id"))
    }

    /// At 20:00 UTC Yekaterinburg (counter 1002) is already a day ahead of Moscow (1001): each counter
    /// resolves `yesterday`/`today` in its own zone, and the JSON's period spans both (it used to be the
    /// first counter's days, and 1002's last row fell outside it: the CI run at 19:xx UTC caught it).
    @Test(arguments: [["--offline"], ["--accuracy", "high"]])
    func countersInDifferentTimeZonesShareOnePeriodSpanningBoth(path: [String]) throws {
        let now = "2026-11-29T20:00:00Z"
        let api = try FakeAPI(arguments: ["--now", now])
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_NOW": now, "METRIKA_DB": home.path + "/h.sqlite"])
        let arguments = [
            "report", "--counter", "1001,1002", "--metrics", "visits", "--from", "yesterday", "--to", "today", "--json"
        ]
        if path == ["--offline"] {
            let fill = try metrika(
                [
                    "report", "--counter", "1001,1002", "--metrics", "visits", "--from", "yesterday", "--to", "today",
                    "--csv"
                ], environment: environment)
            #expect(fill.status == 0, "stderr: \(fill.stderr)")
        }
        let json = try metrika(arguments + path, environment: environment)
        #expect(json.status == 0, "stderr: \(json.stderr)")
        let summary = try Self.parseJSON(json.stdout)
        #expect(summary.period == ["2026-11-28", "2026-11-30"])
        let days = summary.rows.map { $0.prefix(2).joined(separator: " ") }
        #expect(
            days == [
                "counter_id=1001 date=2026-11-28", "counter_id=1001 date=2026-11-29",
                "counter_id=1002 date=2026-11-29", "counter_id=1002 date=2026-11-30"
            ])
    }

    @Test func sampledAnswersAreFlagged() throws {
        let world = try World()
        let json = try world.report(["--counter", "1004", "--accuracy", "medium", "--metrics", "visits", "--json"])
        #expect(json.status == 0, "stderr: \(json.stderr)")
        let summary = try Self.parseJSON(json.stdout)
        #expect(summary.sampled)
        #expect(summary.counters[0].sampled)
        let share = try #require(summary.counters[0].sample_share.flatMap(Double.init))
        #expect(share > 0 && share < 1)
        let percent = DecimalText.format(share * 100, fractionDigits: 1)
        #expect(json.stderr.contains("counter 1004's numbers are estimates: Metrika sampled \(percent)% of visits"))
        let text = try world.report(["--counter", "1004", "--accuracy", "medium", "--metrics", "visits"])
        #expect(text.stdout.contains("Sampled: numbers are estimates from \(percent)% of visits."))
        // Exact numbers are not sampled and say nothing.
        let full = try world.report(["--counter", "1004", "--metrics", "visits", "--json"])
        #expect(try Self.parseJSON(full.stdout).sampled == false)
        #expect(!full.stderr.contains("estimates"))
    }

    /// `--raw` prints the API's numbers; the normalized text is exactly their rounding.
    @Test func rawIsTheAPIUnitsOfTheNormalizedValues() throws {
        let world = try World()
        let metrics = ["--metrics", "avgVisitDuration,bounceRate,pageDepth", "--from", "5daysAgo", "--csv"]
        let raw = try Self.parseCSV(try world.report(["--counter", "1001", "--raw"] + metrics).stdout)
        let shown = try Self.parseCSV(try world.report(["--counter", "1001", "--offline"] + metrics).stdout)
        #expect(raw.count == 7 && shown.count == 7)
        for (rawRow, shownRow) in zip(raw.dropFirst(), shown.dropFirst()) {
            let seconds = try #require(Double(rawRow[1]))
            let bounce = try #require(Double(rawRow[2]))
            let depth = try #require(Double(rawRow[3]))
            let whole = Int((seconds + 0.5).rounded(.down))
            #expect(shownRow[1] == String(format: "%d:%02d:%02d", whole / 3600, whole % 3600 / 60, whole % 60))
            #expect(bounce > 1 && bounce < 100, "bounce rate arrives as a percent: \(bounce)")
            #expect(shownRow[2] == DecimalText.format(bounce, fractionDigits: 1) + "%")
            #expect(shownRow[3] == DecimalText.format(depth, fractionDigits: 2))
        }
    }

    // MARK: - Refusals

    @Test func unknownAPIMetricIsTheAPIsMessage() throws {
        let world = try World()
        let result = try world.report(["--counter", "1001", "--metrics", "ym:s:fooBar"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Unknown metric: ym:s:fooBar"), "stderr: \(result.stderr)")
        #expect(try world.requests("/stat/").map { $0["status"] as? Int } == [400])
    }

    @Test func foreignCounterIsAccessDenied() throws {
        let world = try World()
        let result = try world.report(["--counter", "9999"])
        #expect(result.status == 77)
        #expect(result.stderr.contains("9999"), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.contains(demoToken))
    }

    @Test func unknownCounterIsNamed() throws {
        let world = try World()
        let result = try world.report(["--counter", "424242", "--csv"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("424242"), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
