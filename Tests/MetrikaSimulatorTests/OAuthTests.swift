import Foundation
import Testing

@Suite("Yandex OAuth")
struct OAuthTests {
    static let client = [("client_id", "demo-client"), ("client_secret", "demo-secret")]

    func startDevice(_ sim: SimulatorHarness, deviceID: String? = "metrika-test-laptop") async throws -> String {
        var fields = [("client_id", "demo-client"), ("device_name", "test laptop")]
        if let deviceID { fields.append(("device_id", deviceID)) }
        let reply = try await sim.postForm("/device/code", fields)
        #expect(reply.status == 200)
        let body = try reply.json()
        #expect(body["verification_url"] as? String == "https://ya.ru/device")
        #expect(body["expires_in"] as? Int == 300)
        #expect((body["user_code"] as? String)?.isEmpty == false)
        return try #require(body["device_code"] as? String)
    }

    func poll(_ sim: SimulatorHarness, _ code: String, secret: String = "demo-secret") async throws -> Reply {
        try await sim.postForm(
            "/token",
            [("grant_type", "device_code"), ("code", code), ("client_id", "demo-client"), ("client_secret", secret)])
    }

    func oauthError(_ reply: Reply) -> String? {
        (try? reply.json())?["error"] as? String
    }

    @Test("device flow: pending polls, then tokens that work on the Metrika API")
    func deviceFlow() async throws {
        let sim = try SimulatorHarness(deviceInterval: 3, devicePendingPolls: 2)
        let start = try await sim.postForm("/device/code", [("client_id", "demo-client")])
        #expect(try start.json()["interval"] as? Int == 3)

        let code = try await startDevice(sim)
        for _ in 0..<2 {
            let pending = try await poll(sim, code)
            #expect(pending.status == 400)
            #expect(oauthError(pending) == "authorization_pending")
            #expect((try pending.json()["error_description"] as? String)?.isEmpty == false)
        }
        let granted = try await poll(sim, code)
        #expect(granted.status == 200)
        let tokens = try granted.json()
        #expect(tokens["token_type"] as? String == "bearer")
        #expect(tokens["expires_in"] as? Int == 31_536_000)
        let access = try #require(tokens["access_token"] as? String)
        #expect((tokens["refresh_token"] as? String)?.isEmpty == false)

        // The new token sees what demo-token sees.
        let mine = try await sim.get("/management/v1/counters", token: access).json()
        let demo = try await sim.get("/management/v1/counters").json()
        #expect(mine["rows"] as? Int == demo["rows"] as? Int)
        #expect(try await sim.get("/management/v1/counter/9999", token: access).errorType == "access_denied")
        #expect(try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits", token: access).status == 200)

        // A code is good for one grant.
        #expect(oauthError(try await poll(sim, code)) == "invalid_grant")
    }

    @Test("client and code errors")
    func errors() async throws {
        let sim = try SimulatorHarness(devicePendingPolls: 0)
        let unknownClient = try await sim.postForm("/device/code", [("client_id", "who")])
        #expect(unknownClient.status == 401)
        #expect(oauthError(unknownClient) == "invalid_client")
        let shortDevice = try await sim.postForm("/device/code", [("client_id", "demo-client"), ("device_id", "abc")])
        #expect(shortDevice.status == 400)

        let code = try await startDevice(sim)
        let wrongSecret = try await poll(sim, code, secret: "guess")
        #expect(wrongSecret.status == 401)
        #expect(oauthError(wrongSecret) == "invalid_client")
        let unknownCode = try await poll(sim, "no-such-code")
        #expect(unknownCode.status == 400)
        #expect(oauthError(unknownCode) == "invalid_grant")
        let noGrant = try await sim.postForm("/token", Self.client)
        #expect(oauthError(noGrant) == "invalid_request")
        let otherGrant = try await sim.postForm("/token", [("grant_type", "password")] + Self.client)
        #expect(oauthError(otherGrant) == "unsupported_grant_type")
        // The code still works after the failed attempts.
        #expect(try await poll(sim, code).status == 200)
    }

    @Test("refresh: new tokens; the old access token stops working")
    func refresh() async throws {
        let sim = try SimulatorHarness(devicePendingPolls: 0)
        let first = try await poll(sim, try await startDevice(sim)).json()
        let oldAccess = try #require(first["access_token"] as? String)
        let oldRefresh = try #require(first["refresh_token"] as? String)

        let renewed = try await sim.postForm(
            "/token", [("grant_type", "refresh_token"), ("refresh_token", oldRefresh)] + Self.client)
        #expect(renewed.status == 200)
        let second = try renewed.json()
        let newAccess = try #require(second["access_token"] as? String)
        #expect(newAccess != oldAccess)
        #expect(second["refresh_token"] as? String != oldRefresh)

        #expect(try await sim.get("/management/v1/counters", token: oldAccess).errorType == "invalid_token")
        #expect(try await sim.get("/management/v1/counters", token: newAccess).status == 200)
        let again = try await sim.postForm(
            "/token", [("grant_type", "refresh_token"), ("refresh_token", oldRefresh)] + Self.client)
        #expect(oauthError(again) == "invalid_grant")
    }

    @Test("revoke: device tokens only")
    func revoke() async throws {
        let sim = try SimulatorHarness(devicePendingPolls: 0)
        let tokens = try await poll(sim, try await startDevice(sim)).json()
        let access = try #require(tokens["access_token"] as? String)
        let revoked = try await sim.postForm("/revoke_token", [("access_token", access)] + Self.client)
        #expect(revoked.status == 200)
        #expect(try revoked.json()["status"] as? String == "ok")
        let after = try await sim.get("/management/v1/counters", token: access)
        #expect(after.status == 403)
        #expect(after.errorType == "invalid_token")

        let demo = try await sim.postForm("/revoke_token", [("access_token", "demo-token")] + Self.client)
        #expect(demo.status == 400)
        #expect(oauthError(demo) == "unsupported_token_type")
        #expect(try await sim.get("/management/v1/counters").status == 200, "demo-token still works")

        let plain = try await poll(sim, try await startDevice(sim, deviceID: nil)).json()
        let plainAccess = try #require(plain["access_token"] as? String)
        let refused = try await sim.postForm("/revoke_token", [("access_token", plainAccess)] + Self.client)
        #expect(oauthError(refused) == "unsupported_token_type")
        #expect(try await sim.get("/management/v1/counters", token: plainAccess).status == 200)

        let wrongSecret = try await sim.postForm(
            "/revoke_token", [("access_token", plainAccess), ("client_id", "demo-client"), ("client_secret", "x")])
        #expect(wrongSecret.status == 401)
    }

    @Test("refresh and revoke check the client secret, as Yandex OAuth does: without it nothing changes")
    func refreshAndRevokeNeedTheSecret() async throws {
        let sim = try SimulatorHarness(devicePendingPolls: 0)
        let tokens = try await poll(sim, try await startDevice(sim)).json()
        let access = try #require(tokens["access_token"] as? String)
        let refresh = try #require(tokens["refresh_token"] as? String)
        for secret in [nil, "wrong-secret"] as [String?] {
            let credentials = [("client_id", "demo-client")] + (secret.map { [("client_secret", $0)] } ?? [])
            let refused = try await sim.postForm("/revoke_token", [("access_token", access)] + credentials)
            #expect(refused.status == 401)
            #expect(oauthError(refused) == "invalid_client")
            let noRenewal = try await sim.postForm(
                "/token", [("grant_type", "refresh_token"), ("refresh_token", refresh)] + credentials)
            #expect(noRenewal.status == 401)
            #expect(oauthError(noRenewal) == "invalid_client")
        }
        // Neither refused call changed anything: the token still works and can still be renewed.
        #expect(try await sim.get("/management/v1/counters", token: access).status == 200)
        let renewed = try await sim.postForm(
            "/token", [("grant_type", "refresh_token"), ("refresh_token", refresh)] + Self.client)
        #expect(renewed.status == 200)
    }

    static let faultKinds: [(String, String)] = [
        ("oauth_slow_down", "slow_down"), ("oauth_access_denied", "access_denied")
    ]

    @Test("faults make the next poll answer slow_down or access_denied", arguments: faultKinds)
    func oauthFaults(kind: String, error: String) async throws {
        let sim = try SimulatorHarness(devicePendingPolls: 1)
        let code = try await startDevice(sim)
        try await sim.inject(#"{"kind":"\#(kind)"}"#)
        // Metrika calls are not affected by OAuth faults.
        #expect(try await sim.get("/management/v1/counters").status == 200)
        let faulted = try await poll(sim, code)
        #expect(faulted.status == 400)
        #expect(oauthError(faulted) == error)
        #expect(oauthError(try await poll(sim, code)) == "authorization_pending")
        #expect(try await poll(sim, code).status == 200)
        // The log records OAuth calls without their form bodies.
        let log = try await sim.log()
        #expect(log.contains { $0["path"] as? String == "/token" && $0["status"] as? Int == 400 })
        #expect(!(try await sim.get("/__sim/log", token: nil).text.contains("demo-secret")))
    }
}
