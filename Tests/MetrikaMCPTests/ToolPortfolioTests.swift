import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaTestSupport
import MetrikaUseCases
import Testing

@testable import MetrikaMCP

/// `get_report` with `counter_ids: "all"` (the portfolio) and `check_alerts` over every counter, each
/// against a simulator of its own so that its request log is the test's alone (issue 47).
@Suite struct ToolPortfolioTests {
    /// Monday 2026-06-15 at noon: the first week of June is settled.
    static let now = RFC3339.parse("2026-06-15T12:00:00Z")!
    static let week: [(String, JSONValue)] = [("from", .string("2026-06-01")), ("to", .string("2026-06-07"))]

    @Test func theWholePortfolioIsOneRowPerCounterByVisitsWithATotalAndAWarmRepeatAsksOnlyTheList() async throws {
        let simulator = try ToolSimulator(now: Self.now)
        let folder = try TemporaryFolder()
        let services = TestServices(simulator, database: folder.path + "/h.sqlite", now: Self.now)
        let catalogue = MetrikaToolCatalogue(services: services)
        let progress = RecordedProgress()
        let first = try await catalogue.call(
            "get_report", arguments: [("counter_ids", .string("all"))] + Self.week, activity: progress)
        #expect(!first.isError, "\(first.text)")
        let document = try #require(first.structuredContent)
        #expect(document["kind"]?.text == "portfolio")
        let rows = document["rows"]?.items ?? []
        // demo-token reads 880000 and 1001…1005 (1006 is deleted, 9999 someone else's).
        #expect(Set(rows.compactMap { $0["counter_id"]?.number }) == [880000, 1001, 1002, 1003, 1004, 1005])
        let visits = rows.map { $0["visits"]?.number ?? -1 }
        #expect(visits == visits.sorted(by: >), "by visits, most first")
        #expect(document["total"]?["visits"]?.number == visits.reduce(0, +))
        #expect(document["total"]?["users"] == .null, "users are never summed")
        #expect(first.text.contains("not summed"), "\(first.text)")
        #expect(progress.reports.withLock { $0 }.last == 6, "one progress report per counter read")
        // One request per counter for its week (1005 did not exist yet: none), plus the counters list.
        let cold = try simulator.requestCount(pathPrefix: "/stat/")
        #expect(cold == 5)
        #expect(try simulator.requestCount(pathPrefix: "/management/v1/counters") == 1)

        // The same week again: read from the history, only the counters list is asked.
        let paged = try await catalogue.call(
            "get_report", arguments: [("counter_ids", .string("all")), ("limit", .number(2))] + Self.week,
            activity: RecordedProgress())
        #expect(try simulator.requestCount(pathPrefix: "/stat/") == cold, "warm: no Reporting request")
        #expect(try simulator.requestCount(pathPrefix: "/management/v1/counters") == 2)
        let page = try #require(paged.structuredContent)
        #expect(page["rows"]?.items.count == 2)
        #expect(page["more"]?["offset"]?.number == 3)
        #expect(page["total"]?["visits"] == document["total"]?["visits"], "the Total is over every counter")

        // A word that is neither ids nor "all" is refused before any work, naming the argument.
        let wrong = try await catalogue.call(
            "get_report", arguments: [("counter_ids", .string("every"))], activity: RecordedProgress())
        #expect(wrong.isError && wrong.text.hasPrefix("counter_ids is a string other than \"all\""), "\(wrong.text)")
        let mixed = try await catalogue.call(
            "get_report", arguments: [("counter_ids", .string("all")), ("metrics", .array([.string("visits")]))],
            activity: RecordedProgress())
        #expect(mixed.isError && mixed.text.hasPrefix("metrics does not apply to counter_ids all"), "\(mixed.text)")
    }

    @Test func checkAlertsOverEveryCounterReadsGoalsFromTheListAndReportsProgressAsItGoes() async throws {
        // The alert situations (docs/simulator.md), metrika on Monday 2026-11-30.
        let simulator = try ToolSimulator(fixtures: "alerts", now: RFC3339.parse("2026-12-01T06:00:00Z")!)
        let monday = RFC3339.parse("2026-11-30T06:00:00Z")!
        let folder = try TemporaryFolder()
        let services = TestServices(simulator, database: folder.path + "/h.sqlite", now: monday)
        let catalogue = MetrikaToolCatalogue(services: services)
        let progress = RecordedProgress()
        let first = try await catalogue.call("check_alerts", arguments: [], activity: progress)
        #expect(!first.isError, "\(first.text)")
        let checked = Double(first.structuredContent?["counters_checked"]?.number ?? 0)
        #expect(checked >= 8)
        let reports = progress.reports.withLock { $0 }
        #expect(reports.first == 0 && reports.last == checked)
        #expect(reports.contains { $0 > 0 && $0 < checked }, "progress goes as the counters are checked: \(reports)")
        // Every goals list came with the counters list (field=goals): no request per counter for goals.
        let coldReporting = try simulator.requestCount(pathPrefix: "/stat/")
        // One request per counter, one more per shop for its revenue (the currency learned from the
        // first answer), and the drivers of the drops and rises (6 dimensions each).
        let findings = first.structuredContent?["findings"]?.items ?? []
        let explained = Set(
            findings.filter { ["drop", "rise"].contains($0["notice"]?.text ?? "") }.compactMap {
                $0["counter_id"]?.number
            })
        #expect(coldReporting <= Int(checked) + 2 + 6 * explained.count, "\(coldReporting) Reporting requests")
        // The only Management requests per counter: each alerted counter's chart annotations, one.
        let alerted = Set(findings.filter { $0["notice"]?.text != "ok" }.compactMap { $0["counter_id"]?.number })
        #expect(try simulator.requestCount(pathPrefix: "/management/v1/counter/") <= alerted.count)

        // An hour later: each counter's last day again, a shop's revenue in the same request.
        let later = TestServices(simulator, database: folder.path + "/h.sqlite", now: monday.addingTimeInterval(3600))
        let again = try await MetrikaToolCatalogue(services: later).call(
            "check_alerts", arguments: [], activity: RecordedProgress())
        #expect(!again.isError, "\(again.text)")
        let warm = try simulator.requestCount(pathPrefix: "/stat/") - coldReporting
        #expect(warm <= Int(checked) + 6 * explained.count, "\(warm) Reporting requests warm")
    }
}
