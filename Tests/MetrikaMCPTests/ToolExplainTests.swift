import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaSimulator
import MetrikaTestSupport
import MetrikaUseCases
import Testing

@testable import MetrikaMCP

/// `explain_change` against the simulator's explain scenarios (Fixtures/explain; yesterday is Monday
/// 2026-11-30): the document `metrika explain --json` prints (without `version`), one Reporting
/// request per dimension, and bad input as a tool error naming the argument.
@Suite("MCP explain_change", .serialized) // one test counts the shared simulator's requests
struct ToolExplainTests {
    static let now = RFC3339.parse("2026-12-01T06:00:00Z")!
    static let simulator = Result { try ToolSimulator(fixtures: "explain", now: now) }

    @Test("the driver named; the same document as explain --json; one request per dimension")
    func sameDocumentAsTheCommand() async throws {
        let folder = try TemporaryFolder()
        let services = TestServices(try Self.simulator.get(), database: folder.path + "/history.sqlite", now: Self.now)
        let catalogue = MetrikaToolCatalogue(services: services)
        let before = try Self.simulator.get().requestQueries(pathPrefix: "/stat/", counter: 530001).count
        let result = try await catalogue.call(
            "explain_change", arguments: [("counter_id", .number(530001))], activity: RecordedProgress())
        #expect(!result.isError, "\(result.text)")
        let after = try Self.simulator.get().requestQueries(pathPrefix: "/stat/", counter: 530001).count
        #expect(after - before == 6)
        let structured = try #require(result.structuredContent)
        guard case .string(let headline)? = structured["headline"] else {
            Issue.record("no headline")
            return
        }
        #expect(headline.contains(": Search engine traffic -") && headline.hasSuffix("gone)"), "\(headline)")
        #expect(result.text.hasPrefix(headline))
        // What the command prints: the same use case, the same listing.
        let client = try services.client()
        let request = try await Explain.request(
            counterID: 530001, metric: nil, date: nil, from: nil, to: nil, against: nil,
            dimensions: nil, client: client, now: Self.now)
        let cli = ExplanationListing.document(try await Explain.run(request, client: client).listing, versioned: false)
        // As the structured view gives it: numbers to 4 decimals (StructuredView.compact).
        #expect(StructuredView.compact(cli) == structured)
    }

    @Test("dimensions as a list of names, as get_report takes them, or as comma-separated text: the same answer")
    func dimensionsAsListOrText() async throws {
        let folder = try TemporaryFolder()
        let services = TestServices(try Self.simulator.get(), database: folder.path + "/history.sqlite", now: Self.now)
        let catalogue = MetrikaToolCatalogue(services: services)
        let list = try await catalogue.call(
            "explain_change",
            arguments: [
                ("counter_id", .number(530001)),
                ("dimensions", .array([.string("trafficSource"), .string("deviceCategory")]))
            ],
            activity: RecordedProgress())
        #expect(!list.isError, "\(list.text)")
        let text = try await catalogue.call(
            "explain_change",
            arguments: [("counter_id", .number(530001)), ("dimensions", .string("trafficSource,deviceCategory"))],
            activity: RecordedProgress())
        #expect(!text.isError, "\(text.text)")
        guard case .array(let parts)? = list.structuredContent?["dimensions"] else {
            Issue.record("no dimensions")
            return
        }
        #expect(parts.count == 2)
        #expect(list.structuredContent == text.structuredContent)
        // A wrong shape shows values that work, not a placeholder.
        let wrong = try await catalogue.call(
            "explain_change", arguments: [("counter_id", .number(530001)), ("dimensions", .number(3))],
            activity: RecordedProgress())
        #expect(
            wrong.isError && wrong.text.contains(#"["trafficSource", "deviceCategory"]"#) && !wrong.text.contains("…"),
            "\(wrong.text)")
    }

    @Test("an unknown dimension is a tool error naming the argument and the valid ones")
    func unknownDimension() async throws {
        let folder = try TemporaryFolder()
        let services = TestServices(try Self.simulator.get(), database: folder.path + "/history.sqlite", now: Self.now)
        let result = try await MetrikaToolCatalogue(services: services).call(
            "explain_change", arguments: [("counter_id", .number(530001)), ("dimensions", .string("browser"))],
            activity: RecordedProgress())
        #expect(result.isError)
        #expect(result.text.contains("dimensions") && result.text.contains("deviceCategory"), "\(result.text)")
    }

    /// Issue 48 target 6: an annotation on the explained day is an `annotations` member of the answer and
    /// its line under the text; the answer is otherwise the one without it (a simulator of its own, so the
    /// others' scenario counters stay unannotated).
    @Test("an annotation on the explained day: an annotations member and its line")
    func annotationOnTheExplainedDay() async throws {
        let folder = try TemporaryFolder()
        let simulator = try ToolSimulator(fixtures: "explain", now: Self.now)
        let services = TestServices(simulator, database: folder.path + "/history.sqlite", now: Self.now)
        let catalogue = MetrikaToolCatalogue(services: services)
        let arguments: [(String, JSONValue)] = [
            ("counter_id", .number(530003)), ("dimensions", .string("trafficSource"))
        ]
        let plain = try await catalogue.call("explain_change", arguments: arguments, activity: RecordedProgress())
        #expect(!plain.isError && plain.structuredContent?["annotations"] == nil, "\(plain.text)")
        let day = try #require(Day(iso: "2026-11-30"))
        // Written as `metrika annotate` writes it: kept in the history at once, so the read of a minute
        // ago (kept for an hour) is no reason not to show it.
        _ = try await AnnotationText.write(
            Annotation(id: 0, day: day, title: "Новый шаблон сайта"), counterID: 530003,
            client: try services.client()
        ) { try services.history() }
        let noted = try await catalogue.call("explain_change", arguments: arguments, activity: RecordedProgress())
        #expect(noted.text == plain.text + "annotation on Mon 2026-11-30: \"Новый шаблон сайта\"\n", "\(noted.text)")
        let first = noted.structuredContent?["annotations"]?.items.first
        #expect(first?["title"]?.text == "Новый шаблон сайта" && first?["date"]?.text == "2026-11-30")
    }
}
