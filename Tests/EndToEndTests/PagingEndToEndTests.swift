import Foundation
import Testing

/// A server that lies about paging (the simulator's `lying_paging` fault: every page is the first one
/// with `total_rows` 10^12; counters pages hold ids never seen before with `rows` 10^12) costs a
/// bounded number of requests, with a warning, never an endless walk.
@Suite("paging against a lying server end to end", .blockingLanes)
struct PagingEndToEndTests {
    static func run(_ arguments: [String], faults: [[String: Any]]) throws -> (ProcessResult, FakeAPI) {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        for fault in faults { try api.inject(fault) }
        let result = try metrika(arguments, environment: metrikaEnvironment(api: api, home: home.path), timeout: 90)
        return (result, api)
    }

    static var lying: [[String: Any]] { [["kind": "lying_paging", "count": 100_000]] }

    /// The report's pages are short (a dozen traffic sources for 20,000 asked): one request.
    @Test func aShortPageEndsADimensionReport() throws {
        let (result, api) = try Self.run(
            ["report", "--counter", "1001", "--dimensions", "trafficSource", "--limit", "10000000", "--csv"],
            faults: Self.lying)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try api.requestCount(pathPrefix: "/stat/v1/data") == 1)
        #expect(result.stderr.contains("Warning:") && result.stderr.contains("short page"), "\(result.stderr)")
    }

    /// Full pages that repeat themselves: the second page starts where the first did, and paging ends
    /// there; no row is printed twice.
    @Test func aPageWithNothingNewEndsADimensionReport() throws {
        // Counts only: the fault's made-up rows carry their row number as every value (row 101's
        // bounce rate would be 101 %, which metrika refuses as no value at all).
        let (result, api) = try Self.run(
            [
                "report", "--counter", "1001", "--dimensions", "searchPhrase", "--metrics", "visits,pageviews",
                "--limit", "60000", "--json"
            ],
            faults: [["kind": "lying_paging", "count": 1000, "full_pages": true]])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // Count the pages asked for, not the attempts (a loaded machine may retry one).
        let offsets = Set(
            try api.requests().filter { ($0["path"] as? String) == "/stat/v1/data" }.compactMap { entry in
                (entry["query"] as? String)?.split(separator: "&").first { $0.hasPrefix("offset=") }.map(String.init)
            })
        #expect(offsets == ["offset=1", "offset=20001"], "\(offsets)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((document["rows"] as? [Any])?.count == 20_000)
        #expect(result.stderr.contains("same rows again"), "\(result.stderr)")
    }

    /// The row count hint names a --limit the parser accepts.
    @Test func theLimitHintIsAcceptedByTheParser() throws {
        let (result, _) = try Self.run(
            ["report", "--counter", "1001", "--dimensions", "trafficSource", "--limit", "3", "--csv"],
            faults: Self.lying)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let hint = try #require(
            result.stderr.range(of: "--limit ").map { result.stderr[$0.upperBound...].prefix { $0.isNumber } })
        let value = try #require(Int(hint))
        #expect((1...10_000_000).contains(value), "\(result.stderr)")
    }

    /// Counters pages of 1,000 new ids each, `rows` 10^12: the walk stops at its hard cap (100 pages).
    @Test func aCounterListThatNeverEndsStopsAtTheCap() throws {
        let (result, api) = try Self.run(["counters", "--csv"], faults: Self.lying)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let requests = try api.requestCount(pathPrefix: "/management/v1/counters")
        #expect(requests == 100, "\(requests) requests")
        #expect(result.stderr.contains("Warning:"), "\(result.stderr)")
    }
}

/// The answer shapes of the real API, produced by the simulator's `shape` fault, read by the built
/// `metrika`: no crash, columns named, values kept.
@Suite("real answer shapes from the simulator end to end", .blockingLanes)
struct AnswerShapeEndToEndTests {
    static func report(_ shape: String, _ arguments: [String]) throws -> ProcessResult {
        try PagingEndToEndTests.run(
            ["report", "--counter", "1001"] + arguments,
            faults: [["kind": "shape", "shape": shape, "count": 50, "path_prefix": "/stat/v1/data"]]
        ).0
    }

    @Test func noDimensions() throws {
        let result = try Self.report("no_dimensions", ["--preset", "sources_summary"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("Total"), "\(result.stdout)")
    }

    @Test func noQueryEchoWithTheRequestsColumns() throws {
        let result = try Self.report(
            "no_query", ["--dimensions", "trafficSource", "--metrics", "visits,bounceRate", "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("\"bounce_rate\""))
        let minimal = try Self.report("minimal", ["--preset", "sources_summary", "--json"])
        #expect(minimal.status == 65, "stderr: \(minimal.stderr)")
        #expect(minimal.stdout.isEmpty)
    }

    @Test func noTotalsAndNullMetrics() throws {
        let noTotals = try Self.report("no_totals", ["--dimensions", "trafficSource", "--json"])
        #expect(noTotals.status == 0, "stderr: \(noTotals.stderr)")
        let nulls = try Self.report("null_metrics", ["--dimensions", "trafficSource", "--metrics", "visits"])
        #expect(nulls.status == 0, "stderr: \(nulls.stderr)")
        #expect(nulls.stdout.contains("—"), "\(nulls.stdout)")
    }

    @Test func urlNullAndCyrillicIDs() throws {
        let urls = try Self.report("url_null", ["--dimensions", "trafficSource", "--json"])
        #expect(urls.status == 0, "stderr: \(urls.stderr)")
        let ids = try Self.report("cyrillic_ids", ["--dimensions", "trafficSource", "--json"])
        #expect(ids.status == 0, "stderr: \(ids.stderr)")
        #expect(ids.stdout.contains("ad.Яндекс: Директ"), "\(ids.stdout)")
    }

    @Test func acronymNamesReadAsWords() throws {
        let result = try Self.report(
            "acronym_names", ["--preset", "sources_summary", "--metrics", "ym:s:visits,ym:s:pageviews", "--csv"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdoutLines.first == "cross_device_last_yandex_direct_click_traffic_source,visits,pageviews",
            "\(result.stdout)")
    }
}
