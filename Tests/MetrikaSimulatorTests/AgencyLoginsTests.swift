import Foundation
import Testing

/// Several logins (`Fixtures/agency`): owned counters and guest grants with their permissions,
/// represented accounts and `ulogin`, and the per-login quotas of `--quotas` with the API's 429 bodies.
@Suite("Several logins and their quotas")
struct AgencyLoginsTests {
    func permissions(_ reply: Reply) throws -> [Int: String] {
        let counters = try #require(try reply.json()["counters"] as? [[String: Any]])
        var result: [Int: String] = [:]
        for counter in counters { result[counter["id"] as? Int ?? 0] = counter["permission"] as? String }
        return result
    }

    @Test func ownedCountersGrantsAndUlogin() async throws {
        let sim = try SimulatorHarness(fixtures: "agency")
        let list = try await sim.get("/management/v1/counters", token: "agency-a-token")
        #expect(try permissions(list) == [610001: "own", 610002: "own", 610003: "view", 610005: "edit"])
        #expect(
            try await sim.get("/stat/v1/data?ids=610004&metrics=ym:s:visits", token: "agency-a-token").status == 403)
        let accounts = try await sim.get("/management/v1/accounts", token: "agency-c-token")
        let listed = try #require(try accounts.json()["accounts"] as? [[String: Any]])
        #expect(listed.compactMap { $0["user_login"] as? String } == ["client-x"])
        let acting = try await sim.get("/management/v1/counters?ulogin=client-x", token: "agency-c-token")
        #expect(try permissions(acting) == [610006: "own", 610007: "own"])
        let stranger = try await sim.get("/management/v1/counters?ulogin=client-x", token: "agency-a-token")
        #expect(stranger.status == 403)
        #expect(try await sim.log().last?["login"] as? String == "agency-a")
    }

    @Test func quotasAnswer429AsTheAPIDoes() async throws {
        let sim = try SimulatorHarness(fixtures: "agency", quotas: true)
        let stat = "/stat/v1/data?ids=610001&metrics=ym:s:visits"
        #expect(try await sim.get(stat, token: "agency-a-token").status == 200)
        _ = try await sim.post("/__sim/quota", body: #"{"login": "agency-a", "reporting": 199}"#)
        let fifth = try await sim.get(stat, token: "agency-a-token")
        #expect(fifth.status == 429)
        let error = try #require((try fifth.json()["errors"] as? [[String: Any]])?.first)
        #expect(error["error_type"] as? String == "quota_requests_by_uid")
        #expect((error["message"] as? String)?.contains("5 minutes") == true)
        #expect(try await sim.get("/management/v1/counters", token: "agency-a-token").status == 200)
        let other = "/stat/v1/data?ids=610003&metrics=ym:s:visits"
        #expect(try await sim.get(other, token: "agency-b-token").status == 200, "another login's quota is its own")
        _ = try await sim.post("/__sim/quota", body: #"{"login": "agency-b", "used_today": 5000}"#)
        let daily = try await sim.get("/management/v1/counters", token: "agency-b-token")
        #expect(daily.status == 429)
        #expect(daily.text.contains("\"error_type\":\"quota_requests_by_uid\"") && daily.text.contains("5000"))
        let quota = try await sim.get("/__sim/quota", token: nil).json()
        #expect(quota["rejected"] as? Int == 2)
        // A new UTC day resets the daily count.
        _ = try await sim.post("/__sim/clock", body: #"{"advance": 86400}"#)
        #expect(try await sim.get("/management/v1/counters", token: "agency-b-token").status == 200)
    }
}
