import Foundation
import MetrikaTestSupport
import Testing

/// Issue 40 item 3: `report --offline --metrics visits,newUsers`, where only visits were ever synced,
/// blanked every cell and said the counter "has no history" for days it has. A metric that is stored
/// is shown; one that is not is said per metric (its cells `—` / `null`, one note naming it).
@Suite("Offline: a missing metric is said per metric", .blockingLanes)
struct OfflineMissingMetricEndToEndTests {
    static let now = "2026-11-29T12:00:00Z"

    @Test func storedVisitsAreShownBesideAMetricNeverSynced() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_NOW": Self.now, "METRIKA_DB": home.path + "/h.sqlite"])
        let range = ["--counter", "1001", "--from", "2026-11-01", "--to", "2026-11-07"]
        let synced = try metrika(
            ["report"] + range + ["--metrics", "visits", "--csv", "--raw"], environment: environment)
        #expect(synced.status == 0, "\(synced.stderr)")
        let visits = (synced.stdoutLines.dropFirst().first ?? "").components(separatedBy: ",")

        let json = try metrika(
            ["report"] + range + ["--metrics", "visits,newUsers", "--offline", "--json"], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let counter = try #require((object["counters"] as? [[String: Any]])?.first)
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.count == 7)
        #expect(rows.allSatisfy { $0["visits"] is NSNumber }, "the stored visits are shown: \(rows)")
        #expect(rows.allSatisfy { $0["new_users"] is NSNull }, "\(rows)")
        #expect((counter["missing_days"] as? [Any])?.isEmpty == true, "\(counter["missing_days"] ?? "nil")")
        let days = (1...7).map { "2026-11-0\($0)" }
        #expect(
            (counter["missing"] as? [String: [String]]) == ["new_users": days],
            "the metric missing, per metric: \(counter["missing"] ?? "nil")")
        #expect(
            json.stderr.contains(
                "Note: counter 1001 has no history of newUsers for 2026-11-01 … 2026-11-07: shown as —; run without --offline to fetch it."
            ), "\(json.stderr)")
        #expect(!json.stderr.contains("has no history for"), "\(json.stderr)")

        let table = try metrika(
            ["report"] + range + ["--metrics", "visits,newUsers", "--offline", "--csv", "--raw"],
            environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        let first = (table.stdoutLines.dropFirst().first ?? "").components(separatedBy: ",")
        #expect(
            first.count == 3 && visits.count == 2 && first[0] == visits[0] && first[1] == visits[1] && first[2].isEmpty,
            "\(table.stdout) vs \(synced.stdout)")
        #expect(try api.requestCount(pathPrefix: "/stat/v1/data") == 1, "offline asks nothing")

        // The table on a terminal's stdout: the stored visits, `—` for the metric never synced.
        let text = try metrika(
            ["report"] + range + ["--metrics", "visits,newUsers", "--offline"], environment: environment)
        #expect(text.status == 0, "\(text.stderr)")
        let firstDay = try #require(text.stdoutLines.first { $0.hasPrefix("2026-11-01") }, "\(text.stdout)")
        let cells = firstDay.split(separator: " ", omittingEmptySubsequences: true)
        #expect(
            cells.last == "—" && cells.count >= 3 && cells.dropFirst().dropLast().joined(separator: " ") != "—",
            "visits shown, new users —: \(firstDay)")
        #expect(!text.stdout.contains("no data"), "\(text.stdout)")
        #expect(text.stderr.contains("has no history of newUsers for 2026-11-01 … 2026-11-07"), "\(text.stderr)")

        // MCP get_report's offline: the same per metric, in the tool's words.
        let answer = try MCPDriver.run(
            mode: "legacy", environment: environment,
            steps: [
                [
                    "op": "call", "name": "get_report",
                    "arguments": [
                        "counter_ids": [1001], "from": "2026-11-01", "to": "2026-11-07",
                        "metrics": ["visits", "newUsers"], "offline": true
                    ] as [String: Any]
                ]
            ])
        let call = try #require(
            (answer["results"] as? [[String: Any]])?.first?["result"] as? [String: Any], "\(answer)")
        #expect(call["isError"] as? Bool != true, "\(call)")
        let structured = try #require(call["structuredContent"] as? [String: Any], "\(call)")
        let mcpRows = try #require(structured["rows"] as? [[String: Any]])
        #expect(
            mcpRows.count == 7 && mcpRows.allSatisfy { $0["visits"] is NSNumber && $0["new_users"] is NSNull },
            "\(mcpRows)")
        let section = try #require((structured["counters"] as? [[String: Any]])?.first)
        #expect((section["missing"] as? [String: [String]]) == ["new_users": days], "\(section)")
        #expect(section["missing_days"] == nil, "the structured view leaves an empty missing_days out: \(section)")
        let said = ((call["content"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }.joined()
        let note =
            "Note: counter 1001 has no history of newUsers for 2026-11-01 … 2026-11-07: shown as —; call get_report again without offline to fetch it."
        #expect(said.contains(note), "\(said)")
        // A client that reads only structuredContent (Claude Code, VS Code) reads the note there.
        #expect((structured["notes"] as? [String])?.contains(note) == true, "\(structured["notes"] ?? "nil")")
        #expect(
            !said.contains("--offline") && !said.contains("has no history for"), "the tool's words, per metric: \(said)"
        )
    }
}
