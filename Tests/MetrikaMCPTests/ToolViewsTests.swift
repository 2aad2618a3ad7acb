import Foundation
import MetrikaModel
import MetrikaRender
import Testing

@testable import MetrikaMCP

/// The two views of a tool result (StructuredView): Claude Code and VS Code hand the model only
/// `structuredContent` when a result has one, Claude.ai the text blocks; each must hold the notes a
/// model needs on its own, and the structured view is compact (no query echo, 4 decimals).
@Suite struct ToolViewsTests {
    static let now = RFC3339.parse("2026-11-30T09:00:00Z")!
    static let simulator = Result { try ToolSimulator(now: now) }

    let folder: TemporaryFolder
    let catalogue: MetrikaToolCatalogue

    init() throws {
        folder = try TemporaryFolder()
        catalogue = MetrikaToolCatalogue(
            services: TestServices(try Self.simulator.get(), database: folder.path + "/history.sqlite", now: Self.now))
    }

    func call(_ tool: String, _ given: [(String, JSONValue)]) async throws -> MCPToolResult {
        try await catalogue.call(tool, arguments: given, activity: RecordedProgress())
    }

    /// The structured view's notes, each also a line of the text (the views agree).
    func notes(_ result: MCPToolResult, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        let notes = result.structuredContent?["notes"]?.items.compactMap(\.text) ?? []
        for note in notes where !note.contains("(the rows with incomplete: true)") {
            #expect(result.text.contains(note), "a note the text lacks: \(note)", sourceLocation: sourceLocation)
        }
        return notes
    }

    /// Every number of a JSON value, as written.
    func numbers(_ value: JSONValue) -> [String] {
        switch value {
        case .number: return [value.serialized()]
        case .array(let items): return items.flatMap(numbers)
        case .object(let members): return members.flatMap { numbers($0.1) }
        default: return []
        }
    }

    @Test func compactionRoundsToFourDecimalsAndKeepsTheRest() {
        let document = JSONValue.object([
            ("rate", .number(31.413257196964206)), ("visits", .number(4440)), ("revenue", .number(5984991.59)),
            ("half", .number(-0.00005)), ("name", .string("31.413257196964206")),
            ("rows", .array([.number(2.5), .null]))
        ])
        #expect(
            StructuredView.compact(document).serialized()
                == #"{"rate":31.4133,"visits":4440,"revenue":5984991.59,"half":-0.0001,"name":"31.413257196964206","rows":[2.5,null]}"#
        )
        #expect(StructuredView.adding(notes: [], to: document) == document)
        #expect(
            StructuredView.adding(notes: ["a", "b"], to: .object([("x", .number(1))])).serialized()
                == #"{"x":1,"notes":["a","b"]}"#)
    }

    @Test func aPeriodNotOverYetIsANoteInBothViews() async throws {
        let result = try await call(
            "get_report",
            [
                ("counter_ids", ints([1001])), ("from", .string("6daysAgo")), ("to", .string("today")),
                ("metrics", strings(["visits", "bounceRate"]))
            ])
        #expect(!result.isError, "\(result.text)")
        #expect(result.text.contains("today is not over yet"))
        #expect(
            notes(result).contains { $0.hasPrefix("today is not over yet") },
            "\(result.structuredContent?.serialized() ?? "nil")")
        let structured = try #require(result.structuredContent)
        #expect(structured["query"] == nil, "the query echo is the model's own arguments")
        let long = numbers(structured).filter {
            ($0.split(separator: ".").dropFirst().first?.count ?? 0) > StructuredView.decimals
        }
        #expect(long.isEmpty, "numbers past 4 decimals: \(long)")
        #expect(numbers(structured).contains { $0.contains(".") }, "the rates keep their decimals")
    }

    @Test func rowsLeftOutAreANoteInBothViews() async throws {
        let result = try await call(
            "get_report",
            [("counter_ids", ints([1005])), ("dimensions", strings(["trafficSource"])), ("limit", .number(2))])
        #expect(!result.isError, "\(result.text)")
        let paging = notes(result).filter { $0.contains("call get_report again with offset 3") }
        #expect(paging.count == 1, "\(result.structuredContent?.serialized() ?? "nil")")
        #expect(result.structuredContent?["more"]?["offset"] == .number(3))
        // A full answer of finished days has no notes at all (one holding today says so: issue 48).
        let all = try await call(
            "get_report",
            [("counter_ids", ints([1005])), ("dimensions", strings(["trafficSource"])), ("to", .string("yesterday"))])
        #expect(
            all.structuredContent?["more"] == nil && all.structuredContent?["notes"] == nil,
            "\(all.structuredContent?.serialized() ?? "nil")")
    }

    @Test func countersLeftOutAreANoteInBothViews() async throws {
        let result = try await call("list_counters", [("limit", .number(1))])
        #expect(!result.isError, "\(result.text)")
        #expect(
            notes(result).contains { $0.contains("call list_counters again with offset 2") },
            "\(result.structuredContent?.serialized() ?? "nil")")
    }

    @Test func listMetricsSaysGoalUnitsAndMoneysCurrencyInBothViews() async throws {
        let result = try await call("list_metrics", [])
        #expect(
            notes(result) == [
                "Goal metrics: goal<ID>reaches · count · sum; goal<ID>conversionRate · percent · weighted; goal<ID>revenue · money · sum (ids from list_goals).",
                "Money metrics are in the counter's currency unless currency is given."
            ])
    }
}
