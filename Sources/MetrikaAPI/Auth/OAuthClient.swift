import Foundation
import MetrikaModel

/// What `POST /device/code` answers: the code to show the user, where to enter it, and how to poll.
package struct DeviceCode: Sendable, Equatable {
    /// The secret code metrika polls with. Never print it.
    package var deviceCode: String
    /// The short code the user types on the verification page.
    package var userCode: String
    /// The page where the user enters `userCode` (Yandex calls the field `verification_url`).
    package var verificationURL: String
    /// Seconds between polls.
    package var interval: Int
    /// Seconds until the codes expire.
    package var expiresIn: Int

    /// A device code as the server sent it.
    package init(deviceCode: String, userCode: String, verificationURL: String, interval: Int, expiresIn: Int) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURL = verificationURL
        self.interval = interval
        self.expiresIn = expiresIn
    }
}

/// A successful answer of `POST /token`.
package struct TokenGrant: Sendable, Equatable {
    /// The new access token.
    package var accessToken: String
    /// The refresh token, when the server sent one.
    package var refreshToken: String?
    /// Seconds the access token is valid, when the server said.
    package var expiresIn: Int?

    /// A grant as the server sent it.
    package init(accessToken: String, refreshToken: String?, expiresIn: Int?) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}

/// How `POST /revoke_token` ended.
package enum RevokeOutcome: Sendable, Equatable {
    /// The server revoked the token.
    case revoked
    /// The server cannot revoke this kind of token (one not issued for a device id): delete it locally.
    case unsupportedTokenType
}

/// Talks to Yandex OAuth (metrika-api.md §4): device codes, token grants, refresh and revoke.
/// Bodies are strict `application/x-www-form-urlencoded`; secrets travel only in bodies, never in
/// URLs, and never appear in logs or error messages.
package struct OAuthClient: Sendable {
    /// The default OAuth host; `METRIKA_OAUTH_URL` overrides it.
    package static let defaultBaseURL = "https://oauth.yandex.ru"

    /// The OAuth server's base URL.
    package let baseURL: URL
    private let transport: any HTTPTransport
    private let requestTimeout: Double
    private let now: @Sendable () -> Date
    private let log: (@Sendable (String) -> Void)?

    /// A client of the OAuth server at `baseURL`; `log` receives one line per request (no bodies).
    package init(
        baseURL: URL, transport: any HTTPTransport, requestTimeout: Double = 30,
        now: @escaping @Sendable () -> Date = { Date() }, log: (@Sendable (String) -> Void)? = nil
    ) {
        self.baseURL = baseURL
        self.transport = transport
        self.requestTimeout = requestTimeout
        self.now = now
        self.log = log
    }

    // MARK: - Endpoints

    /// `POST /device/code`: starts a device login for the app `clientID`.
    package func requestDeviceCode(
        clientID: String, deviceID: String? = nil, deviceName: String? = nil, scope: String? = nil
    ) async throws -> DeviceCode {
        var fields = [("client_id", clientID)]
        if let deviceID { fields.append(("device_id", deviceID)) }
        if let deviceName { fields.append(("device_name", deviceName)) }
        if let scope { fields.append(("scope", scope)) }
        let object = try await post("/device/code", fields: fields, secrets: [])
        guard let deviceCode = object.deviceCode, let userCode = object.userCode else {
            throw OAuthError.unreadable("the device code answer has no device_code or user_code")
        }
        let url = object.verificationURL ?? object.verificationURI ?? "https://ya.ru/device"
        let interval = object.interval.map { max(1, $0) } ?? 5
        let expiresIn = object.expiresIn.map { max(1, $0) } ?? 300
        return DeviceCode(
            deviceCode: deviceCode, userCode: userCode, verificationURL: url, interval: interval, expiresIn: expiresIn)
    }

    /// `POST /token` with `grant_type=device_code`: one poll. Throws `OAuthError.authorizationPending`
    /// or `.slowDown` while the user has not confirmed yet.
    package func exchangeDeviceCode(_ code: DeviceCode, credentials: ClientCredentials) async throws -> TokenGrant {
        var fields = [("grant_type", "device_code"), ("code", code.deviceCode), ("client_id", credentials.clientID)]
        if let secret = credentials.clientSecret { fields.append(("client_secret", secret)) }
        return try await grant(
            fields, secrets: [code.deviceCode, credentials.clientSecret].compactMap { $0 }, deviceFlow: true)
    }

    /// `POST /token` with `grant_type=refresh_token`: a new access token for a refresh token.
    package func refresh(_ refreshToken: String, credentials: ClientCredentials) async throws -> TokenGrant {
        var fields = [
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", credentials.clientID)
        ]
        if let secret = credentials.clientSecret { fields.append(("client_secret", secret)) }
        return try await grant(
            fields, secrets: [refreshToken, credentials.clientSecret].compactMap { $0 }, deviceFlow: false)
    }

    /// `POST /revoke_token`: revokes an access token. `unsupported_token_type` is an outcome, not an
    /// error: such a token can only be forgotten locally.
    package func revoke(_ accessToken: String, credentials: ClientCredentials) async throws -> RevokeOutcome {
        var fields = [("access_token", accessToken), ("client_id", credentials.clientID)]
        if let secret = credentials.clientSecret { fields.append(("client_secret", secret)) }
        do {
            _ = try await post(
                "/revoke_token", fields: fields, secrets: [accessToken, credentials.clientSecret].compactMap { $0 })
            return .revoked
        } catch OAuthError.refused(let code, _) where code == "unsupported_token_type" {
            return .unsupportedTokenType
        }
    }

    // MARK: - Requests

    private func grant(_ fields: [(String, String)], secrets: [String], deviceFlow: Bool) async throws -> TokenGrant {
        let object: WireOAuthAnswer
        do {
            object = try await post("/token", fields: fields, secrets: secrets)
        } catch OAuthError.invalidGrant where deviceFlow {
            // For a device code, invalid_grant means the code expired (or was already used).
            throw OAuthError.codeExpired
        }
        guard let access = object.accessToken else {
            throw OAuthError.unreadable("the token answer has no access_token")
        }
        return TokenGrant(accessToken: access, refreshToken: object.refreshToken, expiresIn: object.expiresIn)
    }

    /// POSTs a form and returns the JSON object of a 2xx answer, or throws the `OAuthError` the
    /// answer stands for. `secrets` are scrubbed from any text taken from the answer.
    func post(_ path: String, fields: [(String, String)], secrets: [String]) async throws -> WireOAuthAnswer {
        let url = makeURL(path)
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: [
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
                "User-Agent": "metrika/\(MetrikaVersion.current)"
            ], body: Data(FormEncoding.encode(fields).utf8), timeout: requestTimeout)
        let started = now()
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch TransportError.tooLarge(let limit) {
            logLine(url, status: "too large", since: started)
            throw OAuthError.unreadable("an answer from \(path) larger than the \(APIError.describeBytes(limit)) limit")
        } catch TransportError.insecure(let detail) {
            logLine(url, status: "TLS failed", since: started)
            throw OAuthError.unavailable("the TLS connection failed (\(Self.scrub(detail, secrets: secrets)))")
        } catch let error as TransportError {
            logLine(url, status: MetrikaClient.describe(error), since: started)
            throw OAuthError.unavailable(MetrikaClient.unavailableText(error))
        } catch let error as CancellationError {
            throw error
        } catch {
            logLine(url, status: "failed", since: started)
            throw OAuthError.unavailable("the request failed")
        }
        logLine(url, status: "\(response.status)", since: started)
        // A redirect is never followed (the transport returns it): neither the secrets in the body nor
        // a grant from wherever it points may count.
        if response.isRedirect {
            throw OAuthError.unavailable(
                "it answered with a redirect (HTTP \(response.status)) to \(response.redirectTarget(from: url)), which metrika does not follow, so nothing was sent there"
            )
        }
        // Preflight: nesting bounded, lone surrogates repaired (JSONPreflight).
        let object = WireOAuthAnswer.decode(response.body)
        if (200..<300).contains(response.status) {
            guard let object else {
                throw OAuthError.unreadable("HTTP \(response.status) from \(path) is not a JSON object")
            }
            if let code = object.error {
                throw Self.error(code: code, description: object.errorDescription, secrets: secrets)
            }
            return object
        }
        if let code = object?.error {
            throw Self.error(code: code, description: object?.errorDescription, secrets: secrets)
        }
        if response.status >= 500 {
            throw OAuthError.unavailable("HTTP \(response.status) from \(path)")
        }
        throw OAuthError.unreadable("HTTP \(response.status) from \(path) without the documented error JSON")
    }

    static func error(code: String, description: String?, secrets: [String]) -> OAuthError {
        let detail = scrub(description ?? "", secrets: secrets)
        switch code {
        case "authorization_pending": return .authorizationPending
        case "slow_down": return .slowDown
        case "access_denied": return .accessDenied
        case "expired_token": return .codeExpired
        case "invalid_client": return .invalidClient(detail)
        case "invalid_grant": return .invalidGrant(detail)
        default: return .refused(code: scrub(code, secrets: secrets), description: detail)
        }
    }

    /// Server text as a message may quote it (through `TerminalText`, the one sanitizer: one line,
    /// no terminal escapes or bidi controls, at most 300 characters), with any secret this request
    /// carried masked: a server that echoes the request must not make metrika print a token.
    static func scrub(_ text: String, secrets: [String]) -> String {
        TerminalText.quote(text, hiding: secrets)
    }

    func makeURL(_ path: String) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        let basePath = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = basePath + path
        return components.url!
    }

    private func logLine(_ url: URL, status: String, since: Date) {
        guard let log else { return }
        let milliseconds = Int((now().timeIntervalSince(since) * 1000).rounded())
        log("POST \(url.absoluteString) → \(status) (\(milliseconds) ms)")
    }
}
