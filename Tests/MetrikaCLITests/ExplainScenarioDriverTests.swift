import Foundation
import MetrikaModel
import MetrikaSimulator
import Testing

/// The simulator's explain scenarios (Fixtures/explain) through the exact decomposition: each
/// counter's known driver is what the one sentence names (issue 37). The simulator answers in
/// process (no socket); the baseline is the Monday before, the period Monday 2026-11-30.
@Suite("Explain: the scenarios' known drivers")
struct ExplainScenarioDriverTests {
    static let dimensions = [
        ("ym:s:trafficSource", "sources"), ("ym:s:searchEngine", "search engines"), ("ym:s:UTMSource", "UTM sources"),
        ("ym:s:deviceCategory", "devices"), ("ym:s:startURL", "start pages"), ("ym:s:regionCountry", "countries"),
        ("ym:s:regionCity", "cities")
    ]

    static func simulator() throws -> Simulator {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/explain", isDirectory: true)
        return try Simulator(
            options: SimulatorOptions(
                fixturesDirectory: root, now: SimulatorOptions.parseInstant("2026-12-01T06:00:00Z")))
    }

    /// One dimension's visits in both periods, from one `/stat/v1/data/comparison` request.
    static func explained(_ simulator: Simulator, counter: Int, _ dimension: String, plural: String) throws
        -> ExplainedDimension
    {
        let response = simulator.handle(
            HTTPRequest(
                method: "GET", path: "/stat/v1/data/comparison",
                query: "ids=\(counter)&metrics=ym:s:visits&dimensions=\(dimension)&limit=1000"
                    + "&date1_a=2026-11-23&date2_a=2026-11-23&date1_b=2026-11-30&date2_b=2026-11-30",
                headers: [(name: "Authorization", value: "OAuth demo-token")]))
        #expect(response.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let rows = try #require(json["data"] as? [[String: Any]])
        let segments = try rows.map { row in
            let name = ((row["dimensions"] as? [[String: Any]])?.first?["name"] as? String) ?? "Not determined"
            let metrics = try #require(row["metrics"] as? [String: [Double]])
            return SegmentCount(
                name: name, value: try #require(metrics["b"]?.first), expected: try #require(metrics["a"]?.first))
        }
        let totals = try #require(json["totals"] as? [String: [Double]])
        let decomposition = ContributionAnalysis.counts(
            segments, total: (value: try #require(totals["b"]?.first), expected: try #require(totals["a"]?.first)))
        let shown = ContributionRounding.shown(decomposition, unit: .count)
        #expect(shown.changes.reduce(0, +) == shown.change, "\(counter) \(dimension)")
        return ExplainedDimension(plural: plural, decomposition: decomposition, shown: shown)
    }

    static func sentence(_ counter: Int) throws -> (String, [ExplainedDimension]) {
        let simulator = try simulator()
        let all = try dimensions.map { try explained(simulator, counter: counter, $0.0, plural: $0.1) }
        return (ContributionHeadline.sentence(metric: "visits", all), all)
    }

    @Test func searchTrafficFallingToZeroIsNamed() throws {
        let (sentence, explained) = try Self.sentence(530001)
        #expect(sentence.hasPrefix("-"), "\(sentence)")
        #expect(sentence.contains(": Search engine traffic -") && sentence.hasSuffix("gone)"), "\(sentence)")
        #expect(ContributionHeadline.order(explained).first == 0)
    }

    @Test func aBotWaveOnSmartphonesIsNamed() throws {
        let (sentence, _) = try Self.sentence(530002)
        #expect(sentence.hasPrefix("+") && sentence.contains(": Smartphones +"), "\(sentence)")
    }

    @Test func anEvenDropIsSpreadEvenly() throws {
        let (sentence, explained) = try Self.sentence(530003)
        #expect(
            sentence.hasPrefix("-") && sentence.contains(": spread evenly across sources, search engines"),
            "\(sentence)")
        #expect(explained.allSatisfy { $0.decomposition.concentration < ContributionHeadline.evenThreshold })
    }
}
