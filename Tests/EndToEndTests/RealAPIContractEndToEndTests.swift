import Foundation
import Testing

/// Contract tests: every real API answer in Fixtures/real-api (published by others, values unchanged)
/// is served verbatim by the simulator's `replay` fault and read by the built `metrika`: no crash, no
/// value lost, the documented exit code for errors. A new file there is picked up by `everyFileIsCovered`.
@Suite("real API answers end to end", .blockingLanes)
struct RealAPIContractEndToEndTests {
    static var directory: URL { Binaries.repositoryRoot.appendingPathComponent("Fixtures/real-api") }

    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// Every metric value of a `/stat/v1/data` answer, in row order.
    static func metricValues(_ text: String) throws -> [Double?] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let rows = try #require(object["data"] as? [[String: Any]])
        return rows.flatMap { row in (row["metrics"] as? [Any] ?? []).map { ($0 as? NSNumber)?.doubleValue } }
    }

    /// The values of the metric columns of a `metrika --json` report, in row order.
    static func reportedValues(_ json: String) throws -> [Double?] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let columns = try #require(object["columns"] as? [[String: Any]])
        let metricNames = columns.filter { $0["kind"] as? String == "metric" }.compactMap { $0["name"] as? String }
        let rows = try #require(object["rows"] as? [[String: Any]])
        return rows.flatMap { row in metricNames.map { (row[$0] as? NSNumber)?.doubleValue } }
    }

    /// Runs `metrika` with the simulator replaying `body` (with `status`) for requests under `path`.
    static func replaying(
        _ body: String, status: Int = 200, path: String, count: Int = 50, before: [[String: Any]] = [],
        _ arguments: [String]
    ) throws -> (ProcessResult, FakeAPI) {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        for fault in before + [["kind": "replay", "body": body, "status": status, "path_prefix": path, "count": count]]
        { try api.inject(fault) }
        let result = try metrika(arguments, environment: metrikaEnvironment(api: api, home: home.path), timeout: 60)
        return (result, api)
    }

    /// The files the tests below replay; a new file must be added here (and to a test).
    static let covered: Set<String> = [
        "counters_opi.json", "data_direct_sources_16705159.json", "data_goals_minimal_cyrillic_32233222.json",
        "data_nodims_nixsolutions_2138128.json", "err_403_access_denied.json"
    ]

    @Test func everyFileIsCovered() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter {
            $0.hasSuffix(".json")
        }
        #expect(Set(files) == Self.covered, "Fixtures/real-api has files no contract test replays")
    }

    // MARK: - Reports

    /// Every data file through --json, --raw CSV and the table: exit 0, no trap, every value in the file
    /// is in the JSON in order.
    @Test(arguments: ["data_direct_sources_16705159.json", "data_nodims_nixsolutions_2138128.json"])
    func dataAnswersKeepEveryValue(file: String) throws {
        let body = try Self.fixture(file)
        let expected = try Self.metricValues(body)
        let (json, _) = try Self.replaying(
            body, path: "/stat/v1/data", ["report", "--counter", "1001", "--preset", "sources_summary", "--json"])
        #expect(json.status == 0, "stderr: \(json.stderr)")
        #expect(!json.signaled)
        #expect(try Self.reportedValues(json.stdout) == expected)

        let (csv, _) = try Self.replaying(
            body, path: "/stat/v1/data", ["report", "--counter", "1001", "--preset", "traffic", "--csv", "--raw"])
        #expect(csv.status == 0, "stderr: \(csv.stderr)")
        let lines = csv.stdoutLines
        let width = lines.first?.split(separator: ",", omittingEmptySubsequences: false).count ?? 0
        #expect(
            lines.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == width },
            "\(csv.stdout)")
        let printed = lines.dropFirst().flatMap {
            $0.split(separator: ",", omittingEmptySubsequences: false).suffix(expected.count / max(1, lines.count - 1))
        }
        #expect(printed.map { Double(String($0)) } == expected, "\(csv.stdout)")

        let (table, _) = try Self.replaying(
            body, path: "/stat/v1/data", ["report", "--counter", "1001", "--preset", "traffic"])
        #expect(table.status == 0, "stderr: \(table.stderr)")
        #expect(!table.signaled)
        #expect(table.stdout.contains("Total"), "\(table.stdout)")
    }

    @Test func aReportWithoutDimensionsPrintsItsTotal() throws {
        let (result, _) = try Self.replaying(
            try Self.fixture("data_nodims_nixsolutions_2138128.json"), path: "/stat/v1/data",
            ["report", "--counter", "1001", "--preset", "traffic"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("53 712"), "\(result.stdout)")
    }

    @Test func cyrillicIDsAndNullURLsAreKept() throws {
        let (result, _) = try Self.replaying(
            try Self.fixture("data_direct_sources_16705159.json"), path: "/stat/v1/data",
            ["report", "--counter", "1001", "--preset", "sources_summary", "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("ad.Яндекс: Директ"))
        #expect(result.stdout.contains("\"cross_device_last_yandex_direct_click_traffic_source\""), "\(result.stdout)")
        #expect(!result.stdout.contains("c_r_o_s_s"))
    }

    /// Only `data`: the request's own metrics and dimensions name the columns; with nothing to name
    /// them (a preset without --metrics), exit 65 and nothing on stdout.
    @Test func anAnswerWithoutQueryEchoUsesTheRequestOrFails() throws {
        let body = try Self.fixture("data_goals_minimal_cyrillic_32233222.json")
        let (named, _) = try Self.replaying(
            body, path: "/stat/v1/data",
            [
                "report", "--counter", "1001", "--preset", "sources_summary", "--metrics", "visits", "--dimensions",
                "trafficSource", "--csv"
            ])
        #expect(named.status == 0, "stderr: \(named.stderr)")
        #expect(named.stdoutLines.first == "traffic_source,visits")
        #expect(
            named.stdoutLines.dropFirst().map { $0.split(separator: ",").last.map(String.init) } == [
                "420", "155", "101", "1"
            ])
        #expect(named.stdout.contains("Промо:КнопкаTrylivedemoглавная"))

        let (unnamed, _) = try Self.replaying(
            body, path: "/stat/v1/data", ["report", "--counter", "1001", "--preset", "sources_summary", "--csv"])
        #expect(unnamed.status == 65, "stdout: \(unnamed.stdout) stderr: \(unnamed.stderr)")
        #expect(unnamed.stdout.isEmpty)
        #expect(unnamed.stderr.hasPrefix("Error:") && unnamed.stderr.contains("--metrics"), "\(unnamed.stderr)")
    }

    // MARK: - Errors and multi-counter documents

    /// The second counter's data answers 403 `access_denied` (its metadata answered 200): exit 77 and
    /// nothing on stdout, in every format.
    @Test(arguments: ["--json", "--csv", "--table"])
    func aLaterCounterDeniedLeavesNoDocument(format: String) throws {
        let body = try Self.fixture("err_403_access_denied.json")
        let firstPasses: [[String: Any]] = [
            ["kind": "delay", "delay_ms": 0, "count": 1, "path_prefix": "/stat/v1/data"]
        ]
        var arguments = ["report", "--counter", "1001,1003", "--dimensions", "trafficSource"]
        if format != "--table" { arguments.append(format) }
        let (result, _) = try Self.replaying(
            body, status: 403, path: "/stat/v1/data", count: 5, before: firstPasses, arguments)
        #expect(result.status == 77, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr.contains("Access is denied"), "\(result.stderr)")
        // Which of the two: the denied one is named, once (issue 40 item 9).
        #expect(result.stderr.contains("Access denied to counter 1003: "), "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "1003").count == 2, "\(result.stderr)")
        #expect(!result.stderr.contains("1001"), "\(result.stderr)")
    }

    // MARK: - The API's digits

    /// A day's values from the history (`--raw` CSV and JSON) are the API's numbers for that day, digit
    /// for digit: bounce rate and page depth are not re-derived as value × visits ÷ visits.
    @Test func singleDaysKeepTheAPIsDigits() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path)
        let csv = try metrika(
            ["report", "--counter", "1001", "--from", "9daysAgo", "--to", "3daysAgo", "--raw", "--csv"],
            environment: environment)
        #expect(csv.status == 0, "stderr: \(csv.stderr)")
        let header = try #require(csv.stdoutLines.first).split(separator: ",").map(String.init)
        #expect(header == ["date", "pageviews", "visits", "users", "page_depth", "avg_visit_duration", "bounce_rate"])
        let rows = csv.stdoutLines.dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(rows.count == 7)
        let first = try #require(rows.first?.first)
        let last = try #require(rows.last?.first)
        let metrics =
            "ym:s:pageviews,ym:s:visits,ym:s:users,ym:s:pageDepth,ym:s:avgVisitDurationSeconds,ym:s:bounceRate"
        let body = try api.apiGET(
            "/stat/v1/data?ids=1001&metrics=\(metrics)&dimensions=ym:s:date&sort=ym:s:date&date1=\(first)&date2=\(last)&accuracy=full&limit=100"
        )
        // The API's number texts per day, as sent (`26.08695652`, `1200.0`).
        let text = String(decoding: body, as: UTF8.self)
        var apiRows: [String: [String]] = [:]
        for chunk in text.components(separatedBy: "{\"dimensions\":[{\"name\":\"").dropFirst() {
            let day = String(chunk.prefix(10))
            guard let open = chunk.range(of: "\"metrics\":["), let close = chunk[open.upperBound...].firstIndex(of: "]")
            else { continue }
            apiRows[day] = chunk[open.upperBound..<close].split(separator: ",").map {
                String($0.hasSuffix(".0") ? $0.dropLast(2) : $0)
            }
        }
        #expect(apiRows.count == 7)
        for row in rows {
            #expect(Array(row.dropFirst()) == apiRows[row[0]], "day \(row[0])")
        }
    }

    // MARK: - Counters

    @Test func aCounterWithoutNameShowsItsSite() throws {
        let body = try Self.fixture("counters_opi.json")
        let (table, _) = try Self.replaying(body, path: "/management/v1/counters", ["counters"])
        #expect(table.status == 0, "stderr: \(table.stderr)")
        #expect(table.stdout.contains("(no name) openintegrations.dev"), "\(table.stdout)")
        let (json, _) = try Self.replaying(body, path: "/management/v1/counters", ["counters", "--json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let ids = (object["counters"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? NSNumber)?.intValue }
        #expect(ids == [104_589_320, 97_292_922, 98_234_044])
    }
}
