import Foundation
import Testing

@testable import MetrikaAPI

/// Answers built to hurt a parser: nesting deep enough to overflow a recursive one's stack, and
/// lone UTF-16 surrogate escapes that Foundation refuses outright (issue 10, items 5 and 13).
@Suite("Hostile JSON")
struct HostileJSONTests {
    /// `{"deep": [[[…]]], <rest>}` with `depth` arrays.
    static func deep(_ depth: Int, rest: String = #""data": [], "total_rows": 0"#) -> String {
        #"{"deep": "# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + ", " + rest + "}"
    }

    static let query = StatQuery(
        ids: [1001], metrics: ["ym:s:visits"], dimensions: ["ym:s:searchPhrase"], date1: "2026-10-01",
        date2: "2026-10-05")

    // MARK: - Depth

    @Test(arguments: [JSONPreflight.maxDepth + 1, 10_000, 1_000_000])
    func theScannerRefusesDeepNestingInsteadOfRecursing(depth: Int) {
        #expect(throws: JSONPreflight.TooDeep(limit: JSONPreflight.maxDepth)) {
            try StatDataScanner.scan(Data(Self.deep(depth).utf8))
        }
    }

    @Test func nestingUpToTheLimitIsStillRead() throws {
        // The page itself is one level; its unknown member may use the rest.
        let page = try #require(try StatDataScanner.scan(Data(Self.deep(JSONPreflight.maxDepth - 1).utf8)))
        #expect(page.rowCount == 0)
        #expect(try JSONPreflight.prepare(Data(Self.deep(JSONPreflight.maxDepth - 1).utf8)).count > 0)
    }

    @Test(arguments: [JSONPreflight.maxDepth + 1, 1_000_000])
    func thePreflightRefusesDeepNesting(depth: Int) {
        #expect(throws: JSONPreflight.TooDeep(limit: JSONPreflight.maxDepth)) {
            try JSONPreflight.prepare(Data(Self.deep(depth).utf8))
        }
    }

    @Test func bracketsInsideStringsAreNotNesting() throws {
        let text = #"{"name": "\#(String(repeating: "[{", count: 500))\"[", "data": []}"#
        #expect(try JSONPreflight.prepare(Data(text.utf8)) == Data(text.utf8))
    }

    /// Every decoder of server JSON: the report page (scanner and decoder), counters, one counter,
    /// bytime. Each ends in an unreadable-answer error (65) that names the limit, after one request.
    @Test(arguments: ["data", "counters", "counter", "bytime"])
    func everyDecoderAnswersDeepNestingWithAnUnreadableError(endpoint: String) async throws {
        let rest: String
        switch endpoint {
        case "data": rest = #""data": [{"dimensions": [{"name": "x"}], "metrics": [1]}], "total_rows": 1"#
        case "counters": rest = #""rows": 1, "counters": [{"id": 1, "name": "a"}]"#
        case "counter": rest = #""counter": {"id": 1, "name": "a"}"#
        default: rest = #""totals": [[1]], "sampled": false"#
        }
        let transport = FakeTransport([.respond(200, Self.deep(1_000_000, rest: rest))])
        let client = makeClient(transport)
        do {
            switch endpoint {
            case "data": _ = try await client.fetchData(Self.query, offset: 1, limit: 10)
            case "counters": _ = try await client.fetchCounters()
            case "counter": _ = try await client.fetchCounter(id: 1)
            default: _ = try await client.fetchByTime(Self.query, group: .week)
            }
            Issue.record("a 1,000,000-deep answer was accepted")
        } catch let error as APIError {
            #expect(error.exitCode == 65)
            #expect(
                error.message.contains("nested more than \(JSONPreflight.maxDepth) levels deep"), "\(error.message)")
        }
        #expect(transport.sentRequests.count == 1)
    }

    @Test func aDeepErrorBodyIsNoErrorBodyButNoCrash() async throws {
        let transport = FakeTransport([
            .respond(
                400, Self.deep(1_000_000, rest: #""errors": [{"error_type": "invalid_parameter", "message": "m"}]"#))
        ])
        await #expect(throws: APIError.unreadable("HTTP 400 with a body that is not the documented error JSON")) {
            try await makeClient(transport).fetchCounters()
        }
    }

    // MARK: - Lone surrogates

    @Test(arguments: [
        (#"x\ud800y"#, "x\u{FFFD}y"),
        (#"x\udc00y"#, "x\u{FFFD}y"),
        (#"\ud800"#, "\u{FFFD}"),
        (#"\ud800\ud800\ude00"#, "\u{FFFD}\u{10200}"),
        (#"\ud800\u0041"#, "\u{FFFD}A"),
        (#"\ud83d\ude00 ok"#, "😀 ok"),
        (#"\\ud800"#, #"\ud800"#),
        (#"\uD800z"#, "\u{FFFD}z")
    ])
    func loneSurrogatesBecomeTheReplacementCharacterOnBothPaths(escaped: String, expected: String) throws {
        let page =
            #"{"data": [{"dimensions": [{"name": "\#(escaped)", "id": null}], "metrics": [1]}], "total_rows": 1}"#
        let scanned = try #require(try StatDataScanner.scan(Data(page.utf8)))
        #expect(scanned.rows.first?.dimensions.first?.name == expected)
        // The tolerant decoder's path (numbers as strings send a page there).
        let decoded: StatDataPage = try makeClient(FakeTransport([])).decode(
            Data(page.replacingOccurrences(of: "[1]", with: #"["1"]"#).utf8),
            from: URL(string: "http://127.0.0.1/stat/v1/data")!)
        #expect(decoded.rows.first?.dimensions.first?.name == expected)
    }

    @Test func aCounterNameWithALoneSurrogateCostsOneCharacterNotTheList() async throws {
        let transport = FakeTransport([
            .respond(200, #"{"rows": 2, "counters": [{"id": 1, "name": "Shop \ud800"}, {"id": 2, "name": "Blog"}]}"#)
        ])
        let counters = try await makeClient(transport).fetchCounters()
        #expect(counters.map(\.name) == ["Shop \u{FFFD}", "Blog"])
    }

    @Test func anErrorMessageWithALoneSurrogateKeepsItsType() async throws {
        let transport = FakeTransport([
            .respond(403, #"{"errors": [{"error_type": "access_denied", "message": "No \udc00 access"}], "code": 403}"#)
        ])
        await #expect(throws: APIError.accessDenied("No \u{FFFD} access.")) {
            try await makeClient(transport).fetchCounters()
        }
    }

    @Test func anOAuthAnswerWithALoneSurrogateIsRead() async throws {
        let oauth = OAuthClient(
            baseURL: oauthBase,
            transport: ScriptedTransport { _, _ in
                json(400, #"{"error": "invalid_client", "error_description": "Client \ud800 not found"}"#)
            })
        let code = DeviceCode(deviceCode: "dc", userCode: "U", verificationURL: "v", interval: 5, expiresIn: 300)
        await #expect(throws: OAuthError.invalidClient("Client \u{FFFD} not found")) {
            try await oauth.exchangeDeviceCode(code, credentials: demoCredentials)
        }
    }

    @Test func anOAuthAnswerNestedTooDeepIsUnreadable() async throws {
        let oauth = OAuthClient(
            baseURL: oauthBase,
            transport: ScriptedTransport { _, _ in json(200, Self.deep(1_000_000, rest: #""access_token": "a""#)) })
        let code = DeviceCode(deviceCode: "dc", userCode: "U", verificationURL: "v", interval: 5, expiresIn: 300)
        await #expect(throws: OAuthError.unreadable("HTTP 200 from /token is not a JSON object")) {
            try await oauth.exchangeDeviceCode(code, credentials: demoCredentials)
        }
    }
}
