import Foundation
import MetrikaModel
import MetrikaRender
import Testing

@testable import MetrikaMCP

/// Issue 39's budget: every tool's default answer stays under `TokenBudget.target` tokens and its
/// largest under `TokenBudget.ceiling` (tokens ≈ ASCII characters / 4 + other characters / 1.5,
/// over the text and `structuredContent` together), on the simulator's biggest counters: 2,601
/// counters (Fixtures/many) and the 150,000 phrases of counter 1004.
@Suite struct ToolBudgetTests {
    static let now = RFC3339.parse("2026-11-30T09:00:00Z")!
    static let simulator = Result { try ToolSimulator(now: now) }
    static let many = Result { try ToolSimulator(fixtures: "many", now: now) }
    static let alerts = Result { try ToolSimulator(fixtures: "alerts", now: RFC3339.parse("2026-12-01T06:00:00Z")!) }

    /// Every metric get_report takes at once on a phrase report: the widest rows there are.
    static let widest = [
        "visits", "pageviews", "users", "newUsers", "pageDepth", "avgVisitDuration", "bounceRate", "percentNewVisitors",
        "robotPercentage",
        "goal4101reaches", "goal4101conversionRate"
    ]

    @Test func theEstimateCountsCyrillicDearerThanASCII() {
        #expect(TokenBudget.tokens("abcd") == 1)
        #expect(TokenBudget.tokens("абв") == 2)
        #expect(TokenBudget.tokens(String(repeating: "x", count: 40_000)) == 10_000)
        let result = MCPToolResult(
            content: [.text("abcd"), .image(data: Array(repeating: 0, count: 4_000), mimeType: "image/png")],
            structuredContent: .object([("a", .string("абв"))]))
        #expect(TokenBudget.tokens(result) == 1 + TokenBudget.tokens(#"{"a":"абв"}"#))
    }

    @Test func everyToolsDefaultAndLargestAnswerFitTheBudget() async throws {
        let folder = try TemporaryFolder()
        func catalogue(_ simulator: ToolSimulator, _ name: String) -> MetrikaToolCatalogue {
            MetrikaToolCatalogue(
                services: TestServices(simulator, database: folder.path + "/\(name).sqlite", now: Self.now))
        }
        let reports = catalogue(try Self.simulator.get(), "reports")
        let many = catalogue(try Self.many.get(), "many")
        let alerts = catalogue(try Self.alerts.get(), "alerts")
        let phrases: [(String, JSONValue)] = [("counter_ids", ints([1004])), ("dimensions", strings(["searchPhrase"]))]
        let year: [(String, JSONValue)] = [("from", .string("2025-12-01")), ("to", .string("2026-11-29"))]
        let cases:
            [(
                name: String, catalogue: MetrikaToolCatalogue, tool: String, arguments: [(String, JSONValue)],
                budget: Int
            )] = [
                ("list_counters, 2,601 counters", many, "list_counters", [], TokenBudget.target),
                (
                    "list_counters, largest page", many, "list_counters",
                    [("limit", .number(Double(ListCountersTool.maximumLimit)))], TokenBudget.ceiling
                ),
                ("get_report, 7 days", reports, "get_report", [("counter_ids", ints([1001]))], TokenBudget.target),
                (
                    "get_report, 365 days", reports, "get_report", [("counter_ids", ints([1001]))] + year,
                    TokenBudget.target
                ),
                (
                    "get_report, 365 days × 3 counters, largest", reports, "get_report",
                    [
                        ("counter_ids", ints([1001, 1002, 1003])),
                        ("limit", .number(Double(GetReportTool.maximumLimit))),
                        (
                            "metrics",
                            strings([
                                "visits", "pageviews", "users", "pageDepth", "avgVisitDuration", "bounceRate", "revenue"
                            ])
                        )
                    ] + year, TokenBudget.ceiling
                ),
                ("get_report, phrases", reports, "get_report", phrases, TokenBudget.target),
                (
                    "get_report, phrases, largest", reports, "get_report",
                    phrases + [
                        ("limit", .number(Double(GetReportTool.maximumLimit))), ("metrics", strings(Self.widest))
                    ], TokenBudget.ceiling
                ),
                (
                    "get_report, phrases compared", reports, "get_report",
                    [
                        ("counter_ids", ints([1001])), ("period", .string("lastWeek")),
                        ("dimensions", strings(["searchPhrase"])), ("compare", .bool(true))
                    ], TokenBudget.target
                ),
                (
                    "get_report, phrases compared, largest", reports, "get_report",
                    [
                        ("counter_ids", ints([1004])), ("period", .string("yesterday")),
                        ("dimensions", strings(["searchPhrase"])), ("compare", .bool(true)),
                        ("limit", .number(Double(GetReportTool.maximumLimit))), ("metrics", strings(Self.widest))
                    ], TokenBudget.ceiling
                ),
                ("check_alerts, today", alerts, "check_alerts", [("today", .bool(true))], TokenBudget.target),
                ("list_goals", reports, "list_goals", [("counter_id", .number(1001))], TokenBudget.target),
                ("check_alerts", alerts, "check_alerts", [], TokenBudget.target),
                ("list_metrics", reports, "list_metrics", [], TokenBudget.target)
            ]
        for item in cases {
            let result = try await item.catalogue.call(
                item.tool, arguments: item.arguments, activity: RecordedProgress())
            #expect(!result.isError, "\(item.name): \(result.text)")
            let tokens = TokenBudget.tokens(result)
            print("budget: \(item.name): \(tokens) tokens")
            #expect(tokens <= item.budget, "\(item.name): \(tokens) tokens, over \(item.budget)")
            // Never two full copies past the budget: the text stays small beside rows in the JSON.
            if tokens > TokenBudget.target / 2, let structured = result.structuredContent {
                #expect(
                    TokenBudget.tokens(result.text) < TokenBudget.tokens(structured.serialized()),
                    "\(item.name): the text is the compact copy")
            }
        }
    }

    @Test func aCompactTextStillNamesThePeriodTotalsAndWhereTheRowsAre() async throws {
        let folder = try TemporaryFolder()
        let reports = MetrikaToolCatalogue(
            services: TestServices(try Self.simulator.get(), database: folder.path + "/h.sqlite", now: Self.now))
        let result = try await reports.call(
            "get_report",
            arguments: [
                ("counter_ids", ints([1004])), ("dimensions", strings(["searchPhrase"])),
                ("limit", .number(Double(GetReportTool.maximumLimit))), ("metrics", strings(Self.widest))
            ],
            activity: RecordedProgress())
        let shown = result.structuredContent?["rows"]?.items.count ?? 0
        #expect(shown > GetReportTool.compactRows)
        #expect(
            result.text.contains(
                "The table shows the first \(GetReportTool.compactRows) rows of each counter; structuredContent.rows holds all \(GetReportTool.grouped(shown))"
            ))
        #expect(result.text.contains("\nTotal "), "the totals stay in the compact text")
        #expect(result.text.contains("call get_report again with offset \(shown + 1)"))
        #expect(result.structuredContent?["more"]?["offset"] == .number(Double(shown + 1)))
    }

    @Test func listMetricsNamesUnitsHowEachAddsUpAndThePresets() async throws {
        let result = try await MetrikaToolCatalogue(services: ToolSchemaTests.Unreachable()).call(
            "list_metrics", arguments: [], activity: RecordedProgress())
        #expect(!result.isError)
        let metrics = result.structuredContent?["metrics"]?.items ?? []
        let byName = Dictionary(
            uniqueKeysWithValues: metrics.compactMap { item in item["name"]?.text.map { ($0, item) } })
        #expect(byName["visits"]?["over_days"] == .string("sum") && byName["visits"]?["unit"] == .string("count"))
        #expect(byName["users"]?["over_days"] == .string("never_summed"))
        #expect(
            byName["bounceRate"]?["over_days"] == .string("weighted")
                && byName["bounceRate"]?["unit"] == .string("percent"))
        #expect(byName["productRevenue"]?["unit"] == .string("money"))
        #expect(metrics.count == Metric.known.count)
        let presets = result.structuredContent?["presets"]?.items.compactMap { $0["name"]?.text } ?? []
        #expect(presets.contains("top_products") && presets.contains("traffic"))
        let dimensions = result.structuredContent?["dimensions"]?.items.compactMap { $0["name"]?.text } ?? []
        #expect(dimensions.contains("searchPhrase") && dimensions.contains("datePeriodweek"))
        #expect(result.text.contains("users · count · never_summed"))
        #expect(result.text.contains("top_products · product · productImpressions"))
    }
}
