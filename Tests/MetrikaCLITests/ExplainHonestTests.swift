import Foundation
import Testing

@testable import MetrikaCLI

/// `metrika explain` over the simulator's scenarios of known answer (issue 48, Fixtures/explain,
/// docs/simulator.md): a rate's headline says what made its change (mix, one segment's own rate,
/// every segment's), of its own change; users are the day's; a stopped day is said as stopped; the
/// alert's baseline; units and names.
@Suite("metrika explain: rates and users explained honestly")
struct ExplainHonestTests {
    static func json(_ arguments: [String]) async throws -> [String: Any] {
        try ExplainCommandTests.checkedJSON(try await ExplainCommandTests.run(arguments + ["--json"]))
    }

    static func headline(_ document: [String: Any]) -> String { document["headline"] as? String ?? "" }

    /// Every dimension's shares add up to 100 (none rounded on its own to 101).
    static func sharesAddUp(_ document: [String: Any]) {
        for dimension in document["dimensions"] as? [[String: Any]] ?? [] {
            let shares = (dimension["segments"] as? [[String: Any]] ?? []).compactMap { $0["share_percent"] as? Double }
            #expect(shares.isEmpty || shares.reduce(0, +) == 100, "\(dimension["dimension"] ?? ""): \(shares)")
        }
    }

    @Test("a bot wave's bounce rate: every table's total is the headline's, and their shares add up to 100")
    func everyTableIsOfTheHeadlinesChange() async throws {
        // Measured on main: `-1.5 pp bounce rate: PC -0.3 pp (150%)`, the device table's total -0.2 pp.
        let document = try await Self.json([
            "explain", "--counter", "530002", "--metric", "bounceRate", "--dimensions", "trafficSource,deviceCategory"
        ])
        let values = (document["dimensions"] as? [[String: Any]] ?? []).map { $0["change"] as? Double }
        #expect(Set(values.map { $0 ?? .nan }).count == 1, "\(values)")
        #expect(!Self.headline(document).contains("150%"), "\(Self.headline(document))")
        Self.sharesAddUp(document)
    }

    @Test("a pure mix change is said as mix, by the dimension whose mix it is, even when it comes second")
    func pureMix() async throws {
        let document = try await Self.json([
            "explain", "--counter", "530005", "--metric", "bounceRate", "--dimensions", "trafficSource,deviceCategory"
        ])
        let headline = Self.headline(document)
        #expect(headline.hasPrefix("+"), "\(headline)")
        #expect(headline.contains(": mostly mix — Smartphones' share of visits "), "\(headline)")
        #expect((document["driver"] as? [String: Any])?["dimension"] as? String == "deviceCategory")
        // The devices' own rates did not move: their rate effect is (nearly) nothing, their mix all.
        let devices = try #require((document["dimensions"] as? [[String: Any]])?.last)
        let rate = try #require(devices["rate"] as? Double)
        #expect(abs(rate) <= 0.1, "\(rate)")
        Self.sharesAddUp(document)
    }

    @Test("a rate up in every segment is said as across the board, with the range of the rises")
    func acrossTheBoard() async throws {
        let document = try await Self.json([
            "explain", "--counter", "530006", "--metric", "bounceRate", "--dimensions", "trafficSource,deviceCategory"
        ])
        let headline = Self.headline(document)
        #expect(
            headline.hasPrefix("+") && headline.contains(": across the board — every source's own rate rose "),
            "\(headline)")
        #expect(headline.contains(" pp"), "\(headline)")
        #expect(document["driver"] is NSNull)
    }

    @Test("one segment's own rate is named as that, with its share of the headline's change")
    func oneSegmentsOwnRate() async throws {
        let document = try await Self.json([
            "explain", "--counter", "530007", "--metric", "bounceRate", "--dimensions", "deviceCategory,trafficSource"
        ])
        let headline = Self.headline(document)
        #expect(headline.contains(": Ad traffic's own rate ") && headline.contains("% of the change)"), "\(headline)")
        #expect((document["driver"] as? [String: Any])?["dimension"] as? String == "trafficSource")
    }

    @Test("the legend says what Effect, Mix and Rate mean; a duration's change reads as a duration")
    func legendAndDurations() async throws {
        let table = try await ExplainCommandTests.run([
            "explain", "--counter", "530005", "--metric", "bounceRate", "--dimensions", "deviceCategory"
        ])
        #expect(table.status == 0, "\(table.err)")
        #expect(table.out.contains("Effect: what a segment moved the total rate by, Mix + Rate."), "\(table.out)")
        #expect(table.out.contains("\nDevice category\n"), "\(table.out)")
        let duration = try await ExplainCommandTests.run([
            "explain", "--counter", "530005", "--metric", "avgVisitDuration", "--dimensions", "deviceCategory"
        ])
        let first = duration.out.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains(#/^[+-]\d+:\d\d time on site: /#), "\(first)")
    }

    @Test("users: the day's users as report shows them, whatever the order; the overlap is its own row")
    func users() async throws {
        let forward = try await Self.json([
            "explain", "--counter", "530008", "--metric", "users", "--dimensions", "trafficSource,deviceCategory"
        ])
        let backward = try await Self.json([
            "explain", "--counter", "530008", "--metric", "users", "--dimensions", "deviceCategory,trafficSource"
        ])
        #expect(forward["value"] as? Double == backward["value"] as? Double)
        #expect(forward["change"] as? Double == backward["change"] as? Double)
        let report = try await ExplainCommandTests.run([
            "report", "--counter", "530008", "--from", "2026-11-30", "--to", "2026-11-30", "--metrics", "users",
            "--csv"
        ])
        let users = report.out.split(separator: "\n").dropFirst().first?.split(separator: ",").last.map(String.init)
        #expect(users.flatMap(Double.init) == forward["value"] as? Double, "\(report.out)")
        for dimension in forward["dimensions"] as? [[String: Any]] ?? [] {
            let segments = dimension["segments"] as? [[String: Any]] ?? []
            let overlap = try #require(segments.first { $0["status"] as? String == "overlap" })
            #expect(overlap["name"] as? String == "Overlap")
            #expect((overlap["value"] as? Double ?? 0) < 0, "the segments hold more users than the day")
        }
        let table = try await ExplainCommandTests.run([
            "explain", "--counter", "530008", "--metric", "users", "--dimensions", "trafficSource"
        ])
        let row = table.out.split(separator: "\n").first { $0.hasPrefix("Overlap") }.map(String.init) ?? ""
        #expect(row.hasSuffix("counted in several sources") && !row.contains("more"), "\(table.out)")
    }

    /// The day's users cost one request of their own: kept, a repeated explanation asks nothing, and
    /// days `report` already keeps are read from it (only the segments are asked), the same numbers.
    @Test("users: the day's users are kept; explained again, no request; report's kept days reused")
    func usersKept() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("metrika-users-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: home) }
        // A settled day (yesterday is still asked again: its numbers may still change).
        let arguments = [
            "explain", "--counter", "530008", "--metric", "users", "--dimensions", "trafficSource", "--date",
            "2026-11-28"
        ]
        let first = try await ExplainCommandTests.run(arguments + ["--json"], home: home)
        #expect(first.status == 0 && first.reportingRequests == 2, "\(first.reportingRequests) \(first.err)")
        let again = try await ExplainCommandTests.run(arguments + ["--json"], home: home)
        #expect(again.status == 0 && again.reportingRequests == 0, "\(again.reportingRequests) \(again.err)")
        #expect(again.out == first.out)
        // A fresh history holding report's users of the days: explain asks the segments only.
        let other = home + "-report"
        defer { try? FileManager.default.removeItem(atPath: other) }
        let report = try await ExplainCommandTests.run(
            ["report", "--counter", "530008", "--from", "2026-10-17", "--to", "2026-11-28", "--metrics", "users"],
            home: other)
        #expect(report.status == 0, "\(report.err)")
        let reused = try await ExplainCommandTests.run(arguments + ["--json"], home: other)
        #expect(reused.status == 0 && reused.reportingRequests == 1, "\(reused.reportingRequests) \(reused.err)")
        #expect(reused.out == first.out)
    }

    @Test("a day at zero is said as stopped, as the alert says it")
    func stopped() async throws {
        let document = try await Self.json(["explain", "--counter", "530009", "--dimensions", "trafficSource"])
        let headline = Self.headline(document)
        #expect(headline.contains(#/^all [\d ]+ visits gone: tracking stopped\?$/#), "\(headline)")
    }

    @Test("a day's baseline is the alert's own: the same weekday of the 6 weeks before")
    func alertsBaseline() async throws {
        let document = try await Self.json(["explain", "--counter", "530001", "--dimensions", "trafficSource"])
        let days = (document["against"] as? [String: Any])?["days"] as? [String]
        let mondays = ["2026-10-19", "2026-10-26", "2026-11-02", "2026-11-09", "2026-11-16", "2026-11-23"]
        #expect(days == mondays, "\(days ?? [])")
        let help = try await ExplainCommandTests.run(["explain", "--help"])
        #expect(help.out.contains("6 unless the config's alerts.weeks"), "\(help.out)")
        #expect(!help.out.contains("4 weeks"))
    }

    @Test("units and names: money with its sign, a goal by its name, one table per dimension, the 2008 floor")
    func unitsAndNames() async throws {
        let revenue = try await Self.json([
            "explain", "--counter", "530008", "--metric", "revenue", "--dimensions", "trafficSource"
        ])
        #expect(Self.headline(revenue).contains(" ₽"), "\(Self.headline(revenue))")
        let goal = try await ExplainCommandTests.run([
            "explain", "--counter", "530008", "--metric", "goal4001reaches", "--dimensions", "trafficSource"
        ])
        #expect(goal.out.contains("goal \"Заказ оформлен\" reaches"), "\(goal.out)")
        let regions = try await Self.json(["explain", "--counter", "530001", "--dimensions", "regionCity,region"])
        #expect((regions["dimensions"] as? [Any])?.count == 1)
        let floor = try await ExplainCommandTests.run(["explain", "--counter", "530001", "--date", "2008-01-01"])
        #expect(floor.status == 64 && floor.err.contains("before 2008"), "\(floor.err)")
        #expect(floor.reportingRequests == 0)
    }
}
