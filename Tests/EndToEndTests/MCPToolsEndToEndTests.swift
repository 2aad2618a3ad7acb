import Foundation
import MetrikaTestSupport
import Testing

/// The MCP suites' simulators (one each, stopped at the end of the suite that uses it).
enum MCPSimulators {
    static let plain = FakeAPI.shared()
    static let tools = FakeAPI.shared()
    /// The alert situations (docs/simulator.md), with metrika on Monday 2026-11-30.
    static let alerts = FakeAPI.shared(fixtures: "alerts", arguments: ["--now", "2026-12-01T06:00:00Z"])
}

/// The five tools through the built `metrika mcp`, driven by the official Python SDK (the reference
/// client; skipped with the install hint when it is missing) in both connect modes, against the
/// simulator: the answers equal the CLI's for the same request. One simulator per fixture set for the
/// suite; each test's history database is its own.
@Suite("MCP tools end to end", .blockingLanes, .stops(MCPSimulators.tools, MCPSimulators.alerts))
struct MCPToolsEndToEndTests {
    static var api: SuiteFixture<FakeAPI> { MCPSimulators.tools }
    /// The alert situations (docs/simulator.md), with metrika on Monday 2026-11-30.
    static var alerts: SuiteFixture<FakeAPI> { MCPSimulators.alerts }
    static let monday = "2026-11-30T06:00:00Z"

    /// Ten settled days well before the still-changing ones, in Moscow time like the fixtures.
    static var range: (from: String, to: String) {
        let day = 86_400.0
        let today = Date(
            timeIntervalSince1970: ((TestClock.date.timeIntervalSince1970 + 3 * 3600) / day).rounded(.down) * day)
        let format = { (date: Date) -> String in
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            return formatter.string(from: date)
        }
        return (format(today.addingTimeInterval(-40 * day)), format(today.addingTimeInterval(-31 * day)))
    }

    func environment(_ home: TemporaryDirectory, api: FakeAPI, extra: [String: String] = [:]) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_DB": home.path + "/history.sqlite"].merging(extra) { $1 })
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// A JSON value as text with sorted keys: equal text, equal JSON (numbers read alike on both sides).
    func canonical(_ value: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])).map {
            String(decoding: $0, as: UTF8.self)
        } ?? "\(value)"
    }

    /// The wire result of a driver step (`call`), or nil with the step recorded.
    func result(_ step: Any?) -> [String: Any]? {
        (step as? [String: Any])?["result"] as? [String: Any]
    }

    func text(_ result: [String: Any]?) -> String {
        ((result?["content"] as? [[String: Any]]) ?? []).compactMap {
            $0["type"] as? String == "text" ? $0["text"] as? String : nil
        }.joined(separator: "\n")
    }

    @Test(arguments: ["legacy", "auto"])
    func aReportsTotalsAndUnitsAreThoseOfReportJSON(mode: String) throws {
        let home = try TemporaryDirectory()
        let environment = environment(home, api: try Self.api.get())
        let (from, to) = Self.range
        let metrics = ["visits", "users", "bounceRate", "avgVisitDuration", "pageDepth", "revenue"]
        let answer = try MCPDriver.run(
            mode: mode, environment: environment,
            steps: [
                [
                    "op": "call", "name": "get_report",
                    "arguments": ["counter_ids": [1001], "from": from, "to": to, "metrics": metrics, "group": "week"],
                    "progress": true
                ]
            ])
        let results = try #require(answer["results"] as? [Any])
        let call = try #require(result(results.first), "\(results)")
        #expect(call["isError"] as? Bool != true, "\(call)")
        let structured = try #require(call["structuredContent"] as? [String: Any])
        let cli = try metrika(
            [
                "report", "--counter", "1001", "--from", from, "--to", to, "--metrics", metrics.joined(separator: ","),
                "--group", "week", "--json"
            ],
            environment: environment)
        #expect(cli.status == 0, "\(cli.stderr)")
        // report --json's document as MCP's structured view gives it: no query echo, no
        // `"incomplete": false`, no empty `missing_days`, numbers to 4 decimals (StructuredView).
        var document = try json(cli.stdout)
        #expect(document["query"] != nil && structured["query"] == nil)
        document["query"] = nil
        document["rows"] = (document["rows"] as? [[String: Any]])?.map { row in
            row.filter { !($0.key == "incomplete" && $0.value as? Bool == false) }
        }
        document["counters"] = (document["counters"] as? [[String: Any]])?.map { counter in
            counter.filter { !($0.key == "missing_days" && ($0.value as? [Any])?.isEmpty == true) }
        }
        func fourDecimals(_ value: Any) -> Any {
            if let object = value as? [String: Any] { return object.mapValues(fourDecimals) }
            if let array = value as? [Any] { return array.map(fourDecimals) }
            if let number = value as? Double, number.rounded() != number { return (number * 10_000).rounded() / 10_000 }
            return value
        }
        document = fourDecimals(document) as? [String: Any] ?? [:]
        let totals = { (doc: [String: Any]) in
            ((doc["counters"] as? [[String: Any]])?.first?["totals"] as? [String: Any]) ?? [:]
        }
        let units = { (doc: [String: Any]) in
            ((doc["columns"] as? [[String: Any]]) ?? []).map { "\($0["name"] ?? "")=\($0["unit"] ?? "-")" }
        }
        #expect(canonical(totals(structured)) == canonical(totals(document)))
        #expect(!totals(structured).isEmpty)
        #expect(units(structured) == units(document))
        #expect(canonical(structured) == canonical(document), "the whole document is report --json's, compacted")
        // The text is the table: mm:ss, %, money with its sign.
        let table = text(call)
        #expect(table.contains("Total") && table.contains("%") && table.contains("₽"))
        #expect(!table.contains(demoToken))
    }

    @Test func aCut100000RowReportIsContinuedByOffset() throws {
        let home = try TemporaryDirectory()
        // Three days of counter 1004: ~129,000 search phrases, each request a few seconds of the simulator's work.
        let environment = environment(home, api: try Self.api.get(), extra: ["METRIKA_TIMEOUT": "60"])
        let (from, to) = ("33daysAgo", "31daysAgo")
        let base: [String: Any] = [
            "counter_ids": [1004], "from": from, "to": to, "dimensions": ["searchPhrase"], "metrics": ["visits"]
        ]
        let answer = try MCPDriver.run(
            mode: "legacy", environment: environment,
            steps: [
                ["op": "call", "name": "get_report", "arguments": base],
                ["op": "call", "name": "get_report", "arguments": base.merging(["offset": 101]) { $1 }]
            ])
        let results = try #require(answer["results"] as? [Any])
        try #require(results.count == 2)
        let first = try #require(result(results[0])?["structuredContent"] as? [String: Any], "\(results[0])")
        let second = try #require(result(results[1])?["structuredContent"] as? [String: Any], "\(results[1])")
        let more = try #require(first["more"] as? [String: Any])
        #expect(more["offset"] as? Int == 101)
        #expect((more["rows_total"] as? Int ?? 0) >= 100_000)
        #expect((second["more"] as? [String: Any])?["offset"] as? Int == 201)
        #expect(text(result(results[0])).contains("call get_report again with offset 101"))
        // The two pages are the CLI's first 200 rows (100 a page by default).
        let cli = try metrika(
            [
                "report", "--counter", "1004", "--dimensions", "searchPhrase", "--metrics", "visits", "--from", from,
                "--to", to, "--limit", "200", "--json"
            ],
            environment: environment)
        #expect(cli.status == 0, "\(cli.stderr)")
        let whole = (try json(cli.stdout)["rows"] as? [[String: Any]]) ?? []
        let pages = ((first["rows"] as? [[String: Any]]) ?? []) + ((second["rows"] as? [[String: Any]]) ?? [])
        #expect(pages.count == 200)
        #expect(canonical(pages) == canonical(whole))
    }

    @Test func aChartIsAPNGImageBlock() throws {
        try ToolCheck.require("rsvg-convert", package: "librsvg2-bin")
        let home = try TemporaryDirectory()
        let (from, to) = Self.range
        let answer = try MCPDriver.run(
            mode: "auto", environment: environment(home, api: try Self.api.get()),
            steps: [
                [
                    "op": "call", "name": "draw_chart",
                    "arguments": [
                        "counter_ids": [1001, 1002], "metrics": ["visits", "bounceRate"], "from": from, "to": to
                    ]
                ]
            ])
        let call = try #require(result((answer["results"] as? [Any])?.first), "\(answer)")
        #expect(call["isError"] as? Bool != true, "\(call)")
        let image = try #require((call["content"] as? [[String: Any]])?.first { $0["type"] as? String == "image" })
        #expect(image["mimeType"] as? String == "image/png")
        let bytes = [UInt8](try #require(Data(base64Encoded: image["data"] as? String ?? "")))
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        try #require(bytes.count > 24)
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1600 && height > 800, "two units: two panels")
        #expect(text(call).hasPrefix("Line chart \(width)×\(height) PNG of visits, bounceRate by day for 1001 "))
    }

    @Test func alertsAskedTwiceAreTheSameAndWhatADryRunFinds() throws {
        let home = try TemporaryDirectory()
        let environment = environment(home, api: try Self.alerts.get(), extra: ["METRIKA_NOW": Self.monday])
        let answer = try MCPDriver.run(
            mode: "legacy", environment: environment,
            steps: [
                ["op": "call", "name": "check_alerts", "arguments": [:], "progress": true],
                ["op": "call", "name": "check_alerts", "arguments": [:]]
            ])
        let results = try #require(answer["results"] as? [Any])
        try #require(results.count == 2)
        // The client sees the counters checked as they go (throttled to one a 100 ms, the last always).
        let progress = ((results[0] as? [String: Any])?["progress"] as? [[String: Any]]) ?? []
        let checked = ((result(results[0])?["structuredContent"] as? [String: Any])?["counters_checked"] as? Int) ?? -1
        #expect(progress.first?["progress"] as? Double == 0, "\(progress)")
        #expect(progress.last?["progress"] as? Double == Double(checked), "\(progress)")
        #expect(progress.last?["total"] as? Double == Double(checked), "\(progress)")
        let first = try #require(result(results[0]), "\(results[0])")
        let second = try #require(result(results[1]), "\(results[1])")
        #expect(first["isError"] as? Bool != true, "\(first)")
        let findings = ((first["structuredContent"] as? [String: Any])?["findings"] as? [[String: Any]]) ?? []
        let notices = Set(findings.map { "\($0["counter_id"] ?? "") \($0["notice"] ?? "")" })
        #expect(notices.isSuperset(of: ["520002 stopped", "520004 rise", "520005 drop"]), "\(notices)")
        // Nothing was marked as told: the same lines and findings again (the expectation's last digits
        // may differ, a median of sums read from the API the first time and from the history the second).
        #expect(text(first) == text(second))
        let summary = { (result: [String: Any]) in
            (((result["structuredContent"] as? [String: Any])?["findings"] as? [[String: Any]]) ?? []).map { finding in
                "\(finding["counter_id"] ?? "") \(finding["metric"] ?? "") \(finding["notice"] ?? "") \(finding["day"] ?? "") \(finding["value"] ?? "") \(((finding["expected"] as? Double) ?? 0).rounded())"
            }
        }
        #expect(summary(first) == summary(second))
        #expect(summary(first).count == findings.count)
        // The lines of `metrika alert --dry-run`, and that run still finds them: the tool told no one.
        let dryRun = try metrika(["alert", "--dry-run"], environment: environment)
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(text(first).hasPrefix(dryRun.stdout))
        #expect(!dryRun.stdout.isEmpty)
    }

    @Test(arguments: ["legacy", "auto"])
    func badInputIsRefusedAndAFailedJobIsTheCLISentence(mode: String) throws {
        let home = try TemporaryDirectory()
        let environment = environment(home, api: try Self.api.get())
        let answer = try MCPDriver.run(
            mode: mode, environment: environment,
            steps: [
                ["op": "call", "name": "get_report", "arguments": ["counter_ids": "DROP TABLE"]],
                ["op": "call", "name": "get_report", "arguments": ["counter_ids": Array(1...10_000)]],
                [
                    "op": "call", "name": "get_report",
                    "arguments": ["counter_ids": [1001], "filters": String(repeating: "x", count: 1 << 20)]
                ],
                ["op": "call", "name": "get_report", "arguments": ["counter_ids": [1001], "oauth_token": "x"]],
                [
                    "op": "call", "name": "get_report",
                    "arguments": ["counter_ids": [9999], "from": Self.range.from, "to": Self.range.to]
                ],
                ["op": "call", "name": "get_report", "arguments": ["counter_ids": [1001], "from": "2026-13-45"]],
                ["op": "call", "name": "list_goals", "arguments": ["counter_id": 1001]],
                ["op": "call", "name": "get_report", "arguments": ["counter_ids": [1001], "limit": 5000]],
                ["op": "call", "name": "get_report", "arguments": ["counter_ids": ["1001"]]]
            ])
        let results = try #require(answer["results"] as? [[String: Any]])
        try #require(results.count == 9)
        // SEP-1303: the official client passes each refusal on as a tool result the model reads (no
        // JSON-RPC error, which the client would raise), one line naming the argument and what to send.
        let lines = [
            "counter_ids is a string other than \"all\"; send a list of whole numbers, like [1001]",
            "counter_ids lists 10000 items; send at most 20; ask for the others in another call",
            "filters is 1048576 characters long; send at most 2000",
            "get_report takes no argument 'oauth_token'; send only its arguments: counter_ids,"
        ]
        for (index, line) in zip(
            [0, 1, 2, 3, 7, 8],
            lines + [
                "limit is at most ",
                "counter_ids holds a string; send a list of whole numbers, like [1001]"
            ])
        {
            #expect(results[index]["error"] == nil, "step \(index): \(results[index])")
            let refusal = try #require(result(results[index]), "step \(index): \(results[index])")
            #expect(refusal["isError"] as? Bool == true, "step \(index): \(refusal)")
            #expect(text(refusal).hasPrefix(line), "step \(index): \(text(refusal))")
        }
        #expect(text(result(results[7])).hasSuffix(", not 5000; ask for the next rows with offset"))
        let foreign = try #require(result(results[4]))
        #expect(foreign["isError"] as? Bool == true)
        let cli = try metrika(
            ["report", "--counter", "9999", "--from", Self.range.from, "--to", Self.range.to], environment: environment)
        #expect(cli.status != 0)
        // The API's refusal, the counter named; what to do in the tools' words (call list_counters),
        // where the CLI says to sign in with its command.
        #expect(cli.stderr.hasPrefix("Error: Access denied: Access is denied to counter 9999."), "\(cli.stderr)")
        #expect(text(foreign).hasPrefix("Access denied: Access is denied to counter 9999. "), "\(text(foreign))")
        #expect(
            text(foreign).contains("call list_counters") && !text(foreign).contains("metrika login"), "\(text(foreign))"
        )
        let date = try #require(result(results[5]))
        #expect(date["isError"] as? Bool == true)
        let badDate = try metrika(["report", "--counter", "1001", "--from", "2026-13-45"], environment: environment)
        // The same sentence, each in its own words: the CLI names the option, the server the argument.
        #expect(badDate.stderr.split(separator: "\n").first.map(String.init) == "Error: --" + text(date))
        #expect(text(date).hasPrefix("from '2026-13-45' is not a date"))
        // The server went on serving after each.
        #expect(text(result(results[6])).contains("Оформление заказа"))
        #expect(!"\(answer)".contains(demoToken))
    }
}
