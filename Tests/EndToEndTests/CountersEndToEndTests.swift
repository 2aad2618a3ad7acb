import Foundation
import Testing

/// `metrika counters` run as a user runs it: the built binary against the simulator over loopback.
@Suite(.serialized, .blockingLanes) struct CountersEndToEndTests {
    static func assertNoToken(_ result: ProcessResult, token: String = demoToken) {
        #expect(!result.stdout.contains(token), "the token leaked to stdout")
        #expect(!result.stderr.contains(token), "the token leaked to stderr")
    }

    @Test func listsAllPagedCountersExactlyOnce() throws {
        let api = try FakeAPI(fixtures: "many")
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["counters", "--csv", "--verbose"], environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        let ids = result.stdout.split(separator: "\n").dropFirst().map {
            $0.split(separator: ",").first.map(String.init) ?? ""
        }
        #expect(ids.count == 2601)
        #expect(Set(ids).count == 2601)
        #expect(ids.contains("880000") && ids.contains("100001") && ids.contains("102600"))
        // 2,601 counters at 1,000 a page: offsets 1, 1001, 2001 and no more.
        let offsets = try api.requests().compactMap { $0["query"] as? String }
            .compactMap { $0.split(separator: "&").first { $0.hasPrefix("offset=") } }
        #expect(offsets == ["offset=1", "offset=1001", "offset=2001"])
        #expect(try api.requests().allSatisfy { $0["authorization"] as? Bool == true })
        Self.assertNoToken(result)
        // --verbose logs each request on stderr without the token.
        #expect(result.stderr.components(separatedBy: "GET http://127.0.0.1").count - 1 == 3)
    }

    @Test func tableIsAlignedAndSearchFilters() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["counters", "--search", "ромашка"], environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines
        #expect(lines.count == 3) // header, rule, one counter
        #expect(lines[2].contains("1001") && lines[2].contains("Интернет-магазин «Ромашка»"))
        #expect(
            try api.requests().first?["query"] as? String ?? ""
                == "offset=1&per_page=1000&search_string=%D1%80%D0%BE%D0%BC%D0%B0%D1%88%D0%BA%D0%B0")
    }

    @Test func jsonIsVersionedAndKeepsHostileNamesAsData() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(["counters", "--json"], environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        let counters = try #require(object["counters"] as? [[String: Any]])
        #expect(counters.contains { $0["name"] as? String == #"<script>alert("x")</script> & Co"# })
    }

    @Test func missingTokenExits77AndSaysHowToSignIn() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(["counters"], environment: metrikaEnvironment(api: api, home: home.path, token: nil))
        #expect(result.status == 77)
        #expect(result.stderr.contains("metrika login"))
        #expect(try api.requestCount() == 0)
    }

    @Test func revokedTokenExits77AndNamesLogin() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["counters"], environment: metrikaEnvironment(api: api, home: home.path, token: "revoked-token"))
        #expect(result.status == 77)
        #expect(result.stderr.contains("metrika login"))
        Self.assertNoToken(result, token: "revoked-token")
    }

    @Test func threeServiceErrorsThenSuccess() throws {
        let api = try FakeAPI()
        try api.inject(["kind": "backend_error", "count": 3])
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["counters", "--csv"], environment: metrikaEnvironment(api: api, home: home.path, retryScale: 0.05))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("880000"))
        #expect(try api.requestCount() == 4)
    }

    @Test func dailyQuotaExits75AndSaysWhenItResets() throws {
        let api = try FakeAPI()
        try api.inject(["kind": "quota", "error_type": "quota_requests_by_uid", "count": 5])
        let home = try TemporaryDirectory()
        let result = try metrika(["counters"], environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 75)
        #expect(result.stderr.contains("00:00 GMT"))
        #expect(try api.requestCount() == 1) // a daily quota is not retried
    }

    @Test func htmlGatewayErrorExits69WithOneLine() throws {
        let api = try FakeAPI()
        try api.inject(["kind": "html502", "count": 10])
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["counters"],
            environment: metrikaEnvironment(
                api: api, home: home.path, retryScale: 0.05, extra: ["METRIKA_TIMEOUT": "2"]))
        #expect(result.status == 69)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("<html"))
        #expect(!result.signaled)
    }

    @Test func unreadableAnswersExit65() throws {
        for kind in ["empty200", "malformed_json", "wrong_types"] {
            let api = try FakeAPI()
            try api.inject(["kind": kind, "count": 1])
            let home = try TemporaryDirectory()
            let result = try metrika(["counters"], environment: metrikaEnvironment(api: api, home: home.path))
            #expect(result.status == 65, "\(kind): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(kind): \(result.stderr)")
        }
    }

    @Test func aServerThatStopsAnsweringExits69WithinTheTimeout() throws {
        let api = try FakeAPI()
        try api.inject(["kind": "delay", "delay_ms": 30_000, "count": 10])
        let home = try TemporaryDirectory()
        let started = Date()
        let result = try metrika(
            ["counters"],
            environment: metrikaEnvironment(
                api: api, home: home.path, retryScale: 0.05, extra: ["METRIKA_TIMEOUT": "1"]), timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 69, "\(result.stderr)")
        // 5 attempts × 1 s timeout + at most 30 s of backoff (in practice about 4 s).
        #expect(elapsed < 35, "took \(elapsed) s")
        #expect(result.stderr.contains("no answer within the request timeout"))
    }

    @Test func aDeadServerExits69() throws {
        let home = try TemporaryDirectory()
        var environment = metrikaEnvironment(api: nil, home: home.path)
        environment["METRIKA_API_URL"] = "http://127.0.0.1:9"
        let result = try metrika(["counters"], environment: environment)
        #expect(result.status == 69)
        #expect(result.stderr.contains("cannot connect"))
    }

    @Test func badInputIsAUsageError() throws {
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: nil, home: home.path)
        let unknown = try metrika(["counters", "--x"], environment: environment)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("Error: Unknown option '--x'\nUsage: metrika counters"))
        let format = try metrika(["counters", "--format", "xml"], environment: environment)
        #expect(format.status == 64)
        let both = try metrika(["counters", "--csv", "--json"], environment: environment)
        #expect(both.status == 64)
        let command = try metrika(["frobnicate"], environment: environment)
        #expect(command.status == 64)
        #expect(command.stderr.contains("Unknown command 'frobnicate'"))
        let group = try metrika(["cache"], environment: environment)
        #expect(group.status == 64)
        #expect(group.stderr.contains("'cache' needs a subcommand") && group.stderr.contains("metrika cache info"))
        var badURL = environment
        badURL["METRIKA_API_URL"] = "ftp://example.com"
        let config = try metrika(["counters"], environment: badURL)
        #expect(config.status == 78)
    }

    @Test func helpAndVersionGoToStdout() throws {
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: nil, home: home.path)
        let help = try metrika(["counters", "--help"], environment: environment)
        #expect(help.status == 0)
        #expect(help.stdout.contains("Usage: metrika counters"))
        #expect(help.stderr.isEmpty)
        let top = try metrika(["--help"], environment: environment)
        #expect(top.status == 0)
        #expect(top.stdout.contains("counters") && top.stdout.contains("report"))
        let version = try metrika(["--version"], environment: environment)
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("metrika "))
    }
}
