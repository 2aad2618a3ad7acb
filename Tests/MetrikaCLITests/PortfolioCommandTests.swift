import Foundation
import MetrikaAPI
import MetrikaRender
import MetrikaSimulator
import Testing

@testable import MetrikaCLI

/// `metrika report --counter all` and the hourly check's cost, through `CLI.run` against the in-process
/// simulator; each run's requests counted as the simulator answers them (issue 47).
@Suite("metrika report --counter all, and alert --today's requests")
struct PortfolioCommandTests {
    struct Run {
        var status: Int32
        var out: String
        var err: String
        var paths: [String]
        var queries: [String]
    }

    /// One simulator (its fixtures, its clock) and one home for several runs, so the second is warm.
    final class World: @unchecked Sendable {
        let transport: ExplainCommandTests.SimulatorTransport
        let home: String

        init(fixtures: String, simulatorNow: String) throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Fixtures/\(fixtures)", isDirectory: true)
            let now = SimulatorOptions.parseInstant(simulatorNow)
            transport = ExplainCommandTests.SimulatorTransport(
                try Simulator(options: SimulatorOptions(fixturesDirectory: root, now: now)))
            home =
                FileManager.default.temporaryDirectory.appendingPathComponent("metrika-portfolio-\(UUID().uuidString)")
                .path
        }

        deinit { try? FileManager.default.removeItem(atPath: home) }

        func run(_ arguments: [String], now: String) async -> Run {
            let out = TextSink()
            let err = TextSink()
            let environment = [
                "PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/config",
                "XDG_DATA_HOME": home + "/data", "LC_ALL": "C", "METRIKA_API_URL": "http://127.0.0.1:9",
                "METRIKA_TOKEN": "demo-token"
            ]
            let instant = SimulatorOptions.parseInstant(now) ?? Date()
            let context = CLIContext(
                environment: environment, stdout: out, stderr: err, transport: transport, now: { instant })
            let before = transport.allPaths.count
            let status = await CLI.run(arguments: arguments, context: context)
            return Run(
                status: status, out: out.text, err: err.text, paths: Array(transport.allPaths.dropFirst(before)),
                queries: Array(transport.allQueries.dropFirst(before)))
        }
    }

    @Test func thePortfolioTableCSVAndAWarmRepeat() async throws {
        let world = try World(fixtures: "default", simulatorNow: "2026-06-15T12:00:00Z")
        let week = ["--from", "2026-06-01", "--to", "2026-06-07"]
        let table = await world.run(["report", "--counter", "all"] + week, now: "2026-06-15T12:00:00Z")
        #expect(table.status == 0, "\(table.err)")
        let lines = table.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "Portfolio 2026-06-01 – 2026-06-07: 6 counters, by visits", "\(table.out)")
        #expect(lines.contains { $0.contains("Total (6 counters)") && $0.contains("not summed") }, "\(table.out)")
        #expect(table.out.contains(PortfolioListing.usersNote))
        // The counters list, then one Reporting request per counter that existed that week.
        #expect(table.paths.filter { $0 == "/management/v1/counters" }.count == 1)
        #expect(table.paths.filter { $0.hasPrefix("/stat/") }.count == 5, "\(table.paths)")
        #expect(!table.paths.contains { $0.hasSuffix("/goals") })

        let csv = await world.run(["report", "--counter", "all", "--csv"] + week, now: "2026-06-15T12:00:00Z")
        #expect(csv.status == 0, "\(csv.err)")
        let rows = csv.out.split(separator: "\n").map(String.init)
        #expect(rows.first == "counter_id,name,site,visits,pageviews,users,bounce_rate,page_depth,avg_visit_duration")
        #expect(rows.last?.hasPrefix("total,Total,,") == true && rows.count == 8, "\(csv.out)")
        // The total's visits are the rows' sum.
        let visits = rows.dropFirst().dropLast().compactMap { line -> Int? in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            return cells.count > 3 ? Int(cells[3]) : nil
        }
        let total = rows.last.map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(total.map { Int($0[3]) } == visits.reduce(0, +), "\(csv.out)")
        #expect(visits == visits.sorted(by: >))
        // Warm: the week is settled in the history; only the counters list is asked.
        #expect(csv.paths == ["/management/v1/counters"], "\(csv.paths)")
    }

    @Test(arguments: [
        (["--metrics", "visits"], "--metrics does not apply to --counter all"),
        (["--dimensions", "trafficSource"], "--dimensions does not apply to --counter all"),
        (["--counter", "1001"], "--counter all means every counter: give it alone"),
        (["--format", "html"], "--format html is not made for --counter all")
    ])
    func whatDoesNotApplyIsRefusedBeforeAnyRequest(extra: [String], message: String) async throws {
        let world = try World(fixtures: "default", simulatorNow: "2026-06-15T12:00:00Z")
        let run = await world.run(["report", "--counter", "all"] + extra, now: "2026-06-15T12:00:00Z")
        #expect(run.status == 64)
        #expect(run.err.hasPrefix("Error: \(message)"), "\(run.err)")
        #expect(run.paths.isEmpty)
    }

    @Test func theHourlyCheckOfEveryCounterCostsOneReportingRequestPerCounterWhenWarm() async throws {
        // Tuesday 2026-12-01, 16:30 and 17:30 in Moscow (Fixtures/alerts: 520008 stops at 14:00).
        let world = try World(fixtures: "alerts", simulatorNow: "2026-12-01T14:30:00Z")
        let first = await world.run(["alert", "--today", "--dry-run"], now: "2026-12-01T13:30:00Z")
        #expect(first.status == 0, "\(first.err)")
        #expect(!first.paths.contains { $0.hasSuffix("/goals") }, "the goals came with the counters list")
        let warm = await world.run(["alert", "--today", "--dry-run"], now: "2026-12-01T14:30:00Z")
        #expect(warm.status == 0, "\(warm.err)")
        let counters = warm.paths.filter { $0 == "/management/v1/counters" }.count
        let reporting = warm.paths.filter { $0.hasPrefix("/stat/") }.count
        // Besides: one Management request per alerted counter, for its chart annotations (4 stop or drop).
        let annotations = warm.paths.filter { $0.hasSuffix("/chart_annotations") }.count
        #expect(counters == 1 && warm.paths.count == 1 + reporting + annotations, "\(warm.paths)")
        #expect(annotations <= 4, "\(warm.paths)")
        // Today's hours: one request per counter (8 in the fixture); the earlier weeks' hours are kept.
        let hours = warm.queries.filter { $0.contains("dimensions=ym:s:date,ym:s:hour&") }.count
        #expect(hours == 8, "\(warm.queries)")
        // Besides, each drop or rise's drivers: one request per dimension (6).
        let driven = warm.out.split(separator: "\n").filter {
            !$0.contains("stopped") && !$0.contains(" at 0 ")
        }.count
        #expect(reporting == hours + 6 * driven, "\(warm.out)")
        #expect(warm.out.contains("520008 "), "\(warm.out)")
    }
}
