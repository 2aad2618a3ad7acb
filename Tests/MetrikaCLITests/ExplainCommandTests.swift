import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaSimulator
import Testing

@testable import MetrikaCLI

/// `metrika explain` end to end against the in-process simulator's explain scenarios (Fixtures/explain,
/// now 2026-12-01T06:00:00Z: yesterday is Monday 2026-11-30): each scenario names its known driver,
/// the shown changes add up to the total in the table and the JSON, one Reporting request per dimension.
@Suite("metrika explain")
struct ExplainCommandTests {
    /// Hands each request to the simulator, counting the Reporting ones.
    final class SimulatorTransport: MetrikaAPI.HTTPTransport, @unchecked Sendable {
        let simulator: Simulator
        private let lock = NSLock()
        private var paths: [String] = []
        private var queries: [String] = []

        init(_ simulator: Simulator) { self.simulator = simulator }

        var reportingRequests: Int { lock.withLock { paths.filter { $0.hasPrefix("/stat/") }.count } }
        /// Every path asked so far, in order, and each one's query.
        var allPaths: [String] { lock.withLock { paths } }
        var allQueries: [String] { lock.withLock { queries } }

        func send(_ request: MetrikaAPI.HTTPRequest) async throws -> MetrikaAPI.HTTPResponse {
            let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
            let path = components?.path ?? request.url.path
            lock.withLock {
                paths.append(path)
                queries.append(components?.percentEncodedQuery ?? "")
            }
            let response = simulator.handle(
                MetrikaSimulator.HTTPRequest(
                    method: request.method, path: path, query: components?.percentEncodedQuery ?? "",
                    headers: request.headers.map { (name: $0.key, value: $0.value) }))
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name] = header.value }
            return MetrikaAPI.HTTPResponse(status: response.status, headers: headers, body: Data(response.body))
        }
    }

    struct Run {
        var status: Int32
        var out: String
        var err: String
        var reportingRequests: Int
    }

    /// `home`: a home kept by the caller (its history database shared by several runs); nil, a new one removed after.
    static func run(_ arguments: [String], home kept: String? = nil) async throws -> Run {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/explain", isDirectory: true)
        let now = SimulatorOptions.parseInstant("2026-12-01T06:00:00Z")
        let transport = SimulatorTransport(try Simulator(options: SimulatorOptions(fixturesDirectory: root, now: now)))
        let home =
            kept
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("metrika-explain-\(UUID().uuidString)")
            .path
        defer { if kept == nil { try? FileManager.default.removeItem(atPath: home) } }
        let out = TextSink()
        let err = TextSink()
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data",
            "LC_ALL": "C",
            "METRIKA_API_URL": "http://127.0.0.1:9", "METRIKA_TOKEN": "demo-token"
        ]
        let context = CLIContext(
            environment: environment, stdout: out, stderr: err, transport: transport, now: { now ?? Date() })
        let status = await CLI.run(arguments: arguments, context: context)
        return Run(status: status, out: out.text, err: err.text, reportingRequests: transport.reportingRequests)
    }

    /// The JSON document's headline, and every dimension's shown changes adding up to its total.
    static func checkedJSON(_ run: Run) throws -> [String: Any] {
        #expect(run.status == 0, "\(run.err)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        #expect(document["version"] as? Int == 1)
        let total = try #require(document["change"] as? Double)
        let dimensions = try #require(document["dimensions"] as? [[String: Any]])
        #expect(!dimensions.isEmpty)
        for dimension in dimensions {
            let segments = try #require(dimension["segments"] as? [[String: Any]])
            let sum = segments.reduce(0.0) { $0 + (($1["change"] as? Double) ?? .nan) }
            #expect(abs(sum - total) < 1e-9, "\(dimension["dimension"] ?? "") adds up to \(sum), not \(total)")
            #expect(dimension["change"] as? Double == total)
        }
        return document
    }

    @Test("search traffic falling to 0 is the driver; the JSON adds up; one request per dimension")
    func searchTrafficDriver() async throws {
        let run = try await Self.run(["explain", "--counter", "530001", "--json"])
        let document = try Self.checkedJSON(run)
        let headline = try #require(document["headline"] as? String)
        #expect(
            headline.hasPrefix("-") && headline.contains(": Search engine traffic -") && headline.hasSuffix("gone)"),
            "\(headline)")
        let driver = try #require(document["driver"] as? [String: Any])
        #expect(driver["dimension"] as? String == "trafficSource")
        #expect(run.reportingRequests == 6, "\(run.reportingRequests) Reporting requests for 6 dimensions")
    }

    @Test("a bot wave on smartphones is the driver, in the table: headline first, rows adding up")
    func botWaveTable() async throws {
        let run = try await Self.run(["explain", "--counter", "530002", "--dimensions", "deviceCategory,trafficSource"])
        #expect(run.status == 0, "\(run.err)")
        let lines = run.out.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("+") == true && lines.first?.contains(": Smartphones +") == true, "\(run.out)")
        // The device table: the changes of its rows (before Total) add up to the Total's.
        var sums: [Int] = []
        var current = 0
        var rows = false
        for line in lines.dropFirst(2) {
            if line.hasPrefix("──") {
                rows = true
                continue
            }
            guard rows else { continue }
            // Columns are 2+ spaces apart (a name or a grouped number holds single spaces): the 4th is the change.
            let fields = line.split(separator: /\s{2,}/).map(String.init)
            guard fields.count >= 4, let value = Int(fields[3].replacingOccurrences(of: " ", with: "")) else {
                continue
            }
            // Each count row reads as it adds up: value − expected is its shown change.
            let number = { (text: String) in Int(text.replacingOccurrences(of: " ", with: "")) }
            if let shown = number(fields[1]), let expected = number(fields[2]) {
                #expect(shown - expected == value, "\(line)")
            }
            if fields[0] == "Total" {
                sums.append(current - value)
                current = 0
                rows = false
            } else {
                current += value
            }
        }
        #expect(sums == [0, 0], "\(run.out)")
        #expect(run.reportingRequests == 2)
    }

    @Test("an even drop is spread evenly; a range against the previous period adds up too")
    func evenDrop() async throws {
        let day = try Self.checkedJSON(try await Self.run(["explain", "--counter", "530003", "--json"]))
        #expect((day["headline"] as? String)?.contains(": spread evenly across") == true, "\(day["headline"] ?? "")")
        #expect(day["driver"] is NSNull)
        let range = try await Self.run([
            "explain", "--counter", "530003", "--from", "2026-11-24", "--to", "2026-11-30", "--json"
        ])
        let document = try Self.checkedJSON(range)
        #expect((document["against"] as? [String: Any])?["kind"] as? String == "previous")
    }

    /// Issue 48's Done-when, "an annotated day": 530010's visits rose by half, evenly, on the day its
    /// owner annotated «Новый шаблон сайта» (the fixture's chart annotation): the change is said as
    /// usual and the annotation under it, in the table, the CSV and the JSON.
    @Test("an annotated day: the change, and the owner's annotation under it in every format")
    func annotatedDay() async throws {
        let table = try await Self.run(["explain", "--counter", "530010", "--dimensions", "trafficSource"])
        #expect(table.status == 0, "\(table.err)")
        let lines = table.out.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("+") == true && lines.first?.contains(": spread evenly") == true, "\(table.out)")
        #expect(lines.last == "annotation on Mon 2026-11-30: \"Новый шаблон сайта\"", "\(table.out)")
        let csv = try await Self.run(["explain", "--counter", "530010", "--dimensions", "trafficSource", "--csv"])
        #expect(csv.out.hasSuffix("\nannotation,Новый шаблон сайта,2026-11-30,,,,,,\n"), "\(csv.out)")
        let json = try Self.checkedJSON(
            try await Self.run(["explain", "--counter", "530010", "--dimensions", "trafficSource", "--json"]))
        let note = try #require((json["annotations"] as? [[String: Any]])?.first, "\(json)")
        #expect(note["counter_id"] as? Int == 530010 && note["date"] as? String == "2026-11-30")
        #expect(note["title"] as? String == "Новый шаблон сайта")
        #expect(note["message"] as? String == "Вёрстка и меню переделаны")
    }

    @Test("a baseline of another length is its mean scaled to the period's days, never a week's sum against one day")
    func aWeekAgainstOneDayIsItsDailyMean() async throws {
        let week = try await Self.run([
            "explain", "--counter", "530001", "--dimensions", "trafficSource", "--against", "2026-11-23..2026-11-29"
        ])
        #expect(week.status == 0, "\(week.err)")
        #expect(week.out.contains("against 2026-11-23..2026-11-29 (7 days, scaled to 1 day)"), "\(week.out)")
        #expect(week.out.hasPrefix("-") && week.out.contains(": Search engine traffic -"), "\(week.out)")
        // The scaled expected total is the week's total / 7, as the week's own explanation says.
        let day = try Self.checkedJSON(
            try await Self.run([
                "explain", "--counter", "530001", "--dimensions", "trafficSource", "--against",
                "2026-11-23..2026-11-29", "--json"
            ]))
        let whole = try Self.checkedJSON(
            try await Self.run([
                "explain", "--counter", "530001", "--dimensions", "trafficSource",
                "--from", "2026-11-23", "--to", "2026-11-29", "--json"
            ]))
        let expected = try #require(day["expected"] as? Double)
        let weekValue = try #require(whole["value"] as? Double)
        #expect(abs(expected - weekValue / 7) < 0.01, "\(expected) against \(weekValue) / 7")
    }

    @Test("a rate's mix and rate effects add up to its change")
    func bounceRate() async throws {
        let run = try await Self.run([
            "explain", "--counter", "530002", "--metric", "bounceRate", "--dimensions", "deviceCategory", "--json"
        ])
        let document = try Self.checkedJSON(run)
        let dimension = try #require((document["dimensions"] as? [[String: Any]])?.first)
        let mix = try #require(dimension["mix"] as? Double)
        let rate = try #require(dimension["rate"] as? Double)
        #expect(abs(mix + rate - (document["change"] as? Double ?? .nan)) < 1e-9)
        // The table's column is the segment's effect on the total rate, named so (not "Change").
        let table = try await Self.run([
            "explain", "--counter", "530002", "--metric", "bounceRate", "--dimensions", "deviceCategory"
        ])
        let header = try #require(table.out.split(separator: "\n").first { $0.contains("Expected") })
        #expect(header.contains("Effect") && !header.contains("Change") && header.contains("Mix"), "\(table.out)")
    }

    @Test("bad input: an unknown metric or dimension (64, the valid list), today (64, the reason)")
    func badInput() async throws {
        let metric = try await Self.run(["explain", "--counter", "530001", "--metric", "sessions"])
        #expect(
            metric.status == 64 && metric.err.contains("bounceRate") && metric.err.contains("--metric"), "\(metric.err)"
        )
        let dimension = try await Self.run(["explain", "--counter", "530001", "--dimensions", "browser"])
        #expect(dimension.status == 64 && dimension.err.contains("deviceCategory"), "\(dimension.err)")
        let today = try await Self.run(["explain", "--counter", "530001", "--date", "today"])
        #expect(today.status == 64 && today.err.contains("not finished"), "\(today.err)")
        #expect(today.reportingRequests == 0)
        // A future day is said to be in the future, not to "include today".
        let future = try await Self.run(["explain", "--counter", "530001", "--date", "2026-12-05"])
        #expect(
            future.status == 64 && future.err.contains("2026-12-05 is in the future (today is 2026-12-01)"),
            "\(future.err)")
        // A reversed baseline says so, not "is not a baseline".
        let reversed = try await Self.run(["explain", "--counter", "530001", "--against", "2026-11-29..2026-11-23"])
        #expect(
            reversed.status == 64 && reversed.err.contains("starts after it ends (2026-11-29 is after 2026-11-23)"),
            "\(reversed.err)")
    }
}

extension ExplainCommandTests {
    @Test("CSV: one row per segment and a total per dimension; the changes add up and are numbers, not defused text")
    func csvAddsUp() async throws {
        let run = try await Self.run(["explain", "--counter", "530001", "--dimensions", "deviceCategory", "--csv"])
        #expect(run.status == 0, "\(run.err)")
        let lines = run.out.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(
            lines.first == [
                "dimension", "segment", "status", "value", "expected", "change", "share_percent", "mix", "rate"
            ])
        let rows = lines.dropFirst()
        let total = try #require(rows.last { $0[1] == "Total" })
        let sum = rows.filter { $0[1] != "Total" }.reduce(0) { $0 + (Int($1[5]) ?? 1_000_000) }
        #expect(sum == Int(total[5]), "\(run.out)")
        #expect(!run.out.contains("'-"))
    }
}
