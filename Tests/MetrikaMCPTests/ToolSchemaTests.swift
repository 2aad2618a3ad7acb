import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaServices
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases
import Testing

@testable import MetrikaMCP

/// The one table behind the tools: the schemas `tools/list` shows and the decoding of a call's
/// arguments come from it; a bad argument is a tool result with `isError: true` before any work
/// (SEP-1303), an unknown tool `MCPInvalidParams` (JSON-RPC -32602) (no services are
/// touched: these run against a services value whose every method fails the test).
@Suite struct ToolSchemaTests {
    /// Services that must never be reached.
    struct Unreachable: RunServices {
        var now: @Sendable () -> Date { { Date(timeIntervalSince1970: 0) } }
        func client() throws -> MetrikaAPI.MetrikaClient {
            Issue.record("the API was reached")
            throw CancellationError()
        }
        func historyLoader(offline: Bool) throws -> MetrikaUseCases.HistoryLoader {
            Issue.record("the history was reached")
            throw CancellationError()
        }
        func historyLoader(offline: Bool, unsettledDays: Int) throws -> MetrikaUseCases.HistoryLoader {
            Issue.record("the history was reached")
            throw CancellationError()
        }
        func history() throws -> HistoryStore {
            Issue.record("the history was reached")
            throw CancellationError()
        }
        func defaultCounters() throws -> (ids: [String], source: String)? {
            Issue.record("the config was reached")
            throw CancellationError()
        }
        func telegramBot() throws -> TelegramBot {
            Issue.record("Telegram was reached")
            throw CancellationError()
        }
        var rasterizer: any MetrikaSystem.ChartRasterizer { RSVGConvertRasterizer(environment: [:]) }
        func alertSettings() throws -> MetrikaUseCases.AlertSettings {
            Issue.record("the config was reached")
            throw CancellationError()
        }
        func alertCounters(_ ids: [Int], loader: MetrikaUseCases.HistoryLoader) async throws -> (
            counters: [MetrikaModel.Counter], failures: [(counterID: Int, failure: any MetrikaModel.MetrikaFailure)]
        ) {
            Issue.record("the counters were reached")
            throw CancellationError()
        }
        var secrets: [String] { [] }
    }

    let catalogue = MetrikaToolCatalogue(services: Unreachable())

    @Test func theToolsInTheirFixedOrderEachReadOnlyIdempotentWithAnObjectSchemaThatRefusesUnknownMembers() {
        #expect(
            catalogue.tools.map(\.name) == [
                "list_counters", "get_report", "list_goals", "check_alerts", "draw_chart", "explain_change",
                "list_metrics", "list_annotations"
            ])
        for tool in catalogue.tools {
            #expect(tool.readOnly && tool.idempotent)
            #expect(tool.openWorld == (tool.name != "list_metrics"), "only list_metrics answers without Yandex")
            #expect(!tool.title.isEmpty)
            #expect(tool.inputSchema["type"] == .string("object"))
            #expect(tool.inputSchema["additionalProperties"] == .bool(false))
            #expect(tool.description.contains("Example: {"), "\(tool.name) shows an example call")
            #expect(
                tool.description.lowercased().contains("quota") || tool.description.contains("request"),
                "\(tool.name) says what it costs")
        }
        #expect(catalogue.tools.first { $0.name == "draw_chart" }?.outputSchema == nil)
        #expect(catalogue.tools.first { $0.name == "get_report" }?.outputSchema?["type"] == .string("object"))
    }

    /// Issue 48 target 6: the `annotations` member get_report and explain_change add is declared in
    /// their output schemas, each item's members with it.
    @Test func theAnnotationsMemberIsInTheOutputSchemas() throws {
        for name in ["get_report", "explain_change"] {
            let output = try #require(catalogue.tools.first { $0.name == name }?.outputSchema)
            let member = try #require(output["properties"]?["annotations"], "\(name)")
            #expect(member["type"] == .string("array"))
            let item = try #require(member["items"]?["properties"])
            for field in ["counter_id", "date", "time", "title", "message", "group"] {
                #expect(item[field] != nil, "\(name): \(field)")
            }
            #expect(output["required"]?.items.contains(.string("annotations")) == false, "absent when none")
        }
    }

    @Test func theSchemaOfEveryArgumentComesFromTheTable() throws {
        let report = try #require(MetrikaToolCatalogue.specs.first { $0.name == "get_report" })
        let schema = report.inputSchema
        #expect(schema["required"] == .array([.string("counter_ids")]))
        let properties = try #require(schema["properties"])
        // Counter ids, or "all" (the portfolio).
        let ids = properties["counter_ids"]?["anyOf"]?.items ?? []
        #expect(ids.first?["type"] == .string("array"))
        #expect(ids.first?["items"]?["type"] == .string("integer"))
        #expect(ids.first?["maxItems"] == .number(20))
        #expect(ids.last?["enum"] == .array([.string("all")]) && ids.count == 2)
        #expect(properties["group"]?["enum"] == .array([.string("day"), .string("week"), .string("month")]))
        #expect(properties["limit"]?["maximum"] == .number(Double(GetReportTool.maximumLimit)))
        #expect(properties["limit"]?["default"] == .number(Double(GetReportTool.defaultLimit)))
        #expect(properties["offline"]?["type"] == .string("boolean"))
        // Every argument of the table is in the schema, and nothing else.
        if case .object(let members)? = schema["properties"] {
            #expect(members.map(\.0) == report.arguments.map(\.name))
        } else {
            Issue.record("no properties")
        }
    }

    /// explain_change's dimensions take get_report's shape (a list) and the CLI's text alike.
    @Test func explainDimensionsTakeAListOrText() throws {
        let explain = try #require(MetrikaToolCatalogue.specs.first { $0.name == "explain_change" })
        let dimensions = try #require(explain.inputSchema["properties"]?["dimensions"])
        guard case .array(let forms)? = dimensions["anyOf"] else {
            Issue.record("no anyOf: \(dimensions)")
            return
        }
        #expect(forms.map { $0["type"] } == [.string("array"), .string("string")])
        #expect(forms.first?["items"]?["type"] == .string("string"))
        #expect(forms.first?["maxItems"] == .number(8))
    }

    /// The one line of a call refused as a tool result (`isError: true`, one text block, nothing else).
    func refused(_ tool: String, _ given: [(String, JSONValue)]) async -> String? {
        do {
            let result = try await catalogue.call(tool, arguments: given, activity: RecordedProgress())
            guard result.isError, result.structuredContent == nil, result.content.count == 1,
                case .text(let line) = result.content[0]
            else {
                Issue.record("not refused as a tool result: \(result)")
                return nil
            }
            #expect(!line.contains("\n"), "one line")
            return line
        } catch {
            Issue.record("thrown, not a tool result: \(error)")
            return nil
        }
    }

    @Test func badArgumentsAreToolResultsNamingTheArgumentAndWhatToSendNeverATrapAndNeverWork() async throws {
        let dropTable = try #require(await refused("get_report", [("counter_ids", .string("DROP TABLE"))]))
        #expect(
            dropTable
                == "counter_ids is a string other than \"all\"; send a list of whole numbers, like [1001], or \"all\"")
        let long = try #require(await refused("get_report", [("counter_ids", ints(Array(1...10_000)))]))
        #expect(long == "counter_ids lists 10000 items; send at most 20; ask for the others in another call")
        let huge = String(repeating: "x", count: 1 << 20)
        let megabyte = try #require(
            await refused("get_report", [("counter_ids", ints([1001])), ("filters", .string(huge))]))
        #expect(megabyte == "filters is 1048576 characters long; send at most 2000")
        #expect(megabyte.count < 100, "the message never repeats the text")
        let unknown = try #require(
            await refused("get_report", [("counter_ids", ints([1001])), ("token", .string("x"))]))
        #expect(
            unknown.hasPrefix(
                "get_report takes no argument 'token'; send only its arguments: counter_ids, from, to, period"))
        #expect(
            await refused("get_report", [("counter_ids", ints([1001])), ("limit", .number(2.5))])
                == "limit is a fractional number; send a whole number, like 100")
        #expect(
            await refused("get_report", [("counter_ids", ints([1001])), ("limit", .number(1e300))])
                == "limit is a whole number of more than 15 digits, out of range; send at most 500; ask for the next rows with offset"
        )
        #expect(
            await refused("get_report", [("counter_ids", ints([0]))])
                == "counter_ids is at least 1, not 0; send 1 or more")
        #expect(
            await refused("get_report", [("counter_ids", ints([1001])), ("limit", .number(5_000))])
                == "limit is at most \(GetReportTool.maximumLimit), not 5000; ask for the next rows with offset")
        #expect(
            await refused("get_report", [("counter_ids", ints([1001])), ("group", .string("year"))])
                == "group is 'year', which it does not take; send one of day, week, month")
        #expect(
            await refused("get_report", [("counter_ids", .array([]))])
                == "counter_ids is an empty list; leave it out or name at least one")
        #expect(
            await refused("get_report", [("counter_ids", .array([.string("1001")]))])
                == "counter_ids holds a string; send a list of whole numbers, like [1001], or \"all\"")
        #expect(
            await refused("get_report", [("from", .string("today"))])?.hasPrefix(
                "counter_ids is missing; get_report needs it: ") == true)
        #expect(
            await refused("get_report", [("counter_ids", ints([1001])), ("offline", .string("yes"))])
                == "offline is a string; send true or false")
        #expect(
            await refused("list_goals", [("counter_id", .object([]))])
                == "counter_id is an object; send a whole number, like 1")
        #expect(
            await refused("list_goals", [("counter_id", .number(1)), ("counter_id", .number(2))])
                == "counter_id is given twice; send it once")
        // Only a tool that does not exist is a protocol error (JSON-RPC -32602).
        await #expect(
            throws: MCPInvalidParams(
                "Unknown tool 'drop_tables'; the tools are \(MetrikaToolCatalogue.specs.map(\.name).joined(separator: ", "))"
            )
        ) {
            _ = try await catalogue.call("drop_tables", arguments: [], activity: RecordedProgress())
        }
        // A string is never repeated back: a token pasted in the wrong place stays out of the answer.
        let pasted = try #require(await refused("get_report", [("counter_ids", .string("DROP TABLE y0_AgAAAAsecret"))]))
        #expect(!pasted.contains("y0_AgAAAAsecret") && !pasted.contains("DROP"))
        // A control character in a quoted name does not break the one line.
        #expect(
            await refused("get_report", [("counter_ids", ints([1001])), ("x\ny", .bool(true))])?.contains("'x y'")
                == true)
    }

    @Test func nullIsLeftOut() throws {
        let spec = try #require(MetrikaToolCatalogue.specs.first { $0.name == "get_report" })
        let decoded = try ToolArguments.decode([("counter_ids", ints([1001, 1001])), ("limit", .null)], for: spec)
        #expect(decoded[GetReportTool.limit] == nil)
        #expect(SharedArguments.ids(decoded[DrawChartTool.counterIDs]) == [1001])
    }

    @Test func aTypedArgumentReadsItsOwnValueInItsOwnType() throws {
        let explain = try ToolArguments.decode(
            [
                ("counter_id", .number(1001)), ("metric", .string("visits")),
                ("dimensions", .array([.string("trafficSource"), .string("region")]))
            ],
            for: ExplainChangeTool.spec)
        #expect(explain[ExplainChangeTool.counterID] == 1001)
        #expect(explain[ExplainChangeTool.metric] == "visits")
        #expect(explain[ExplainChangeTool.date] == nil)
        // Names come as one comma-separated text, whichever form they were sent in.
        #expect(explain[ExplainChangeTool.dimensions] == "trafficSource,region")
        let text = try ToolArguments.decode(
            [("counter_id", .number(7)), ("dimensions", .string("region"))], for: ExplainChangeTool.spec)
        #expect(text[ExplainChangeTool.dimensions] == "region")
        let alerts = try ToolArguments.decode(
            [("counter_ids", ints([3, 2, 3])), ("today", .bool(true))], for: CheckAlertsTool.spec)
        #expect(alerts[CheckAlertsTool.today] == true && alerts[CheckAlertsTool.counterIDs] == [3, 2, 3])
        #expect(SharedArguments.ids(alerts[CheckAlertsTool.counterIDs]) == [3, 2])
        let chart = try ToolArguments.decode(
            [("counter_ids", ints([1])), ("metrics", .array([.string("visits")])), ("period", .string("lastWeek"))],
            for: DrawChartTool.spec)
        #expect(
            chart[DrawChartTool.metrics] == ["visits"] && chart[SharedArguments.period] == "lastWeek"
                && chart[SharedArguments.from] == nil)
        let list = try ToolArguments.decode(
            [("search", .string("shop")), ("offset", .number(51))], for: ListCountersTool.spec)
        #expect(
            list[ListCountersTool.search] == "shop" && list[ListCountersTool.offset] == 51
                && list[ListCountersTool.limit] == nil)
    }

    @Test func everyToolListsEachOfItsTypedArgumentsOnce() {
        for spec in MetrikaToolCatalogue.specs {
            let names = spec.arguments.map(\.name)
            #expect(Set(names).count == names.count, "\(spec.name)")
        }
        #expect(GetReportTool.spec.arguments.map(\.name).suffix(1) == ["offset"])
        #expect(GetReportTool.spec.arguments.first { $0.name == "limit" }?.maximum == GetReportTool.maximumLimit)
    }

    @Test func theReportJSONReaderGivesBackTheValueItsWriterWrote() throws {
        let value = JSONValue.object([
            ("a", .string("«Ромашка» \"q\" \\ \n\t\u{01} 🍜")),
            ("b", .array([.number(1.5), .number(-2e-7), .null, .bool(true)])), ("c", .object([]))
        ])
        for pretty in [false, true] {
            let parsed = try BoundedJSONParser.parse(Array(value.serialized(pretty: pretty).utf8)).value
            #expect(parsed.serialized() == value.serialized())
        }
        #expect(throws: JSONParseError.self) { try BoundedJSONParser.parse(Array("{\"a\": }".utf8)) }
    }
}
