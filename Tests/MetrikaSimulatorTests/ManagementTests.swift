import Foundation
import Testing

@Suite("Management API")
struct ManagementTests {
    @Test("the documented counter is served verbatim, key order included")
    func documentedCounterIsVerbatim() async throws {
        let sim = try SimulatorHarness()
        let reply = try await sim.get("/management/v1/counter/880000")
        #expect(reply.status == 200)
        let expected = """
            {"counter":{"id":880000,"status":"Active","owner_login":"example-developer","code_status":"CS_ERR_UNKNOWN",\
            "activity_status":"low","name":"counter_option test example-developer","type":"simple",\
            "favorite":0,"hide_address":0,"pro":0,"permission":"view",\
            "webvisor":{"arch_enabled":0,"arch_type":"none","load_player_type":"proxy","wv_version":2,\
            "allow_wv2":true,"notify_wv2":false,"wv_forms":1},\
            "code_options":{"async":1,"visor":0,"track_hash":0,"clickmap":1,"ecommerce":0,\
            "ecommerce_object":"dataLayer","ytm":false},\
            "create_time":"2022-03-25T15:59:52+03:00","time_zone_name":"Europe/Moscow","time_zone_offset":180,\
            "partner_id":0,"site":"example-developer.ru",\
            "site2":{"site":"example-developer.ru","domain":"example-developer.ru"},\
            "gdpr_agreement_accepted":0,"delete_guest_allowed":1}}
            """
        #expect(reply.text == expected)
        #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
    }

    @Test("counters filled from short fixtures have every documented field")
    func filledCounterShape() async throws {
        let sim = try SimulatorHarness()
        let counter = try #require(try await sim.get("/management/v1/counter/1003").json()["counter"] as? [String: Any])
        for key in [
            "id", "status", "owner_login", "code_status", "name", "type", "favorite", "permission", "webvisor",
            "code_options", "create_time", "time_zone_name", "time_zone_offset", "site", "site2"
        ] {
            #expect(counter[key] != nil, "missing \(key)")
        }
        #expect(counter["name"] as? String == "東京ラーメン 🍜 Ramen Diary")
        #expect(counter["time_zone_name"] as? String == "America/New_York")
        #expect(counter["time_zone_offset"] as? Int == -240) // EDT on the frozen date
        #expect((counter["site2"] as? [String: Any])?["site"] as? String == "ramen-diary.example.jp")
    }

    @Test("names with markup and quotes survive JSON escaping")
    func markupNames() async throws {
        let sim = try SimulatorHarness()
        let reply = try await sim.get("/management/v1/counter/1002")
        let counter = try #require(try reply.json()["counter"] as? [String: Any])
        #expect(counter["name"] as? String == "<script>alert(\"x\")</script> & Co")
        #expect(reply.text.contains(#"<script>alert(\"x\")</script> & Co"#))
    }

    @Test("paging through 2,601 counters with 1-based offsets")
    func pagingManyCounters() async throws {
        let sim = try SimulatorHarness(fixtures: "many")
        var offset = 1
        var seen: [Int] = []
        var pageSizes: [Int] = []
        var total = Int.max
        while offset <= total {
            let page = try await sim.get("/management/v1/counters?offset=\(offset)&per_page=1000").json()
            total = try #require(page["rows"] as? Int)
            let counters = try #require(page["counters"] as? [[String: Any]])
            pageSizes.append(counters.count)
            seen.append(contentsOf: counters.compactMap { $0["id"] as? Int })
            offset += 1000
        }
        #expect(total == 2601)
        #expect(pageSizes == [1000, 1000, 601])
        #expect(Set(seen).count == 2601)
        #expect(seen.first == 880000)
        #expect(!seen.contains(9999))

        let beyond = try await sim.get("/management/v1/counters?offset=2602&per_page=1000").json()
        #expect(beyond["rows"] as? Int == 2601)
        #expect((beyond["counters"] as? [Any])?.isEmpty == true)

        // The default page size is 1000.
        let first = try await sim.get("/management/v1/counters").json()
        #expect((first["counters"] as? [Any])?.count == 1000)
    }

    static let searches: [(String, [Int])] = [
        ("%D0%A0%D0%9E%D0%9C%D0%90%D0%A8", [1001]), // "РОМАШ"
        ("1003", [1003]),
        ("BIG-NEWS", [1004]),
        ("%3Cscript%3E", [1002]),
        ("example", [880000, 1002, 1003, 1004, 1005]),
        ("no-such-thing", [])
    ]

    @Test("search_string matches id, name and site, case-insensitively", arguments: searches)
    func search(query: String, expected: [Int]) async throws {
        let sim = try SimulatorHarness()
        let page = try await sim.get("/management/v1/counters?search_string=\(query)").json()
        let ids = try #require(page["counters"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
        #expect(ids == expected)
        #expect(page["rows"] as? Int == expected.count)
    }

    @Test("status and permission filters; unknown parameters are ignored")
    func filters() async throws {
        let sim = try SimulatorHarness()
        func ids(_ query: String) async throws -> [Int] {
            let page = try await sim.get("/management/v1/counters?\(query)").json()
            return try #require(page["counters"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
        }
        #expect(try await ids("") == [880000, 1001, 1002, 1003, 1004, 1005])
        #expect(try await ids("status=Deleted") == [1006])
        #expect(try await ids("permission=view") == [880000, 1003])
        #expect(try await ids("permission=own,edit") == [1001, 1002, 1004, 1005])
        #expect(try await ids("frobnicate=1&per_page=2") == [880000, 1001])
        #expect(try await ids("offset=6&per_page=2") == [1005])

        let viewer = try await sim.get("/management/v1/counters", token: "viewer-token").json()
        #expect(viewer["rows"] as? Int == 2)

        let bad = try await sim.get("/management/v1/counters?offset=0")
        #expect(bad.status == 400)
        #expect(try bad.json()["errors"] != nil)
    }

    @Test("goals")
    func goals() async throws {
        let sim = try SimulatorHarness()
        let goals = try #require(
            try await sim.get("/management/v1/counter/1001/goals").json()["goals"] as? [[String: Any]])
        #expect(goals.compactMap { $0["id"] as? Int } == [4001, 4002])
        #expect(goals.first?["name"] as? String == "Оформление заказа")
        #expect(goals.allSatisfy { $0["conversion_percent"] == nil })
        let none = try await sim.get("/management/v1/counter/880000/goals").json()
        #expect((none["goals"] as? [Any])?.isEmpty == true)
    }
}

@Suite("Authorization")
struct AuthorizationTests {
    /// Checks the exact error body shape of metrika-api.md §3.
    func expectError(_ reply: Reply, status: Int, type: String, message: String? = nil) throws {
        #expect(reply.status == status)
        let body = try reply.json()
        #expect(body["code"] as? Int == status)
        let errors = try #require(body["errors"] as? [[String: Any]])
        #expect(errors.count == 1)
        #expect(errors.first?["error_type"] as? String == type)
        if let message {
            #expect(errors.first?["message"] as? String == message)
            #expect(body["message"] as? String == message)
        }
        #expect(Set(body.keys) == ["errors", "code", "message"])
    }

    @Test("no Authorization header → 401 unauthorized")
    func missingHeader() async throws {
        let sim = try SimulatorHarness()
        try expectError(try await sim.get("/management/v1/counters", token: nil), status: 401, type: "unauthorized")
    }

    @Test("a token in the URL does not authenticate")
    func tokenInURL() async throws {
        let sim = try SimulatorHarness()
        let reply = try await sim.get("/management/v1/counters?oauth_token=demo-token", token: nil)
        try expectError(reply, status: 401, type: "unauthorized")
    }

    @Test("unknown and revoked tokens → 403 invalid_token", arguments: ["revoked-token", "no-such-token", ""])
    func invalidTokens(token: String) async throws {
        let sim = try SimulatorHarness()
        let reply = try await sim.get("/management/v1/counter/1001", token: token)
        if token.isEmpty {
            try expectError(reply, status: 401, type: "unauthorized")
        } else {
            try expectError(reply, status: 403, type: "invalid_token", message: "Invalid oauth_token")
        }
    }

    @Test("Bearer is accepted like OAuth; other schemes are not")
    func schemes() async throws {
        let sim = try SimulatorHarness()
        #expect(try await sim.get("/management/v1/counter/1001", scheme: "Bearer").status == 200)
        #expect(try await sim.get("/management/v1/counter/1001", scheme: "oauth").status == 200)
        try expectError(
            try await sim.get("/management/v1/counter/1001", scheme: "Basic"), status: 401, type: "unauthorized")
    }

    @Test("a counter the token is not granted → 403 access_denied naming it")
    func accessDenied() async throws {
        let sim = try SimulatorHarness()
        let reply = try await sim.get("/management/v1/counter/9999")
        try expectError(reply, status: 403, type: "access_denied")
        #expect(reply.text.contains("9999"))
        #expect(try await sim.get("/management/v1/counter/9999", token: "foreign-token").status == 200)
        try expectError(
            try await sim.get("/management/v1/counter/1001/goals", token: "viewer-token"), status: 403,
            type: "access_denied")
    }

    @Test("an unknown counter → 404 not_found")
    func notFound() async throws {
        let sim = try SimulatorHarness()
        try expectError(try await sim.get("/management/v1/counter/12345"), status: 404, type: "not_found")
        try expectError(try await sim.get("/management/v1/counter/abc/goals"), status: 404, type: "not_found")
    }
}
