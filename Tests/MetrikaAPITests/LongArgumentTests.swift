import Foundation
import Testing

@testable import MetrikaAPI

/// Issue 40 item 10: a 100 KB `--filters` was sent, answered HTTP 431 and told as "Try again" (65).
/// An argument that would make the request address too long is refused before sending: exit 64,
/// naming the argument.
@Suite("Over-long request arguments")
struct LongArgumentTests {
    @Test func aHundredKilobyteFilterIsRefusedBeforeSending() async throws {
        let transport = FakeTransport([.respond(200, #"{"data": [], "total_rows": 0}"#)])
        let filters = "ym:s:startURL=='" + String(repeating: "x", count: 100_000) + "'"
        let error = await #expect(throws: APIError.self) {
            _ = try await makeClient(transport).fetchBody(
                "/stat/v1/data", query: [("ids", "1001"), ("filters", filters), ("metrics", "ym:s:visits")])
        }
        #expect(error == .argumentTooLong(name: "filters", length: filters.count, limit: MetrikaClient.maximumURLBytes))
        #expect(error?.exitCode == 64)
        #expect(
            error?.message.hasPrefix(
                "The filters argument is too long (100017 characters): a request may be at most 32 KiB long.") == true,
            "\(error?.message ?? "")")
        #expect(transport.requests.isEmpty, "nothing was sent")
    }

    @Test func anOrdinaryFilterIsSent() async throws {
        let transport = FakeTransport([.respond(200, #"{"data": [], "total_rows": 0}"#)])
        _ = try await makeClient(transport).fetchBody(
            "/stat/v1/data", query: [("ids", "1001"), ("filters", "ym:s:trafficSource=='organic'")])
        #expect(transport.requests.count == 1)
    }
}
