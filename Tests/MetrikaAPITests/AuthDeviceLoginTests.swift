import Foundation
import Testing

@testable import MetrikaAPI

@Suite("Device login polling")
struct AuthDeviceLoginTests {
    static let codeAnswer =
        #"{"device_code": "dc", "user_code": "UC-42", "verification_url": "https://ya.ru/device", "interval": 5, "expires_in": 30}"#
    static let pending = json(400, #"{"error": "authorization_pending"}"#)
    static let granted = json(
        200, #"{"access_token": "new-access-token-123456", "refresh_token": "new-refresh", "expires_in": 31536000}"#)

    /// Runs the flow against `polls` (the answers to POST /token in order; the last repeats).
    func login(_ polls: [HTTPResponse], clock: AuthClock) async throws -> (StoredToken, ScriptedTransport, [DeviceCode])
    {
        let transport = ScriptedTransport { request, index in
            if request.url.path == "/device/code" { return json(200, Self.codeAnswer) }
            return polls[min(index - 1, polls.count - 1)]
        }
        let shown = ShownCodes()
        let flow = DeviceLogin(
            oauth: OAuthClient(baseURL: oauthBase, transport: transport, now: clock.now), credentials: demoCredentials,
            now: clock.now, sleep: clock.sleep)
        let token = try await flow.run(deviceID: "metrika-1", deviceName: "test") { shown.append($0) }
        return (token, transport, shown.codes)
    }

    @Test func pollsEveryIntervalUntilConfirmed() async throws {
        let clock = AuthClock()
        let start = clock.now()
        let (token, transport, shown) = try await login([Self.pending, Self.pending, Self.granted], clock: clock)
        #expect(shown.map(\.userCode) == ["UC-42"])
        #expect(clock.sleeps == [5, 5, 5])
        #expect(transport.requests.count == 4)
        #expect(
            transport.form(1) == [
                "grant_type": "device_code", "code": "dc", "client_id": "demo-client", "client_secret": "demo-secret"
            ])
        #expect(token.accessToken == "new-access-token-123456")
        #expect(token.refreshToken == "new-refresh")
        #expect(token.clientID == "demo-client")
        #expect(token.obtainedAt == start.addingTimeInterval(15))
        #expect(token.expiresAt == start.addingTimeInterval(15 + 31_536_000))
    }

    @Test func slowDownAddsFiveSeconds() async throws {
        let clock = AuthClock()
        let slow = json(400, #"{"error": "slow_down"}"#)
        _ = try await login([slow, Self.pending, slow, Self.granted], clock: clock)
        // 5, then 10 after the first slow_down, 15 after the second; but the code expires at 30 s,
        // so the last wait is cut to the 5 s that are left.
        #expect(clock.sleeps == [5, 10, 10, 5])
    }

    @Test func stopsAtExpiryWithoutSleepingPastIt() async throws {
        let clock = AuthClock()
        await #expect(throws: OAuthError.codeExpired) { _ = try await login([Self.pending], clock: clock) }
        // expires_in 30, interval 5: six polls at 5, 10, …, 30 s, and none after.
        #expect(clock.sleeps == [5, 5, 5, 5, 5, 5])
    }

    @Test(arguments: [
        (#"{"error": "access_denied"}"#, OAuthError.accessDenied),
        (#"{"error": "invalid_grant"}"#, OAuthError.codeExpired)
    ])
    func stopsOnRefusal(body: String, expected: OAuthError) async throws {
        let clock = AuthClock()
        await #expect(throws: expected) { _ = try await login([Self.pending, json(400, body)], clock: clock) }
        #expect(clock.sleeps == [5, 5])
    }

    @Test func toleratesAFewUnansweredPollsButNotMany() async throws {
        let down = json(502, "bad gateway")
        let clock = AuthClock()
        let (token, _, _) = try await login([down, down, Self.pending, down, Self.granted], clock: clock)
        #expect(token.accessToken == "new-access-token-123456")
        let clock2 = AuthClock()
        await #expect(throws: OAuthError.unavailable("HTTP 502 from /token")) {
            _ = try await login([down], clock: clock2)
        }
        #expect(clock2.sleeps.count == 4)
    }

    @Test func cancellationEndsPolling() async throws {
        let clock = AuthClock()
        let transport = ScriptedTransport { request, _ in
            request.url.path == "/device/code" ? json(200, Self.codeAnswer) : Self.pending
        }
        let gate = CancelAfter(polls: 2)
        let flow = DeviceLogin(
            oauth: OAuthClient(baseURL: oauthBase, transport: transport), credentials: demoCredentials, now: clock.now
        ) { seconds in
            try await clock.sleep(seconds)
            if gate.tick() { throw CancellationError() }
        }
        await #expect(throws: CancellationError.self) { _ = try await flow.run { _ in } }
        #expect(transport.requests.count == 2) // the device code and one poll
    }
}

final class ShownCodes: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [DeviceCode] = []
    func append(_ code: DeviceCode) { lock.withLock { stored.append(code) } }
    var codes: [DeviceCode] { lock.withLock { stored } }
}

/// Says "cancel now" on the n-th sleep, like Ctrl-C during the wait.
final class CancelAfter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private let polls: Int
    init(polls: Int) { self.polls = polls }
    func tick() -> Bool {
        lock.withLock {
            count += 1
            return count >= polls
        }
    }
}
