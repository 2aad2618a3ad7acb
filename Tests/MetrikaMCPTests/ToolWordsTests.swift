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

/// No command-line word reaches a model (issue 39 item 3): every tool's error paths — bad
/// arguments, refused combinations, a counter the token cannot read, a token the API rejects, no
/// token at all, a day not over — answer in the tools' words, never a `--flag` or a `metrika
/// <command>`. One simulator for the suite.
@Suite struct ToolWordsTests {
    static let now = RFC3339.parse("2026-11-30T09:00:00Z")!
    static let simulator = Result { try ToolSimulator(now: now) }

    /// The commands of the command line, as a sentence would name them.
    static let commands = [
        "login", "logout", "report", "sync", "alert", "chart", "mail", "logs", "cache", "counters", "goals", "live",
        "bot", "explain", "mcp", "auth", "completions"
    ]

    /// The command-line words in `text`: `--flag`s and `metrika <command>`s.
    static func cliWords(_ text: String) -> [String] {
        var found: [String] = []
        let characters = Array(text)
        for index in characters.indices
        where characters[index] == "-" && index + 2 < characters.count && characters[index + 1] == "-"
            && characters[index + 2].isLetter
        {
            if index == 0
                || !(characters[index - 1].isLetter || characters[index - 1].isNumber || characters[index - 1] == "-")
            {
                found.append(String(characters[index..<min(characters.count, index + 16)]))
            }
        }
        for command in commands where text.contains("metrika \(command)") { found.append("metrika \(command)") }
        return found
    }

    @Test func theCheckFindsWhatItLooksFor() {
        #expect(Self.cliWords("use a lower --accuracy") == ["--accuracy"])
        #expect(Self.cliWords("sign in with `metrika login`") == ["metrika login"])
        #expect(Self.cliWords("2026-11-30 – 2026-12-01, -5.0%, accuracy full").isEmpty)
    }

    /// Services that have no token: the client cannot be made (the CLI's "Run `metrika login`").
    struct NotSignedIn: RunServices {
        let base: TestServices
        var now: @Sendable () -> Date { base.now }
        func client() throws -> MetrikaClient { throw AuthError.notSignedIn }
        func historyLoader(offline: Bool) throws -> HistoryLoader {
            guard offline else { throw AuthError.notSignedIn }
            return try base.historyLoader(offline: true)
        }
        func historyLoader(offline: Bool, unsettledDays: Int) throws -> HistoryLoader {
            try historyLoader(offline: offline)
        }
        func history() throws -> HistoryStore { try base.history() }
        func defaultCounters() -> (ids: [String], source: String)? { nil }
        func telegramBot() throws -> TelegramBot { throw AuthError.notSignedIn }
        var rasterizer: any ChartRasterizer { base.rasterizer }
        func alertSettings() throws -> AlertSettings { try base.alertSettings() }
        func alertCounters(_ ids: [Int], loader: HistoryLoader) async throws -> (
            counters: [Counter], failures: [(counterID: Int, failure: any MetrikaFailure)]
        ) {
            throw AuthError.notSignedIn
        }
        var secrets: [String] { [] }
    }

    /// The error paths of every tool, each with what its answer must say.
    static let calls: [(tool: String, arguments: [(String, JSONValue)], says: String)] = [
        ("get_report", [("counter_ids", ints([9999])), ("dimensions", strings(["trafficSource"]))], "counter 9999"),
        ("get_report", [("counter_ids", ints([9999]))], "counter 9999"),
        ("get_report", [("counter_ids", ints([1001])), ("from", .string("2026-02-30"))], "from"),
        (
            "get_report",
            [("counter_ids", ints([1001])), ("limit", .number(5000)), ("dimensions", strings(["trafficSource"]))],
            "limit"
        ),
        ("get_report", [("counter_ids", ints([1001])), ("sort", .string("-visits"))], "sort"),
        (
            "get_report",
            [("counter_ids", ints([1001])), ("compare", .bool(true)), ("preset", .string("sources_summary"))], "compare"
        ),
        (
            "get_report",
            [
                ("counter_ids", ints([1001])), ("compare", .bool(true)),
                ("filters", .string("ym:s:trafficSource=='organic'"))
            ], "compare"
        ),
        (
            "get_report",
            [("counter_ids", ints([1001])), ("currency", .string("USD")), ("metrics", strings(["visits"]))], "currency"
        ),
        (
            "get_report",
            [("counter_ids", ints([1001])), ("group", .string("week")), ("dimensions", strings(["trafficSource"]))],
            "group"
        ),
        ("get_report", [("counter_ids", ints([1001])), ("metrics", strings(["nonsense"]))], "nonsense"),
        (
            "get_report",
            [("counter_ids", ints([1001])), ("offline", .bool(true)), ("dimensions", strings(["trafficSource"]))],
            "offline"
        ),
        ("list_goals", [("counter_id", .number(9999))], "counter 9999"),
        ("check_alerts", [("counter_ids", ints([9999]))], "counter 9999"),
        ("check_alerts", [("date", .string("Sunday"))], "date"),
        ("check_alerts", [("today", .bool(true)), ("date", .string("2026-11-29"))], "today"),
        ("draw_chart", [("counter_ids", ints([9999]))], "counter 9999"),
        ("draw_chart", [("counter_ids", ints([1001])), ("from", .string("tomorrow"))], "from"),
        ("explain_change", [("counter_id", .number(9999)), ("metric", .string("visits"))], "counter 9999"),
        (
            "explain_change",
            [("counter_id", .number(1001)), ("metric", .string("visits")), ("from", .string("2026-13-01"))], "from"
        ),
        ("list_counters", [("limit", .number(0))], "limit"),
        ("list_annotations", [("counter_id", .number(9999))], "counter 9999")
    ]

    func results(_ services: any RunServices) async throws -> [(String, MCPToolResult)] {
        let catalogue = MetrikaToolCatalogue(services: services)
        var results: [(String, MCPToolResult)] = []
        for call in Self.calls {
            let result = try await catalogue.call(call.tool, arguments: call.arguments, activity: RecordedProgress())
            results.append(("\(call.tool) \(JSONValue.object(call.arguments).serialized())", result))
        }
        return results
    }

    @Test func everyErrorOfEveryToolIsInTheToolsWords() async throws {
        let folder = try TemporaryFolder()
        let services = TestServices(try Self.simulator.get(), database: folder.path + "/h.sqlite", now: Self.now)
        let results = try await results(services)
        for ((name, result), call) in zip(results, Self.calls) {
            if !result.isError { Issue.record("not an error: \(name)") }
            let words = Self.cliWords(result.text)
            if !words.isEmpty { Issue.record("\(name) says \(words): \(result.text)") }
            if !result.text.contains(call.says) { Issue.record("\(name) should name \(call.says): \(result.text)") }
        }
        // Every tool's errors were tried.
        #expect(
            Set(Self.calls.map(\.tool)).isSuperset(
                of: MetrikaToolCatalogue.specs.map(\.name).filter { $0 != "list_metrics" }))
    }

    /// What a model reads before any call — the server's instructions, each tool's description, its
    /// arguments' and its output schema — is in the tools' words too.
    @Test func theCatalogueAModelReadsHasNoCommandLineWords() {
        #expect(Self.cliWords(MCPServer.instructions).isEmpty, "\(MCPServer.instructions)")
        for spec in MetrikaToolCatalogue.specs {
            let texts = [spec.description, spec.inputSchema.serialized(), spec.outputSchema?.serialized() ?? ""]
            for text in texts { #expect(Self.cliWords(text).isEmpty, "\(spec.name): \(Self.cliWords(text))") }
        }
        #expect(Self.cliWords(ListMetricsTool.run().text).isEmpty)
    }

    @Test func theAccessErrorNamesTheCounterAndWhatAModelCanDo() async throws {
        let folder = try TemporaryFolder()
        let services = TestServices(try Self.simulator.get(), database: folder.path + "/h.sqlite", now: Self.now)
        let result = try await MetrikaToolCatalogue(services: services).call(
            "get_report", arguments: [("counter_ids", ints([9999])), ("dimensions", strings(["trafficSource"]))],
            activity: RecordedProgress())
        #expect(result.isError)
        #expect(result.text.hasPrefix("Access denied"), "\(result.text)")
        #expect(result.text.contains("counter 9999"))
        #expect(result.text.contains("call list_counters"))
        #expect(!result.text.contains("metrika login"))
        // The sentence without a counter still says what to do.
        let bare = MetrikaToolCatalogue.sentence(APIError.accessDenied("the token may not read this counter."))
        #expect(bare.contains("call list_counters") && Self.cliWords(bare).isEmpty, "\(bare)")
    }

    @Test func aTokenTheAPIRejectsOrNoTokenAtAllAsksTheUserNotTheCommandLine() async throws {
        let folder = try TemporaryFolder()
        var revoked = TestServices(try Self.simulator.get(), database: folder.path + "/h.sqlite", now: Self.now)
        revoked.token = "revoked-token"
        var wrong = revoked
        wrong.token = "no-such-token"
        let missing = NotSignedIn(
            base: TestServices(try Self.simulator.get(), database: folder.path + "/m.sqlite", now: Self.now))
        for services in [revoked, wrong, missing] as [any RunServices] {
            let catalogue = MetrikaToolCatalogue(services: services)
            for (tool, arguments) in [
                ("list_counters", []), ("get_report", [("counter_ids", ints([1001]))]),
                ("check_alerts", [("counter_ids", ints([1001]))]),
                ("list_goals", [("counter_id", JSONValue.number(1001))])
            ] as [(String, [(String, JSONValue)])] {
                let result = try await catalogue.call(tool, arguments: arguments, activity: RecordedProgress())
                #expect(result.isError, "\(tool): \(result.text)")
                #expect(Self.cliWords(result.text).isEmpty, "\(tool): \(result.text)")
                #expect(result.text.contains("ask the user to sign in"), "\(tool): \(result.text)")
            }
        }
    }

    @Test func theFailuresWhoseMessagesSpeakToAShellAreReworded() {
        let failures: [any Error] = [
            APIError.queryTooComplicated("Query is too complicated"), APIError.unreadable("a row of 3 values"),
            APIError.unauthorized("no token"), APIError.invalidToken, UnexpectedFailure(typeName: "X"),
            AuthError.notSignedInProfile(name: "agency", path: "/x/token"),
            AuthError.keyringEntryMissing(path: "/x/token", keyring: "GNOME Keyring"),
            AuthError.insecureTokenFile(path: "/x/token", mode: 0o644)
        ]
        for failure in failures {
            let sentence = MetrikaToolCatalogue.sentence(failure)
            #expect(Self.cliWords(sentence).isEmpty, "\(sentence)")
            #expect(!sentence.isEmpty)
        }
        #expect(MetrikaToolCatalogue.sentence(APIError.queryTooComplicated("x")).contains("accuracy low"))
    }
}
