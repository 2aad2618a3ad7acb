import Foundation
import Testing

@testable import MetrikaSimulator

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Faults and the request log")
struct FaultTests {
    static let counters = "/management/v1/counters?per_page=3"

    /// Injects `spec`, checks the next request with `check`, then that the one after is normal.
    func once(_ spec: String, path: String = counters, check: (Reply) throws -> Void) async throws {
        let sim = try SimulatorHarness()
        try await sim.inject(spec)
        try check(try await sim.get(path))
        let normal = try await sim.get(path)
        #expect(normal.status == 200)
        _ = try normal.json()
    }

    static let quotas: [(String, Int)] = [
        ("quota_requests_by_ip", 429), ("quota_parallel_requests", 429), ("quota_requests_by_uid", 420),
        ("quota_requests_by_counter_id", 429)
    ]

    @Test("quota faults answer the chosen type and status", arguments: quotas)
    func quota(type: String, status: Int) async throws {
        try await once(#"{"kind":"quota","error_type":"\#(type)","status":\#(status),"retry_after":2}"#) { reply in
            #expect(reply.status == status)
            #expect(reply.header("Retry-After") == "2")
            let body = try reply.json()
            #expect(body["code"] as? Int == status)
            #expect((body["errors"] as? [[String: Any]])?.first?["error_type"] as? String == type)
            #expect((body["message"] as? String)?.isEmpty == false)
        }
    }

    @Test("backend_error → 503, timeout → 504")
    func serverErrors() async throws {
        try await once(#"{"kind":"backend_error"}"#) { reply in
            #expect(reply.status == 503)
            #expect(reply.errorType == "backend_error")
            #expect(reply.header("Retry-After") == nil)
        }
        try await once(#"{"kind":"timeout"}"#) { reply in
            #expect(reply.status == 504)
            #expect(reply.errorType == "timeout")
        }
    }

    @Test("html502 is an nginx page")
    func html502() async throws {
        try await once(#"{"kind":"html502"}"#) { reply in
            #expect(reply.status == 502)
            #expect(reply.header("Content-Type") == "text/html")
            #expect(reply.text.contains("<center>nginx</center>"))
        }
    }

    @Test("empty200 has no body")
    func empty200() async throws {
        try await once(#"{"kind":"empty200"}"#) { reply in
            #expect(reply.status == 200)
            #expect(reply.body.isEmpty)
            #expect(reply.header("Content-Length") == "0")
        }
    }

    @Test("malformed_json is not JSON")
    func malformed() async throws {
        try await once(#"{"kind":"malformed_json"}"#) { reply in
            #expect(reply.status == 200)
            #expect(throws: (any Error).self) { _ = try JSONSerialization.jsonObject(with: reply.body) }
        }
    }

    @Test("wrong_types: strings for numbers, rows as an object")
    func wrongTypes() async throws {
        try await once(#"{"kind":"wrong_types"}"#) { reply in
            let body = try reply.json()
            #expect(body["rows"] is [String: Any])
            let counters = try #require(body["counters"] as? [String: Any])
            let first = try #require(counters["0"] as? [String: Any])
            #expect(first["id"] as? String == "880000")
        }
    }

    @Test("huge_numbers and nan_strings")
    func numbers() async throws {
        try await once(#"{"kind":"huge_numbers"}"#) { reply in
            #expect(reply.text.contains("1e308"))
            #expect(reply.text.contains("123456789012345678901234567890"))
        }
        try await once(#"{"kind":"nan_strings"}"#) { reply in
            #expect(reply.text.contains(#""NaN""#))
            #expect(reply.text.contains(#""Infinity""#))
        }
    }

    @Test("non_utf8 puts invalid bytes inside a name")
    func nonUTF8() async throws {
        try await once(#"{"kind":"non_utf8"}"#) { reply in
            #expect(reply.status == 200)
            #expect(String(validating: reply.body, as: UTF8.self) == nil)
            let bytes = [UInt8](reply.body)
            let marker = Array(#""name":""#.utf8)
            let start = try #require(
                (0..<(bytes.count - marker.count)).first { Array(bytes[$0..<$0 + marker.count]) == marker })
            #expect(bytes[start + marker.count] == 0xFF)
        }
    }

    @Test("cut sends half the body and closes")
    func cut() async throws {
        let sim = try SimulatorHarness()
        try await sim.inject(#"{"kind":"cut"}"#)
        await #expect(throws: (any Error).self) { _ = try await sim.get(Self.counters) }
        #expect(try await sim.get(Self.counters).status == 200)

        // On the wire: the full Content-Length, fewer bytes.
        try await sim.inject(#"{"kind":"cut"}"#)
        let raw = sim.raw(
            Array("GET \(Self.counters) HTTP/1.1\r\nHost: x\r\nAuthorization: OAuth demo-token\r\n\r\n".utf8)
        ).text
        let parts = raw.components(separatedBy: "\r\n\r\n")
        let length = try #require(parts[0].components(separatedBy: "\r\n").first { $0.hasPrefix("Content-Length: ") })
        let declared = try #require(Int(length.dropFirst("Content-Length: ".count)))
        #expect(declared > 100)
        #expect(parts[1].utf8.count == declared / 2)
    }

    @Test("delay holds the answer back, then answers normally")
    func delay() async throws {
        let sim = try SimulatorHarness()
        try await sim.inject(#"{"kind":"delay","delay_ms":700}"#)
        let start = Date()
        let reply = try await sim.get(Self.counters)
        #expect(Date().timeIntervalSince(start) >= 0.65)
        #expect(reply.status == 200)
    }

    @Test("count, FIFO order and path_prefix")
    func queueing() async throws {
        let sim = try SimulatorHarness()
        try await sim.inject(#"{"kind":"backend_error","count":2,"path_prefix":"/stat"}"#)
        try await sim.inject(#"{"kind":"timeout","count":1}"#)
        // Management requests skip the /stat fault and take the timeout.
        #expect(try await sim.get(Self.counters).status == 504)
        #expect(try await sim.get(Self.counters).status == 200)
        #expect(try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits").status == 503)
        #expect(try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits").status == 503)
        let pending = try await sim.get("/__sim/faults", token: nil).json()
        #expect((pending["faults"] as? [Any])?.isEmpty == true)
    }

    @Test("bad fault specifications are refused")
    func badSpecs() async throws {
        let sim = try SimulatorHarness()
        for spec in [
            #"{"kind":"meteor"}"#, #"{"count":1}"#, "not json", #"{"kind":"quota","error_type":"x"}"#,
            #"{"kind":"quota","status":500}"#, #"{"kind":"cut","count":0}"#
        ] {
            #expect(try await sim.post("/__sim/faults", body: spec).status == 400, "\(spec)")
        }
    }

    @Test("the log records requests without token values; control calls are not logged; reset clears")
    func log() async throws {
        let sim = try SimulatorHarness()
        _ = try await sim.get("/management/v1/counters?offset=1&per_page=1000")
        _ = try await sim.get("/management/v1/counter/9999", token: nil)
        try await sim.inject(#"{"kind":"backend_error"}"#)
        _ = try await sim.get("/management/v1/counter/1001")
        let entries = try await sim.log()
        #expect(entries.count == 3)
        #expect(entries[0]["method"] as? String == "GET")
        #expect(entries[0]["path"] as? String == "/management/v1/counters")
        #expect(entries[0]["query"] as? String == "offset=1&per_page=1000")
        #expect(entries[0]["authorization"] as? Bool == true)
        #expect(entries[0]["status"] as? Int == 200)
        #expect(entries[1]["authorization"] as? Bool == false)
        #expect(entries[1]["status"] as? Int == 401)
        #expect(entries[2]["status"] as? Int == 503)
        let raw = try await sim.get("/__sim/log", token: nil).text
        #expect(!raw.contains("demo-token"))

        try await sim.inject(#"{"kind":"timeout","count":5}"#)
        #expect(try await sim.post("/__sim/reset", body: "").status == 200)
        #expect(try await sim.log().isEmpty)
        #expect(try await sim.get("/management/v1/counter/1001").status == 200)
    }
}

@Suite("HTTP server")
struct ServerTests {
    @Test("garbage gets 400 and the server keeps serving")
    func garbage() async throws {
        let sim = try SimulatorHarness()
        for junk in [
            Array("GARBAGE\u{1}\u{2}\r\n\r\n".utf8), [0xFF, 0xFE, 0x00, 0x41], Array("GET / HTTP/9.9\r\n\r\n".utf8),
            Array("GET /x HTTP/1.1\r\nContent-Length: -5\r\n\r\n".utf8),
            Array("GET /x HTTP/1.1\r\nno colon\r\n\r\n".utf8),
            Array("GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8),
            Array("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\nab\r\n".utf8),
            Array("GET /x HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n".utf8),
            Array("get /x HTTP/1.1\r\n\r\n".utf8)
        ] {
            let answer = sim.raw(junk).text
            #expect(answer.hasPrefix("HTTP/1.1 400 "), "\(junk) → \(answer)")
        }
        #expect(try await sim.get("/management/v1/counters").status == 200)
    }

    @Test("keep-alive: several requests on one connection, chunked bodies too")
    func keepAlive() async throws {
        let sim = try SimulatorHarness()
        let requests =
            "GET /management/v1/counter/1001 HTTP/1.1\r\nHost: x\r\nAuthorization: OAuth demo-token\r\n\r\n"
            + "POST /__sim/faults HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4\r\n{\"ki\r\n14\r\nnd\":\"backend_error\"}\r\n0\r\n\r\n"
            + "GET /management/v1/counter/1002 HTTP/1.1\r\nHost: x\r\nAuthorization: OAuth demo-token\r\nConnection: close\r\n\r\n"
        let answer = sim.raw(Array(requests.utf8)).text
        // Bodies carry no trailing newline, so each status line starts right after the previous body.
        let statuses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
        #expect(statuses == ["200", "200", "503"])
    }

    @Test("HEAD gets the headers only")
    func head() async throws {
        let sim = try SimulatorHarness()
        let answer = sim.raw(
            Array(
                "HEAD /management/v1/counter/1001 HTTP/1.1\r\nHost: x\r\nAuthorization: OAuth demo-token\r\n\r\n".utf8)
        ).text
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.hasSuffix("\r\n\r\n"))
        #expect(answer.contains("Content-Length: "))
    }

    @Test("unknown paths and wrong methods")
    func routing() async throws {
        let sim = try SimulatorHarness()
        #expect(try await sim.get("/nope").status == 404)
        #expect(try await sim.post("/management/v1/counters", body: "").status == 405)
        #expect(try await sim.get("/management/v1/counters.json").status == 200)
    }

    @Test("connections are served concurrently: a slow answer does not hold up the others")
    func concurrency() async throws {
        let sim = try SimulatorHarness()
        // The slow answer is held for 90 s; the check is about order, not speed, so a loaded
        // machine cannot fail it.
        try await sim.inject(#"{"kind":"delay","delay_ms":90000,"path_prefix":"/management/v1/counter/1004"}"#)
        let slowFinished = Flag()
        let slow = Task {
            let status = try await sim.get("/management/v1/counter/1004").status
            slowFinished.set()
            return status
        }
        // Wait until the slow request has reached the server (its fault is consumed).
        for _ in 0..<200 {
            let pending = try await sim.get("/__sim/faults", token: nil).json()["faults"] as? [Any]
            if pending?.isEmpty == true { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let fastStatuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for id in [880000, 1001, 1002, 1003, 1005, 880000, 1001, 1002, 1003, 1005] {
                group.addTask { try await sim.get("/management/v1/counter/\(id)").status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(fastStatuses.count == 10)
        #expect(fastStatuses.allSatisfy { $0 == 200 })
        #expect(!slowFinished.isSet, "the ten quick answers arrived while the slow one was held back")
        slow.cancel()
    }

    @Test("command-line options")
    func commandLine() throws {
        let root = URL(fileURLWithPath: "/nowhere")
        let parsed = try CommandLineOptions.parse(
            ["--port", "8123", "--now=2026-06-15T12:00:00Z", "--device-interval", "1", "--device-pending", "0"],
            environment: ["METRIKA_FAKE_FIXTURES": "/tmp/fx"], defaultFixtures: root)
        #expect(parsed.port == 8123)
        #expect(parsed.simulator.now == frozenNow)
        #expect(parsed.simulator.fixturesDirectory.path == "/tmp/fx")
        #expect(parsed.simulator.deviceInterval == 1)
        #expect(parsed.simulator.devicePendingPolls == 0)
        let fallback = try CommandLineOptions.parse([], environment: [:], defaultFixtures: root)
        #expect(fallback.simulator.fixturesDirectory == root)
        #expect(fallback.parentPID == nil)
        #expect(
            try CommandLineOptions.parse(["--parent-pid", "4242"], environment: [:], defaultFixtures: root).parentPID
                == 4242)
        #expect(throws: CommandLineOptions.UsageError.self) {
            _ = try CommandLineOptions.parse(["--parent-pid", "0"], environment: [:], defaultFixtures: root)
        }
        #expect(throws: CommandLineOptions.UsageError.self) {
            _ = try CommandLineOptions.parse(["--port", "70000"], environment: [:], defaultFixtures: root)
        }
        #expect(throws: CommandLineOptions.UsageError.self) {
            _ = try CommandLineOptions.parse(["--bogus"], environment: [:], defaultFixtures: root)
        }
        let quirks = try CommandLineOptions.parse(
            ["--logs-quirks", "all", "--logs-quirks=broken_row"], environment: [:], defaultFixtures: root)
        #expect(quirks.simulator.logsQuirks == Set(LogsQuirk.allCases))
        #expect(
            try CommandLineOptions.parse(["--logs-quirks", "all"], environment: [:], defaultFixtures: root).simulator
                .logsQuirks.contains(.brokenRow) == false)
        #expect(throws: CommandLineOptions.UsageError.self) {
            _ = try CommandLineOptions.parse(["--logs-quirks", "crlf,nope"], environment: [:], defaultFixtures: root)
        }
    }
}

/// A thread-safe one-way switch for tests.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
