import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel
@testable import MetrikaRender

/// `metrika report --compare` (issue 14, item 10): every value beside the previous period's and the
/// change, in the table, CSV and JSON; the previous period costs at most one request per counter and
/// none when the history has it; days before a counter existed are unknown (—), never zero.
@Suite("metrika report --compare end to end", .serialized, .blockingLanes)
struct CompareEndToEndTests {
    /// Both clocks pinned: a Sunday. lastWeek is 2026-11-16 … 2026-11-22; the week before it 11-09 … 11-15.
    static let now = "2026-11-29T12:00:00Z"

    final class World: @unchecked Sendable {
        let api: FakeAPI
        let home: TemporaryDirectory

        let now: String

        init(now: String = CompareEndToEndTests.now) throws {
            self.now = now
            api = try FakeAPI(arguments: ["--now", now])
            home = try TemporaryDirectory()
        }

        var environment: [String: String] {
            metrikaEnvironment(
                api: api, home: home.path, extra: ["METRIKA_NOW": now, "METRIKA_DB": home.path + "/history.sqlite"])
        }

        func report(_ arguments: [String]) throws -> ProcessResult {
            try metrika(["report"] + arguments, environment: environment)
        }
        func statRequests() throws -> Int { try api.requestCount(pathPrefix: "/stat") }
    }

    static let metrics = "visits,users,pageDepth,bounceRate"

    /// A plain `--raw --csv` report's records as numbers by date (column order of `metrics`).
    static func rawDays(_ world: World, from: String, to: String, metrics: String = metrics) throws -> [String:
        [Double?]]
    {
        let result = try world.report([
            "--counter", "1001", "--from", from, "--to", to, "--metrics", metrics, "--csv", "--raw", "--offline"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        var days: [String: [Double?]] = [:]
        for record in try ReportEndToEndTests.parseCSV(result.stdout).dropFirst() {
            days[record[0]] = record.dropFirst().map { Double($0) }
        }
        return days
    }

    @Test func csvHasThePreviousValueAndTheChangeBesideEveryValue() throws {
        let world = try World()
        let result = try world.report([
            "--counter", "1001", "--period", "lastWeek", "--metrics", Self.metrics, "--compare", "--csv", "--raw"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        // One request for the week, at most one more for the week before.
        #expect(try world.statRequests() <= 2)
        let records = try ReportEndToEndTests.parseCSV(result.stdout)
        #expect(
            records[0] == [
                "date", "previous_date",
                "visits", "visits_previous", "visits_change_pct", "users", "users_previous", "users_change_pct",
                "page_depth", "page_depth_previous", "page_depth_change_pct",
                "bounce_rate", "bounce_rate_previous", "bounce_rate_change_pp"
            ])
        let current = try Self.rawDays(world, from: "2026-11-16", to: "2026-11-22")
        let previous = try Self.rawDays(world, from: "2026-11-09", to: "2026-11-15")
        #expect(records.count == 8)
        for record in records.dropFirst() {
            let day = try #require(Day(iso: record[0]))
            // The day a week earlier: the same weekday.
            #expect(record[1] == day.adding(days: -7).iso)
            let now = try #require(current[record[0]])
            let before = try #require(previous[record[1]])
            for (index, base) in [2, 5, 8, 11].enumerated() {
                #expect(Double(record[base]) == now[index])
                #expect(Double(record[base + 1]) == before[index], "\(record[0]) \(records[0][base + 1])")
                let value = try #require(now[index])
                let old = try #require(before[index])
                let change = try #require(Double(record[base + 2]), "\(records[0][base + 2]) of \(record[0])")
                // Rates in percentage points; counts and page depth relative.
                let expected = index == 3 ? value - old : (value - old) / old * 100
                #expect(
                    abs(change - expected) < 1e-9, "\(records[0][base + 2]) of \(record[0]): \(change) vs \(expected)")
            }
        }
    }

    @Test func tableShowsBeforeAndChangeWithTheAPIsUsersTotals() throws {
        let world = try World()
        let table = try world.report([
            "--counter", "1001", "--period", "lastWeek", "--metrics", Self.metrics, "--compare"
        ])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.components(separatedBy: "\n")
        #expect(
            lines[0].hasSuffix("· 2026-11-16 … 2026-11-22 · by day · against 2026-11-09 … 2026-11-15"), "\(lines[0])")
        #expect(
            ReportEndToEndTests.cells(lines[1]) == [
                "Date", "Visits", "before", "change", "Users", "before", "change",
                "Page depth", "before", "change", "Bounce rate", "before", "change"
            ])
        let requests = try world.statRequests()
        #expect(requests <= 2)
        // The previous week's totals as a plain report of that week shows them (users: the API's total).
        let plain = try world.report([
            "--counter", "1001", "--from", "2026-11-09", "--to", "2026-11-15", "--metrics", Self.metrics, "--offline"
        ])
        #expect(try world.statRequests() == requests)
        let plainTotal = ReportEndToEndTests.cells(
            try #require(plain.stdout.components(separatedBy: "\n").first { $0.hasPrefix("Total") }))
        let total = ReportEndToEndTests.cells(try #require(lines.first { $0.hasPrefix("Total") }))
        #expect(total.count == 13)
        #expect([total[2], total[5], total[8], total[11]] == Array(plainTotal[1...4]))
        for index in [3, 6, 9] { #expect(total[index].wholeMatch(of: /[+-]\d+\.\d%|0\.0%/) != nil, "\(total[index])") }
        #expect(total[12].wholeMatch(of: /[+-]\d+\.\d pp|0\.0 pp/) != nil, "\(total[12])")
        // The visits change is the documented one, from the totals shown.
        let visits = Double(try #require(ReportEndToEndTests.integer(total[1])))
        let before = Double(try #require(ReportEndToEndTests.integer(total[2])))
        #expect(total[3] == Change(from: Quantity(before, unit: .count), to: Quantity(visits, unit: .count)).text())
        // A pipe gets no colour.
        #expect(!table.stdout.contains("\u{1B}["))

        // Everything is in the history now: the same report again asks nothing, offline too.
        let again = try world.report([
            "--counter", "1001", "--period", "lastWeek", "--metrics", Self.metrics, "--compare"
        ])
        let offline = try world.report([
            "--counter", "1001", "--period", "lastWeek", "--metrics", Self.metrics, "--compare", "--offline"
        ])
        #expect(again.stdout == table.stdout && offline.stdout == table.stdout)
        #expect(try world.statRequests() == requests)
    }

    @Test func jsonHasAPreviousBlockPerRowAndPerCounter() throws {
        let world = try World()
        let result = try world.report([
            "--counter", "1001", "--from", "2026-11-20", "--to", "2026-11-22", "--metrics", "visits,users,bounceRate",
            "--compare", "--json"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try ReportEndToEndTests.parseJSON(result.stdout)
        #expect(summary.version == 1)
        #expect(summary.query["compare"] == "true")
        #expect(summary.columns == ["date", "visits", "users", "bounce_rate"])
        let raw = try Self.rawDays(world, from: "2026-11-17", to: "2026-11-19", metrics: "visits,users,bounceRate")
        #expect(summary.rows.count == 3)
        for row in summary.rows {
            let date = try #require(row.first { $0.hasPrefix("date=") }).dropFirst(5)
            let previousDate = try #require(Day(iso: String(date))).adding(days: -3).iso
            #expect(row.contains("previous.date=\(previousDate)"))
            let before = try #require(raw[previousDate])
            #expect(row.contains("previous.visits=\(Int(try #require(before[0])))"))
            #expect(
                row.contains { $0.hasPrefix("change.visits=") } && row.contains { $0.hasPrefix("change.bounce_rate=") })
        }
        let previous = try #require(summary.counters[0].previous)
        #expect(previous.prefix(2) == ["from=2026-11-17", "to=2026-11-19"])
        let plain = try ReportEndToEndTests.parseJSON(
            try world.report([
                "--counter", "1001", "--from", "2026-11-17", "--to", "2026-11-19", "--metrics",
                "visits,users,bounceRate", "--json", "--offline"
            ]).stdout)
        // The previous totals are the ones a report of that period has (users: the API's, never a sum).
        #expect(Array(previous[2..<5]) == plain.counters[0].totals.map { "totals." + $0 })
    }

    /// Counter 1005 was created 2026-06-12: a previous period before that day is unknown, not zero,
    /// and costs no request.
    @Test func aPreviousPeriodBeforeTheCounterExistedIsMissing() throws {
        let world = try World()
        let whole = try world.report([
            "--counter", "1005", "--from", "2026-06-12", "--to", "2026-06-14", "--metrics", "visits", "--compare",
            "--csv"
        ])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try world.statRequests() == 1)
        let records = try ReportEndToEndTests.parseCSV(whole.stdout)
        #expect(records[0] == ["date", "previous_date", "visits", "visits_previous", "visits_change_pct"])
        for record in records.dropFirst() {
            #expect(record[3] == "" && record[4] == "", "\(record)")
            #expect(!record[2].isEmpty)
        }
        // Half before the creation day: those days and the total are unknown; the rest compares.
        let half = try world.report([
            "--counter", "1005", "--from", "2026-06-15", "--to", "2026-06-20", "--metrics", "visits", "--compare"
        ])
        #expect(half.status == 0, "\(half.stderr)")
        let rows = half.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("2026-06-") }.map(
            ReportEndToEndTests.cells)
        #expect(rows.count == 6)
        #expect(rows.prefix(3).allSatisfy { $0[2] == "—" && $0[3] == "—" }, "\(half.stdout)")
        #expect(rows.suffix(3).allSatisfy { $0[2] != "—" && $0[3] != "—" }, "\(half.stdout)")
        let total = ReportEndToEndTests.cells(
            try #require(half.stdout.components(separatedBy: "\n").first { $0.hasPrefix("Total") }))
        #expect(total[2] == "—" && total[3] == "—")
    }

    @Test func offlineWithoutThePreviousHistorySaysSoAndShowsDashes() throws {
        let world = try World()
        let filled = try world.report([
            "--counter", "1001", "--from", "2026-11-20", "--to", "2026-11-22", "--metrics", "visits"
        ])
        #expect(filled.status == 0, "\(filled.stderr)")
        let requests = try world.statRequests()
        let offline = try world.report([
            "--counter", "1001", "--from", "2026-11-20", "--to", "2026-11-22", "--metrics", "visits", "--compare",
            "--offline", "--csv"
        ])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(try world.statRequests() == requests)
        let records = try ReportEndToEndTests.parseCSV(offline.stdout)
        #expect(records.dropFirst().allSatisfy { $0[3] == "" && $0[4] == "" && !$0[2].isEmpty }, "\(records)")
        #expect(
            offline.stderr.contains("has no history for 2026-11-17 … 2026-11-19 of the previous period"),
            "\(offline.stderr)")
    }

    /// Issue 48 target 7: an ordinary Monday at 16:30 (Moscow). Today alone was refused (before it,
    /// set against the whole of a day: −35%); now its finished hours, 00:00–16:00, stand against the
    /// same hours of the same weekday a week before, said in the title, in every format.
    static let monday = "2026-11-30T13:30:00Z"

    /// The visits of `day`'s hours 00:00–15:00 by the hour report (the like-for-like truth), and of the whole day.
    static func hourlyVisits(_ world: World, day: String) throws -> (finished: Double, whole: Double) {
        let result = try world.report([
            "--counter", "1001", "--from", day, "--to", day, "--dimensions", "hour", "--metrics", "visits",
            "--csv", "--raw", "--limit", "24"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        var finished = 0.0
        var whole = 0.0
        for record in try ReportEndToEndTests.parseCSV(result.stdout).dropFirst() {
            let value = Double(record[1]) ?? 0
            whole += value
            if let hour = Int(record[0].prefix(2)), hour < 16 { finished += value }
        }
        return (finished, whole)
    }

    @Test(arguments: [["--from", "today"], ["--period", "today"]])
    func todayIsComparedByItsFinishedHoursLikeForLike(arguments: [String]) throws {
        let world = try World(now: Self.monday)
        let csv = try world.report(
            ["--counter", "1001", "--metrics", "visits", "--compare", "--csv", "--raw"] + arguments)
        #expect(csv.status == 0, "\(csv.stderr)")
        let record = try #require(try ReportEndToEndTests.parseCSV(csv.stdout).dropFirst().first)
        let today = try Self.hourlyVisits(world, day: "2026-11-30")
        let weekBefore = try Self.hourlyVisits(world, day: "2026-11-23")
        #expect(record[0] == "2026-11-30" && record[1] == "2026-11-23", "\(record)")
        #expect(Double(record[2]) == today.finished, "\(record) vs \(today)")
        #expect(Double(record[3]) == weekBefore.finished, "\(record) vs \(weekBefore)")
        // Within a few percent, where today so far against the whole of that day was −35% or so.
        let change = try #require(Double(record[4]))
        #expect(abs(change) < 6, "\(record)")
        #expect(today.finished / weekBefore.whole - 1 < -0.3, "\(today) \(weekBefore)")
        let table = try world.report(["--counter", "1001", "--metrics", "visits", "--compare"] + arguments)
        #expect(table.stdout.contains("today 00:00–16:00 vs Mon 2026-11-23 00:00–16:00"), "\(table.stdout)")
        let json = try world.report(["--counter", "1001", "--metrics", "visits", "--compare", "--json"] + arguments)
        #expect(json.stdout.contains("\"last_day_hours\": \"00:00–16:00\""), "\(json.stdout)")
    }

    /// A period that ends today: its earlier days whole, its last day by today's finished hours
    /// against the same hours of the previous period's last day; a dimension report says the same.
    @Test func aPeriodEndingTodayComparesItsLastDayByFinishedHours() throws {
        let world = try World(now: Self.monday)
        let csv = try world.report([
            "--counter", "1001", "--metrics", "visits", "--compare", "--csv", "--raw", "--from", "2026-11-24", "--to",
            "today"
        ])
        #expect(csv.status == 0, "\(csv.stderr)")
        let records = try ReportEndToEndTests.parseCSV(csv.stdout).dropFirst()
        let last = try #require(records.last)
        let today = try Self.hourlyVisits(world, day: "2026-11-30")
        let before = try Self.hourlyVisits(world, day: "2026-11-23")
        #expect(Double(last[2]) == today.finished && Double(last[3]) == before.finished, "\(last)")
        let first = try #require(records.first)
        #expect(Double(first[3]) == (try Self.hourlyVisits(world, day: "2026-11-17")).whole, "\(first)")
        let table = try world.report([
            "--counter", "1001", "--metrics", "visits", "--compare", "--from", "2026-11-24", "--to", "today"
        ])
        #expect(
            table.stdout.contains("2026-11-24 … today 00:00–16:00 vs 2026-11-17 … Mon 2026-11-23 00:00–16:00"),
            "\(table.stdout)")
        let sources = try world.report([
            "--counter", "1001", "--metrics", "visits", "--compare", "--from", "today", "--dimensions",
            "trafficSource", "--csv", "--raw"
        ])
        #expect(sources.status == 0, "\(sources.stderr)")
        let rows = try ReportEndToEndTests.parseCSV(sources.stdout).dropFirst()
        let visits = rows.compactMap { Double($0[2]) }.reduce(0, +)
        let previous = rows.compactMap { Double($0[3]) }.reduce(0, +)
        #expect(rows.first?.count == 5, "\(rows)")
        #expect(visits == today.finished && previous == before.finished, "\(rows)")
        // The week ending today by source: its totals are the time series' (the last days cut alike), said so.
        let week = try world.report([
            "--counter", "1001", "--metrics", "visits", "--compare", "--from", "2026-11-24", "--to", "today",
            "--dimensions", "trafficSource"
        ])
        #expect(week.status == 0, "\(week.stderr)")
        #expect(
            week.stdout.contains("2026-11-24 … today 00:00–16:00 vs 2026-11-17 … Mon 2026-11-23 00:00–16:00"),
            "\(week.stdout)")
        let weekRows = try ReportEndToEndTests.parseCSV(
            try world.report([
                "--counter", "1001", "--metrics", "visits", "--compare", "--from", "2026-11-24", "--to", "today",
                "--dimensions", "trafficSource", "--csv", "--raw"
            ]).stdout
        ).dropFirst()
        func sum(_ rows: ArraySlice<[String]>, _ column: Int) -> Double {
            rows.compactMap { Double($0[column]) }.reduce(0, +)
        }
        #expect(weekRows.count > 5, "\(weekRows)")
        #expect(sum(weekRows, 2) == sum(records, 2) && sum(weekRows, 3) == sum(records, 3), "\(weekRows) \(records)")
    }

    /// Before today's first hour is over there is nothing to compare yet; offline, the hours are not there.
    @Test func todayBeforeItsFirstHourOrOfflineIsRefusedSayingWhy() throws {
        let world = try World(now: "2026-11-29T21:30:00Z")
        let early = try world.report(["--counter", "1001", "--metrics", "visits", "--compare", "--from", "today"])
        #expect(early.status == 64, "\(early.stderr)")
        #expect(early.stderr.contains("no hour of today is over yet"), "\(early.stderr)")
        #expect(early.stderr.contains("--to yesterday") && early.stderr.contains("metrika live --counter 1001"))
        let monday = try World(now: Self.monday)
        #expect(try monday.report(["--counter", "1001", "--metrics", "visits", "--from", "2026-11-16"]).status == 0)
        let offline = try monday.report([
            "--counter", "1001", "--metrics", "visits", "--compare", "--from", "today", "--offline"
        ])
        #expect(offline.status == 64, "\(offline.stderr)")
        #expect(offline.stderr.contains("which only the API has"), "\(offline.stderr)")
    }

    /// A plain `--compare` (no dates) is not refused for dates nobody chose: it compares the last 7
    /// whole days (7daysAgo … yesterday) with the 7 before them, never today's hours so far.
    @Test func compareWithoutDatesTakesTheLastSevenWholeDays() throws {
        let world = try World()
        let result = try world.report(["--counter", "1001", "--metrics", "visits", "--compare", "--csv"])
        #expect(result.status == 0, "\(result.stderr)")
        let dates = try ReportEndToEndTests.parseCSV(result.stdout).dropFirst().map { $0[0] }
        #expect(
            dates == ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28"],
            "\(dates)")
        let table = try world.report(["--counter", "1001", "--metrics", "visits", "--compare"])
        #expect(
            table.stdout.contains("2026-11-22 … 2026-11-28")
                && table.stdout.contains("against 2026-11-15 … 2026-11-21"), "\(table.stdout)")
        // Without --compare the default still ends today.
        let plain = try world.report(["--counter", "1001", "--metrics", "visits", "--csv"])
        #expect(try ReportEndToEndTests.parseCSV(plain.stdout).last?[0] == "2026-11-29", "\(plain.stdout)")
    }

    /// Issue 39 item 5: `--dimensions … --compare` gives each row its previous value and change from
    /// one comparison request; a phrase only one day had says new (or gone) in the table and CSV.
    @Test func aDimensionReportComparesEachRow() throws {
        let world = try World()
        let arguments = [
            "--counter", "1002", "--from", "2026-10-05", "--to", "2026-10-05", "--dimensions", "searchPhrase",
            "--metrics", "visits,users", "--compare", "--limit", "500"
        ]
        let csv = try world.report(arguments + ["--csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(try world.statRequests() == 1)
        let records = try ReportEndToEndTests.parseCSV(csv.stdout)
        #expect(
            records.first == [
                "search_phrase", "presence", "visits", "visits_previous", "visits_change_pct", "users",
                "users_previous", "users_change_pct"
            ])
        let presences = Set(records.dropFirst().map { $0[1] })
        #expect(presences == ["both", "new"], "\(presences)")
        for record in records.dropFirst() where record[1] == "new" {
            #expect(record[3] == "0" && record[4] == "", "\(record)")
        }
        // The previous day's own report holds each "before".
        let previous = try world.report([
            "--counter", "1002", "--from", "2026-10-04", "--to", "2026-10-04", "--dimensions", "searchPhrase",
            "--metrics", "visits", "--limit", "500", "--csv"
        ])
        var before: [String: String] = [:]
        for record in try ReportEndToEndTests.parseCSV(previous.stdout).dropFirst() { before[record[0]] = record[1] }
        for record in records.dropFirst() where record[1] == "both" {
            #expect(before[record[0]] == record[3], "\(record)")
        }
        let table = try world.report(arguments)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(
            table.stdout.contains("against 2026-10-04 … 2026-10-04") && table.stdout.contains(" new\n"),
            "\(table.stdout)")
        let document =
            try JSONSerialization.jsonObject(with: Data(try world.report(arguments + ["--json"]).stdout.utf8))
            as? [String: Any]
        let rows = document?["rows"] as? [[String: Any]] ?? []
        #expect(
            rows.count == records.count - 1
                && rows.allSatisfy { $0["presence"] is String && $0["previous"] is [String: Any] })
    }

    /// A limited compared report's `Other (N rows)` has its before and change like any row: the
    /// previous totals less the shown rows' previous values (a newcomer saw it bare), in the table,
    /// the CSV and the JSON.
    @Test func theRowsLeftOutOfAComparedReportHaveTheirBefore() throws {
        let world = try World()
        let arguments = [
            "--counter", "1001", "--dimensions", "searchPhrase", "--metrics", "visits", "--period", "lastWeek",
            "--compare", "--limit", "5"
        ]
        let csv = try world.report(arguments + ["--csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let records = try ReportEndToEndTests.parseCSV(csv.stdout)
        #expect(
            records.first == ["search_phrase", "presence", "visits", "visits_previous", "visits_change_pct"],
            "\(records)")
        let shown = records.dropFirst().filter { !$0[0].hasPrefix("Other (") }
        let other = try #require(records.first { $0[0].hasPrefix("Other (") }, "\(csv.stdout)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(try world.report(arguments + ["--json"]).stdout.utf8))
                as? [String: Any])
        let counter = try #require((document["counters"] as? [[String: Any]])?.first)
        let previousTotal = try #require(
            ((counter["previous"] as? [String: Any])?["totals"] as? [String: Any])?["visits"] as? Double)
        let shownBefore = shown.reduce(0.0) { $0 + (Double($1[3]) ?? .nan) }
        #expect(Double(other[3]) == previousTotal - shownBefore, "\(other) against \(previousTotal) − \(shownBefore)")
        #expect(!other[4].isEmpty, "\(other)")
        let rest = try #require(counter["other"] as? [String: Any])
        #expect((rest["previous"] as? [String: Any])?["visits"] as? Double == previousTotal - shownBefore, "\(rest)")
        #expect((rest["change"] as? [String: Any])?["visits"] is Double, "\(rest)")
        let table = try world.report(arguments)
        let line = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("Other (") }.map(String.init))
        #expect(ReportEndToEndTests.cells(line).count == 4, "value, before and change: \(line)")
    }

    /// On a terminal (script(1)'s pseudo-terminal) the changes are green and red; the values stay plain.
    @Test func aColourTerminalColoursOnlyTheChanges() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let world = try World()
        let command =
            "\(Binaries.metrika) report --counter 1001 --period lastWeek --metrics visits,bounceRate --compare"
        let environment = world.environment.merging(["TERM": "xterm", "PATH": "/usr/bin:/bin"]) { $1 }
        let terminal = try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment)
        #expect(
            terminal.stdout.contains("\u{1B}[32m+") || terminal.stdout.contains("\u{1B}[31m-"),
            "\(terminal.stdout.debugDescription)")
        #expect(!terminal.stdout.contains("\u{1B}[32m4") && !terminal.stdout.contains("\u{1B}[31m2"))
        let noColor = try runProcess(
            "/usr/bin/script", ["-qec", command, "/dev/null"],
            environment: environment.merging(["NO_COLOR": "1"]) { $1 })
        #expect(
            noColor.stdout.contains("change") && !noColor.stdout.contains("\u{1B}["),
            "\(noColor.stdout.debugDescription)")
    }

    /// Issue 24 item 8: colour by meaning. A bounce rate that rises is bad news: red; one that falls,
    /// green. Visits the other way round.
    @Test func aRisingBounceRateIsRed() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let world = try World()
        let environment = world.environment.merging(["TERM": "xterm", "PATH": "/usr/bin:/bin", "COLUMNS": "200"]) { $1 }
        let green = "\u{1B}[32m"
        let red = "\u{1B}[31m"
        var seen: Set<String> = []
        for metric in ["bounceRate", "visits"] {
            let command =
                "\(Binaries.metrika) report --counter 1001 --from 30daysAgo --to yesterday --metrics \(metric) --compare"
            let terminal = try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment)
            for match in terminal.stdout.matches(of: /\x{1B}\[3([12])m([+-])[0-9.]+( pp|%)/) {
                let colour = match.output.1 == "2" ? green : red
                let rise = match.output.2 == "+"
                let good = metric == "visits" ? rise : !rise
                #expect(colour == (good ? green : red), "\(metric): \(match.output.0.debugDescription)")
                seen.insert("\(metric) \(rise ? "rise" : "fall")")
            }
        }
        #expect(seen.contains("bounceRate rise") && seen.contains("visits rise"), "\(seen)")
    }
}
