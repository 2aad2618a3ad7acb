import Foundation
import Testing

@testable import MetrikaCLI

/// Issue 37 item 2: a rise says what share of its visits were robots — the bot wave of 530002 (the
/// smartphones tripled, the added visits robots') in the headline, the table and the JSON, asked in
/// the first dimension's request (no request more); a drop says nothing of robots.
@Suite("explain: a rise's robots")
struct ExplainRobotsTests {
    @Test("the bot wave's robots: headline, table and JSON, the same number of requests")
    func botWave() async throws {
        let table = try await ExplainCommandTests.run([
            "explain", "--counter", "530002", "--dimensions", "deviceCategory,trafficSource"
        ])
        #expect(table.status == 0, "\(table.err)")
        let lines = table.out.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.range(
                of:
                    #"^\+[\d ]+ visits: Smartphones \+[\d ]+ \(\d+%\); robots (\d+)% of visits \((\d)% in the baseline\)$"#,
                options: .regularExpression) != nil, "\(table.out)")
        #expect(lines.contains { $0.hasPrefix("Robots: ") && $0.hasSuffix("in the baseline)") }, "\(table.out)")
        #expect(table.reportingRequests == 2, "one request per dimension, robots included")

        let json = try await ExplainCommandTests.run([
            "explain", "--counter", "530002", "--dimensions", "deviceCategory", "--json"
        ])
        let document = try ExplainCommandTests.checkedJSON(json)
        let robots = try #require(document["robots"] as? [String: Any], "\(json.out)")
        let share = try #require(robots["share"] as? Double)
        let expected = try #require(robots["expected"] as? Double)
        // The wave added ~2 × the smartphones' usual visits, all robots: a third of the day; the usual share is a few
        // percent.
        #expect(share > 25 && share < 50, "\(robots)")
        #expect(expected > 0 && expected < 10, "\(robots)")
        // Against a range (the comparison endpoint) too.
        let range = try await ExplainCommandTests.run([
            "explain", "--counter", "530002", "--from", "2026-11-30", "--to", "2026-11-30",
            "--against", "2026-11-23..2026-11-23", "--dimensions", "deviceCategory", "--json"
        ])
        let ranged = try ExplainCommandTests.checkedJSON(range)
        #expect(
            ((ranged["robots"] as? [String: Any])?["share"] as? Double).map { abs($0 - share) < 0.5 } == true,
            "\(range.out)")
    }

    /// Issue 48: every share in a rate's headline is of the headline's own change. Robots whose share of the
    /// visits did not move took no part in a rate's rise: the headline leaves them out (the Robots: line keeps them).
    @Test("a rate's rise with robots unchanged says nothing of them in its headline")
    func rateRiseWithUnchangedRobots() async throws {
        for counter in ["530005", "530006", "530007"] {
            let run = try await ExplainCommandTests.run([
                "explain", "--counter", counter, "--metric", "bounceRate", "--dimensions",
                "trafficSource,deviceCategory"
            ])
            #expect(run.status == 0, "\(run.err)")
            let headline = run.out.split(separator: "\n").first.map(String.init) ?? ""
            #expect(headline.hasPrefix("+") && !headline.contains("robots"), "\(run.out)")
            #expect(run.out.contains("\nRobots: "), "\(run.out)")
        }
    }

    @Test("a drop says nothing of robots")
    func dropHasNoRobots() async throws {
        let run = try await ExplainCommandTests.run([
            "explain", "--counter", "530001", "--dimensions", "trafficSource", "--json"
        ])
        let document = try ExplainCommandTests.checkedJSON(run)
        #expect(document["robots"] is NSNull, "\(run.out)")
        #expect(!(document["headline"] as? String ?? "robots").contains("robots"))
    }
}
