import Foundation

/// The device flow of metrika-api.md §4: get a code, show it, poll `POST /token` every `interval`
/// seconds (5 s more after each `slow_down`) until the user confirms, refuses, or the code expires.
/// Time comes from the injected clock and sleep, so tests run it without waiting.
package struct DeviceLogin: Sendable {
    /// Where the codes and tokens come from.
    package var oauth: OAuthClient
    /// The user's OAuth app.
    package var credentials: ClientCredentials
    /// The clock.
    package var now: @Sendable () -> Date
    /// Waits that many seconds; throws `CancellationError` when the task is cancelled (Ctrl-C).
    package var sleep: @Sendable (Double) async throws -> Void
    /// Consecutive unanswered polls tolerated before giving up (a flaky network must not end a
    /// login the user is in the middle of confirming).
    package var toleratedFailures = 3

    /// A device login with the app's credentials, a clock and a sleep.
    package init(
        oauth: OAuthClient, credentials: ClientCredentials, now: @escaping @Sendable () -> Date,
        sleep: @escaping @Sendable (Double) async throws -> Void
    ) {
        self.oauth = oauth
        self.credentials = credentials
        self.now = now
        self.sleep = sleep
    }

    /// Runs the flow. `show` receives the code to present to the user before polling starts.
    /// Returns the token to store; throws `OAuthError` (.codeExpired, .accessDenied, …) or
    /// `CancellationError`.
    /// `scope` (space-separated, e.g. `metrika:read metrika:write`) is asked for when given; the app's
    /// own scopes otherwise.
    package func run(
        deviceID: String? = nil, deviceName: String? = nil, scope: String? = nil,
        show: @Sendable (DeviceCode) -> Void
    ) async throws -> StoredToken {
        let code = try await oauth.requestDeviceCode(
            clientID: credentials.clientID, deviceID: deviceID, deviceName: deviceName, scope: scope)
        show(code)
        let deadline = now().addingTimeInterval(Double(code.expiresIn))
        var interval = Double(code.interval)
        var failures = 0
        while true {
            try Task.checkCancellation()
            // Never sleep past the deadline: the last poll happens just before the code expires.
            let remaining = deadline.timeIntervalSince(now())
            if remaining <= 0 { throw OAuthError.codeExpired }
            try await sleep(min(interval, remaining))
            try Task.checkCancellation()
            do {
                let grant = try await oauth.exchangeDeviceCode(code, credentials: credentials)
                return StoredToken(grant: grant, obtainedAt: now(), clientID: credentials.clientID)
            } catch OAuthError.authorizationPending {
                failures = 0
            } catch OAuthError.slowDown {
                failures = 0
                interval += 5
            } catch OAuthError.unavailable(let detail) {
                failures += 1
                if failures > toleratedFailures { throw OAuthError.unavailable(detail) }
            }
            if now() >= deadline { throw OAuthError.codeExpired }
        }
    }
}
