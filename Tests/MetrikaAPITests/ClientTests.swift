import Foundation
import MetrikaCLI
import Testing

@testable import MetrikaAPI

struct PagingTests {
    /// A Management API that holds `total` counters and serves them by 1-based offset/per_page.
    static func counterServer(total: Int) -> FakeTransport {
        FakeTransport { request in
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let offset = Int(items.first { $0.name == "offset" }?.value ?? "1") ?? 1
            let perPage = Int(items.first { $0.name == "per_page" }?.value ?? "1000") ?? 1000
            let ids = offset <= total ? Array(offset...min(total, offset + perPage - 1)) : []
            let counters = ids.map {
                #"{"id":\#($0),"name":"c\#($0)","site":"s\#($0).ru","status":"Active","permission":"own","favorite":0}"#
            }
            return .respond(200, #"{"rows":\#(total),"counters":[\#(counters.joined(separator: ","))]}"#)
        }
    }

    @Test(arguments: [(0, 1), (1, 1), (999, 1), (1000, 1), (1001, 2), (2500, 3), (2600, 3)])
    func pagesUntilOffsetPassesRows(total: Int, expectedRequests: Int) async throws {
        let transport = Self.counterServer(total: total)
        let counters = try await makeClient(transport).fetchCounters(perPage: 1000)
        #expect(counters.count == total)
        #expect(Set(counters.map(\.id)).count == total)
        let offsets = transport.sentRequests.map { request in
            URLComponents(url: request.url, resolvingAgainstBaseURL: false)!.queryItems!.first { $0.name == "offset" }!
                .value!
        }
        let expected: [String] = (0..<expectedRequests).map { (page: Int) -> String in String(1 + page * 1000) }
        #expect(offsets == expected)
    }

    @Test func anEmptyPageEndsPagingEvenIfRowsPromisedMore() async throws {
        let transport = FakeTransport([
            .respond(200, #"{"rows":5000,"counters":[{"id":1,"name":"a"}]}"#),
            .respond(200, #"{"rows":5000,"counters":[]}"#)
        ])
        let counters = try await makeClient(transport).fetchCounters(perPage: 1)
        #expect(counters.map(\.id) == [1])
        #expect(transport.sentRequests.count == 2)
    }

    @Test func everyRequestCarriesTheOAuthHeaderAndNoTokenInTheURL() async throws {
        let transport = Self.counterServer(total: 3)
        _ = try await makeClient(transport).fetchCounters(search: "a b&c=d+é", perPage: 2)
        for request in transport.sentRequests {
            #expect(request.headers["Authorization"] == "OAuth secret-token-123")
            #expect(!request.url.absoluteString.contains("secret-token-123"))
            #expect(request.url.query?.contains("search_string=a%20b%26c%3Dd%2B%C3%A9") == true)
        }
    }
}

struct RetryTests {
    static let ok = #"{"rows":1,"counters":[{"id":7,"name":"x"}]}"#

    @Test func threeServiceErrorsThenSuccess() async throws {
        let clock = FakeClock()
        let transport = FakeTransport([
            .respond(503, errorBody("backend_error", 503, "Backend error")),
            .respond(504, errorBody("timeout", 504, "Timeout")),
            .fail(.connectionLost("cut")),
            .respond(200, Self.ok)
        ])
        let counters = try await makeClient(transport, clock: clock).fetchCounters()
        #expect(counters.map(\.id) == [7])
        #expect(transport.sentRequests.count == 4)
        // Equal jitter with random 0.5: 0.75 × base × 2^(n-1), capped.
        #expect(clock.recordedSleeps == [0.375, 0.75, 1.5])
    }

    @Test(arguments: ["quota_requests_by_ip", "quota_parallel_requests"])
    func perSecondQuotasAreRetried(type: String) async throws {
        let transport = FakeTransport([.respond(429, errorBody(type, 429, "Quota")), .respond(200, Self.ok)])
        let counters = try await makeClient(transport).fetchCounters()
        #expect(counters.count == 1)
        #expect(transport.sentRequests.count == 2)
    }

    @Test func status420IsAQuotaToo() async throws {
        let transport = FakeTransport([
            .respond(420, errorBody("quota_requests_by_ip", 420, "Quota")), .respond(200, Self.ok)
        ])
        _ = try await makeClient(transport).fetchCounters()
        #expect(transport.sentRequests.count == 2)
    }

    @Test func retryAfterIsHonoured() async throws {
        let clock = FakeClock()
        let transport = FakeTransport([
            .respond(429, errorBody("quota_requests_by_ip", 429, "Quota"), ["Retry-After": "3"]), .respond(200, Self.ok)
        ])
        _ = try await makeClient(transport, clock: clock).fetchCounters()
        #expect(clock.recordedSleeps == [3])
    }

    @Test(arguments: ["quota_requests_by_uid", "quota_requests_by_counter_id"])
    func dailyQuotaIsNotRetriedAndSaysWhenItResets(type: String) async throws {
        let transport = FakeTransport([.respond(429, errorBody(type, 429, "Quota exceeded")), .respond(200, Self.ok)])
        do {
            _ = try await makeClient(transport).fetchCounters()
            Issue.record("expected a quota error")
        } catch let error as APIError {
            #expect(error.exitCode == 75)
            #expect(error.message.contains("00:00 GMT"))
            #expect(error.message.contains(type))
        }
        #expect(transport.sentRequests.count == 1)
    }

    @Test func retriesAreBoundedInAttempts() async throws {
        let clock = FakeClock()
        let transport = FakeTransport(handler: { _ in .respond(503, errorBody("backend_error", 503, "Backend error")) })
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: 0.5, maxDelay: 8, maxTotalWait: 100)
        await #expect(throws: APIError.self) {
            _ = try await makeClient(transport, clock: clock, policy: policy).fetchCounters()
        }
        #expect(transport.sentRequests.count == 4)
        #expect(clock.recordedSleeps.count == 3)
    }

    @Test func retriesAreBoundedInTotalWait() async throws {
        let clock = FakeClock()
        let transport = FakeTransport(handler: { _ in .fail(.timedOut) })
        let policy = RetryPolicy(maxAttempts: 100, baseDelay: 1, maxDelay: 4, maxTotalWait: 10)
        do {
            _ = try await makeClient(transport, clock: clock, policy: policy, random: 1).fetchCounters()
            Issue.record("expected unavailable")
        } catch let error as APIError {
            #expect(error.exitCode == 69)
        }
        #expect(clock.recordedSleeps.reduce(0, +) <= 10)
        #expect(transport.sentRequests.count < 10)
    }

    @Test(arguments: [
        (200, "", 65), (200, "<html>oops</html>", 65), (200, "{\"rows\": 1, \"counters\": [", 65),
        (200, "{\"rows\": \"many\", \"counters\": {}}", 65)
    ])
    func unreadableAnswersAreNotRetried(status: Int, body: String, code: Int32) async throws {
        let transport = FakeTransport([.respond(status, body), .respond(200, Self.ok)])
        do {
            _ = try await makeClient(transport).fetchCounters()
            Issue.record("expected an error")
        } catch let error as APIError {
            #expect(error.exitCode == code)
            #expect(!error.message.contains("\n"))
        }
        #expect(transport.sentRequests.count == 1)
    }

    @Test func htmlGatewayErrorIsRetriedThenUnavailable() async throws {
        let transport = FakeTransport(handler: { _ in
            .respond(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", ["Content-Type": "text/html"])
        })
        do {
            _ = try await makeClient(transport).fetchCounters()
            Issue.record("expected an error")
        } catch let error as APIError {
            #expect(error.exitCode == 69)
            #expect(error.message.contains("502"))
            #expect(!error.message.contains("<html>"))
        }
        #expect(transport.sentRequests.count == RetryPolicy.standard.maxAttempts)
    }
}

struct ErrorMappingTests {
    @Test(arguments: [
        (403, "invalid_token", Int32(77)), (403, "access_denied", 77), (403, "counter_in_connect", 77),
        (401, "unauthorized", 77),
        (400, "invalid_parameter", 64), (400, "missing_parameter", 64), (400, "filter_limits", 64),
        (400, "too_much_rows", 64),
        (400, "limit_exceeded", 64), (400, "query_error", 64), (404, "not_found", 64),
        (429, "quota_requests_by_uid", 75), (429, "quota_requests_by_counter_id", 75),
        (429, "quota_requests_by_ip", 75), (429, "quota_parallel_requests", 75), (420, "quota_requests_by_ip", 75),
        (503, "backend_error", 69), (504, "timeout", 69)
    ])
    func everyErrorTypeMapsToItsExitCode(status: Int, type: String, code: Int32) async throws {
        let transport = FakeTransport(handler: { _ in .respond(status, errorBody(type, status, "Message for \(type)")) }
        )
        do {
            _ = try await makeClient(transport).fetchCounter(id: 5)
            Issue.record("expected an error")
        } catch let error as APIError {
            #expect(error.exitCode == code)
            #expect(!error.message.contains("secret-token-123"))
        }
    }

    @Test func invalidTokenNamesLogin() {
        #expect(APIError.invalidToken.message(.cli).contains("metrika login"))
    }

    @Test func midnightCountdown() {
        // 1_790_000_000 is 2026-09-21 14:13:20 GMT: 9 h 46 min 40 s to midnight → "in 9 h 47 min".
        #expect(APIError.untilMidnightGMT(from: Date(timeIntervalSince1970: 1_790_000_000)) == "in 9 h 47 min")
        #expect(APIError.untilMidnightGMT(from: Date(timeIntervalSince1970: 86_400 * 3 - 90)) == "in 2 min")
    }
}
