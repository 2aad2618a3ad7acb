import Foundation
import MetrikaCLI
import Testing

@testable import MetrikaAPI

@Suite("OAuth client")
struct AuthOAuthClientTests {
    @Test func deviceCodeRequestAndAnswer() async throws {
        let transport = ScriptedTransport { _, _ in
            json(
                200,
                #"{"device_code": "dc-1", "user_code": "ABCD1234", "verification_url": "https://ya.ru/device", "interval": 5, "expires_in": 300}"#
            )
        }
        let oauth = OAuthClient(baseURL: URL(string: "http://127.0.0.1:9/oauth/")!, transport: transport)
        let code = try await oauth.requestDeviceCode(
            clientID: "demo client+1", deviceID: "metrika-abc", deviceName: "metrika on host")
        #expect(
            code
                == DeviceCode(
                    deviceCode: "dc-1", userCode: "ABCD1234", verificationURL: "https://ya.ru/device", interval: 5,
                    expiresIn: 300))
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "http://127.0.0.1:9/oauth/device/code")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(
            String(decoding: request.body ?? Data(), as: UTF8.self)
                == "client_id=demo%20client%2B1&device_id=metrika-abc&device_name=metrika%20on%20host")
    }

    @Test func tokenGrantBodyCarriesCodeAndSecretOnlyInTheBody() async throws {
        let transport = ScriptedTransport { _, _ in
            json(
                200, #"{"token_type": "bearer", "access_token": "acc", "expires_in": 31536000, "refresh_token": "ref"}"#
            )
        }
        let oauth = OAuthClient(baseURL: oauthBase, transport: transport)
        let code = DeviceCode(deviceCode: "dc&1", userCode: "U", verificationURL: "v", interval: 5, expiresIn: 300)
        let grant = try await oauth.exchangeDeviceCode(code, credentials: demoCredentials)
        #expect(grant == TokenGrant(accessToken: "acc", refreshToken: "ref", expiresIn: 31_536_000))
        let request = try #require(transport.requests.first)
        #expect(request.url.absoluteString == "http://127.0.0.1:9/token")
        #expect(request.url.query == nil)
        #expect(
            String(decoding: request.body ?? Data(), as: UTF8.self)
                == "grant_type=device_code&code=dc%261&client_id=demo-client&client_secret=demo-secret")
    }

    @Test(arguments: [
        (
            400, #"{"error": "authorization_pending", "error_description": "User has not yet authorized"}"#,
            OAuthError.authorizationPending
        ),
        (400, #"{"error": "slow_down"}"#, OAuthError.slowDown),
        (400, #"{"error": "access_denied"}"#, OAuthError.accessDenied),
        (400, #"{"error": "invalid_grant", "error_description": "Code has expired"}"#, OAuthError.codeExpired),
        (
            401, #"{"error": "invalid_client", "error_description": "Client not found"}"#,
            OAuthError.invalidClient("Client not found")
        ),
        (
            400, #"{"error": "bad_verification_code"}"#,
            OAuthError.refused(code: "bad_verification_code", description: "")
        ),
        (503, "<html>gateway</html>", OAuthError.unavailable("HTTP 503 from /token")),
        (200, "not json", OAuthError.unreadable("HTTP 200 from /token is not a JSON object")),
        (400, "", OAuthError.unreadable("HTTP 400 from /token without the documented error JSON"))
    ])
    func pollErrors(status: Int, body: String, expected: OAuthError) async throws {
        let oauth = OAuthClient(baseURL: oauthBase, transport: ScriptedTransport { _, _ in json(status, body) })
        let code = DeviceCode(deviceCode: "dc", userCode: "U", verificationURL: "v", interval: 5, expiresIn: 300)
        await #expect(throws: expected) { try await oauth.exchangeDeviceCode(code, credentials: demoCredentials) }
    }

    @Test func refreshInvalidGrantIsNotAnExpiredCode() async throws {
        let transport = ScriptedTransport { _, _ in
            json(400, #"{"error": "invalid_grant", "error_description": "refresh token r-123456 revoked"}"#)
        }
        let oauth = OAuthClient(baseURL: oauthBase, transport: transport)
        // The server echoed the refresh token: it must not reach the message.
        await #expect(throws: OAuthError.invalidGrant("refresh token [hidden] revoked")) {
            try await oauth.refresh("r-123456", credentials: demoCredentials)
        }
        #expect(
            String(decoding: transport.requests[0].body ?? Data(), as: UTF8.self)
                == "grant_type=refresh_token&refresh_token=r-123456&client_id=demo-client&client_secret=demo-secret")
        #expect(OAuthError.invalidGrant("x").message(.cli).contains("metrika login"))
    }

    @Test func revokeOutcomes() async throws {
        let answers = [
            json(200, #"{"status": "ok"}"#), json(400, #"{"error": "unsupported_token_type"}"#),
            json(401, #"{"error": "invalid_client"}"#)
        ]
        let transport = ScriptedTransport { _, index in answers[index] }
        let oauth = OAuthClient(baseURL: oauthBase, transport: transport)
        #expect(try await oauth.revoke("tok", credentials: demoCredentials) == .revoked)
        #expect(try await oauth.revoke("tok", credentials: demoCredentials) == .unsupportedTokenType)
        await #expect(throws: OAuthError.invalidClient("")) {
            try await oauth.revoke("tok", credentials: demoCredentials)
        }
        #expect(transport.requests[0].url.path == "/revoke_token")
        #expect(
            transport.form(0) == ["access_token": "tok", "client_id": "demo-client", "client_secret": "demo-secret"])
    }

    @Test func transportFailureIsUnavailableAndLogsCarryNoSecrets() async throws {
        let lines = LineBox()
        let oauth = OAuthClient(
            baseURL: oauthBase, transport: ScriptedTransport { _, _ in throw TransportError.cannotConnect("refused") },
            log: { lines.append($0) })
        await #expect(throws: OAuthError.unavailable("cannot connect (refused)")) {
            try await oauth.refresh("secret-refresh", credentials: demoCredentials)
        }
        #expect(lines.lines.count == 1)
        #expect(lines.lines[0].hasPrefix("POST http://127.0.0.1:9/token → cannot connect"))
        #expect(!lines.lines[0].contains("secret"))
        #expect(OAuthError.unavailable("x").exitCode == 69)
        #expect(OAuthError.accessDenied.exitCode == 77)
        #expect(OAuthError.codeExpired.exitCode == 77)
        #expect(OAuthError.invalidClient("").exitCode == 78)
    }
}
