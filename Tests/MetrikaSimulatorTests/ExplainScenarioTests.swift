import Foundation
import Testing

@testable import MetrikaSimulator

/// Fixtures/explain: changes with a known driver (issue 37), as the Reporting API serves them. The
/// simulator's clock: Tuesday 2026-12-01, 09:00 in Moscow; the changed day is Monday 2026-11-30, its
/// baseline the Mondays before.
@Suite("Simulator: explain scenarios")
struct ExplainScenarioTests {
    static let now = SimulatorOptions.parseInstant("2026-12-01T06:00:00Z")!
    static let day = "2026-11-30"
    static let weekBefore = "2026-11-23"
    static let dimensions = [
        "ym:s:trafficSource", "ym:s:searchEngine", "ym:s:lastsignUTMSource", "ym:s:deviceCategory", "ym:s:startURL",
        "ym:s:regionCountry", "ym:s:regionCity"
    ]

    /// Visits (and any further metrics) of one day by one dimension: (name or id → values), totals.
    func segments(
        _ harness: SimulatorHarness, _ counter: Int, _ dimension: String, on day: String,
        metrics: String = "ym:s:visits"
    ) async throws -> (rows: [String: [Double]], totals: [Double?]) {
        let answer = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=\(counter)&metrics=\(metrics)&dimensions=\(dimension)&date1=\(day)&date2=\(day)&limit=1000"
            ))
        var rows: [String: [Double]] = [:]
        for (index, row) in answer.rows.enumerated() {
            let key = answer.ids()[index] ?? answer.names()[index] ?? "null"
            rows[key] = (row["metrics"] as? [Any] ?? []).map { $0 as? Double ?? .nan }
        }
        return (rows, answer.totals)
    }

    func visits(_ harness: SimulatorHarness, _ counter: Int, on day: String) async throws -> Double {
        let answer = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=\(counter)&metrics=ym:s:visits&dimensions=ym:s:date&date1=\(day)&date2=\(day)"))
        return try #require(answer.column(0).first)
    }

    @Test(arguments: [530001, 530002, 530003])
    func everyDimensionAddsUpToTheDay(counter: Int) async throws {
        let harness = try SimulatorHarness(fixtures: "explain", now: Self.now)
        for day in [Self.day, Self.weekBefore] {
            let total = try await visits(harness, counter, on: day)
            for dimension in Self.dimensions {
                let answer = try StatAnswer(
                    try await harness.get(
                        "/stat/v1/data?ids=\(counter)&metrics=ym:s:visits&dimensions=\(dimension)&date1=\(day)&date2=\(day)&limit=1000"
                    ))
                #expect(answer.column(0).reduce(0, +) == total, "\(counter) \(dimension) \(day)")
                #expect(answer.totals.first == total)
            }
        }
    }

    @Test func aWeekByDayAndSourceAddsUpEachDay() async throws {
        let harness = try SimulatorHarness(fixtures: "explain", now: Self.now)
        let answer = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=530001&metrics=ym:s:visits&dimensions=ym:s:date,ym:s:trafficSource&date1=2026-11-24&date2=2026-11-30&limit=1000"
            ))
        var byDay: [String: Double] = [:]
        var organic: [String: Double] = [:]
        for (index, value) in answer.column(0).enumerated() {
            guard let day = answer.names(0)[index] else { continue }
            byDay[day, default: 0] += value
            if answer.ids(1)[index] == "organic" { organic[day, default: 0] += value }
        }
        for day in ["2026-11-24", "2026-11-27", Self.day] {
            #expect(byDay[day] == (try await visits(harness, 530001, on: day)))
        }
        #expect(organic[Self.day] == nil && (organic["2026-11-27"] ?? 0) > 300)
        // The whole week in one bucket adds up too, and holds the six days' search traffic.
        let (week, weekTotals) = try await segmentsOverWeek(harness)
        #expect(week.values.reduce(0, +) == weekTotals)
        #expect((week["organic"] ?? 0) == organic.values.reduce(0, +))
    }

    func segmentsOverWeek(_ harness: SimulatorHarness) async throws -> ([String: Double], Double) {
        let answer = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=530001&metrics=ym:s:visits&dimensions=ym:s:trafficSource&date1=2026-11-24&date2=2026-11-30"
            ))
        var rows: [String: Double] = [:]
        for (index, value) in answer.column(0).enumerated() { rows[answer.ids()[index] ?? "null"] = value }
        return (rows, try #require(answer.totals.first ?? nil))
    }

    @Test func searchTrafficFallsToZero() async throws {
        let harness = try SimulatorHarness(fixtures: "explain", now: Self.now)
        let before = try await segments(harness, 530001, "ym:s:trafficSource", on: Self.weekBefore).rows
        let after = try await segments(harness, 530001, "ym:s:trafficSource", on: Self.day).rows
        let organic = try #require(before["organic"]?[0])
        let total = before.values.reduce(0) { $0 + $1[0] }
        #expect(organic / total > 0.2, "search is a large source: \(organic) of \(total)")
        #expect(after["organic"] == nil, "no row: the source vanished")
        // The other sources go on as usual (within the day's noise).
        for (source, values) in before where source != "organic" && values[0] > 100 {
            let ratio = (after[source]?[0] ?? 0) / values[0]
            #expect(ratio > 0.75 && ratio < 1.33, "\(source): \(ratio)")
        }
        let engines = try await segments(harness, 530001, "ym:s:searchEngine", on: Self.day).rows
        #expect(Array(engines.keys) == ["null"], "no search engine without search traffic")
    }

    @Test func aBotWaveOnSmartphones() async throws {
        let harness = try SimulatorHarness(fixtures: "explain", now: Self.now)
        let metrics = "ym:s:visits,ym:s:robotPercentage"
        let before = try await segments(harness, 530002, "ym:s:deviceCategory", on: Self.weekBefore, metrics: metrics)
        let after = try await segments(harness, 530002, "ym:s:deviceCategory", on: Self.day, metrics: metrics)
        let mobile = try #require(after.rows["mobile"]?[0]) / (try #require(before.rows["mobile"]?[0]))
        let desktop = try #require(after.rows["desktop"]?[0]) / (try #require(before.rows["desktop"]?[0]))
        #expect(mobile > 2.4 && mobile < 3.7, "smartphones ×3: \(mobile)")
        #expect(desktop > 0.75 && desktop < 1.33, "PCs as usual: \(desktop)")
        // Two thirds of the smartphones' visits are the wave's robots.
        #expect(try #require(after.rows["mobile"]?[1]) > 60)
        #expect(try #require(after.rows["desktop"]?[1]) < 10)
        let robotsBefore = try #require(before.totals[1] ?? nil)
        let robotsAfter = try #require(after.totals[1] ?? nil)
        #expect(robotsAfter > 3 * robotsBefore, "\(robotsBefore)% → \(robotsAfter)%")
        // The day's own robot share, without a dimension, says so too.
        let day = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=530002&metrics=ym:s:robotPercentage&date1=\(Self.day)&date2=\(Self.day)"))
        #expect(try #require(day.totals.first ?? nil) > 30)
    }

    @Test func anEvenDropMovesEverySegmentAlike() async throws {
        let harness = try SimulatorHarness(fixtures: "explain", now: Self.now)
        let total =
            try await visits(harness, 530003, on: Self.day) / (try await visits(harness, 530003, on: Self.weekBefore))
        #expect(total > 0.45 && total < 0.8, "\(total)")
        for dimension in ["ym:s:trafficSource", "ym:s:deviceCategory", "ym:s:regionCountry"] {
            let before = try await segments(harness, 530003, dimension, on: Self.weekBefore).rows
            let after = try await segments(harness, 530003, dimension, on: Self.day).rows
            for (key, values) in before where values[0] >= 100 {
                let ratio = (after[key]?[0] ?? 0) / values[0]
                #expect(abs(ratio - total) < 0.03, "\(dimension) \(key): \(ratio) against \(total)")
            }
        }
    }

    @Test func theComparisonEndpointGivesBothPeriodsPerRow() async throws {
        let harness = try SimulatorHarness(fixtures: "explain", now: Self.now)
        let reply = try await harness.get(
            "/stat/v1/data/comparison?ids=530001&metrics=ym:s:visits,ym:s:bounceRate&dimensions=ym:s:trafficSource"
                + "&date1_a=\(Self.weekBefore)&date2_a=\(Self.weekBefore)&date1_b=\(Self.day)&date2_b=\(Self.day)")
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        let json = try reply.json()
        let query = try #require(json["query"] as? [String: Any])
        #expect(query["date1_a"] as? String == Self.weekBefore && query["date2_b"] as? String == Self.day)
        #expect(query["date1"] == nil)
        let rows = try #require(json["data"] as? [[String: Any]])
        var a: [String: [Double?]] = [:]
        var b: [String: [Double?]] = [:]
        for row in rows {
            let id = try #require(((row["dimensions"] as? [[String: Any]])?.first?["id"]) as? String)
            let metrics = try #require(row["metrics"] as? [String: [Any]])
            a[id] = metrics["a"]?.map { $0 as? Double }
            b[id] = metrics["b"]?.map { $0 as? Double }
        }
        let organic = try #require(a["organic"]?[0] ?? nil)
        #expect(organic > 300)
        #expect(b["organic"]?[0] == 0 && b["organic"]?[1] == .some(nil), "gone in b: 0 visits, no bounce rate")
        let totals = try #require(json["totals"] as? [String: [Any]])
        let totalA = try #require(totals["a"]?.first as? Double)
        let totalB = try #require(totals["b"]?.first as? Double)
        #expect(totalA == (try await visits(harness, 530001, on: Self.weekBefore)))
        #expect(totalB == (try await visits(harness, 530001, on: Self.day)))
        #expect(a.values.reduce(0) { $0 + ($1[0] ?? 0) } == totalA)
        #expect(b.values.reduce(0) { $0 + ($1[0] ?? 0) } == totalB)
        // The same numbers as two /stat/v1/data requests.
        let direct = try await segments(harness, 530001, "ym:s:trafficSource", on: Self.day).rows
        for (id, values) in direct { #expect(b[id]?[0] == values[0], "\(id)") }

        let byDate = try await harness.get(
            "/stat/v1/data/comparison?ids=530001&metrics=ym:s:visits&dimensions=ym:s:date&date1_a=\(Self.day)&date1_b=\(Self.day)"
        )
        #expect(byDate.status == 400)
    }

    @Test func utmSourcesSplitTheTaggedSources() async throws {
        let harness = try SimulatorHarness(fixtures: "explain", now: Self.now)
        let answer = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=530001&metrics=ym:s:visits&dimensions=ym:s:trafficSource,ym:s:UTMSource&date1=\(Self.weekBefore)&date2=\(Self.weekBefore)&limit=1000"
            ))
        let sources = try await segments(harness, 530001, "ym:s:trafficSource", on: Self.weekBefore).rows
        var bySource: [String: Double] = [:]
        var tags: [String: Set<String>] = [:]
        for (index, value) in answer.column(0).enumerated() {
            let source = try #require(answer.ids(0)[index])
            bySource[source, default: 0] += value
            if let tag = answer.names(1)[index] { tags[source, default: []].insert(tag) }
            #expect(answer.ids(1)[index] == nil, "a UTM source has no id")
        }
        for (source, values) in sources { #expect(bySource[source] == values[0], "\(source)") }
        #expect(tags["ad"]?.isSuperset(of: ["yandex", "google"]) == true)
        #expect(tags["organic"] == nil && tags["direct"] == nil, "untagged traffic has only the null row")
    }
}

extension ExplainScenarioTests {
    /// Issue 48: a rate read the same day in total, by source and by device (it read 16.1 %, 17.8 % and
    /// 17.0 %): every count of a row is shared out of the day's, so the rows add up to it exactly.
    @Test(arguments: [530002, 530005, 530007])
    func ratesAgreeAcrossDimensions(counter: Int) async throws {
        let harness = try SimulatorHarness(fixtures: "explain", now: Self.now)
        let metrics = "ym:s:visits,ym:s:bounceRate,ym:s:pageDepth,ym:s:avgVisitDurationSeconds,ym:s:users"
        let whole = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=\(counter)&metrics=\(metrics)&date1=\(Self.day)&date2=\(Self.day)"))
        for dimension in ["ym:s:trafficSource", "ym:s:deviceCategory", "ym:s:startURL", "ym:s:regionCity"] {
            let (_, totals) = try await segments(harness, counter, dimension, on: Self.day, metrics: metrics)
            for index in 0..<4 {
                let (total, split) = (whole.totals[index] ?? .nan, totals[index] ?? .nan)
                #expect(abs(total - split) < 1e-9, "\(counter) \(dimension) metric \(index): \(total) and \(split)")
            }
            #expect(totals[4] == whole.totals[4], "users: the day's distinct users in every dimension")
        }
    }

    /// The segments' users exceed the day's (a visitor who came by two sources is one of each).
    @Test func segmentsUsersOverlap() async throws {
        let harness = try SimulatorHarness(fixtures: "explain", now: Self.now)
        let (rows, totals) = try await segments(
            harness, 530008, "ym:s:trafficSource", on: Self.day, metrics: "ym:s:users")
        let sum = rows.values.reduce(0) { $0 + ($1.first ?? 0) }
        let day = try #require(totals.first ?? nil)
        #expect(sum > day * 1.2 && sum < day * 1.3, "\(sum) users in sources, \(day) in the day")
    }
}
