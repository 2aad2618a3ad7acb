import Foundation

/// A device code handed out by `POST /device/code`.
struct DeviceAuthorization: Sendable {
    let deviceCode: String
    let userCode: String
    let clientID: String
    let deviceID: String?
    let expiresAt: Date
    /// Polls still to answer `authorization_pending`.
    var pendingPollsLeft: Int
    var redeemed = false
}

/// An access token issued through the OAuth endpoints.
struct IssuedToken: Sendable {
    let accessToken: String
    let refreshToken: String
    let clientID: String
    let deviceID: String?
    var valid = true
}

/// Device codes and issued tokens, kept under the simulator's lock.
struct OAuthState {
    var deviceAuthorizations: [String: DeviceAuthorization] = [:]
    /// Issued tokens by access token.
    var issued: [String: IssuedToken] = [:]
    /// Access token by refresh token, for the refresh grant.
    var accessByRefresh: [String: String] = [:]
}

// MARK: - Yandex OAuth (metrika-api.md §4)

extension Simulator {
    /// How long a device code lives, in seconds.
    static let deviceCodeLifetime = 300
    /// How long issued access tokens live, in seconds (about a year, as on the real service).
    static let accessTokenLifetime = 31_536_000

    /// A Metrika grant for an access token issued here, if it is still valid.
    func issuedGrant(for token: String) -> TokenFixture? {
        let issued = state.withLock { $0.oauth.issued[token] }
        guard let issued, issued.valid else { return nil }
        let template = fixtures.issuedTokenTemplate
        return TokenFixture(
            token: token, login: template.login, counters: template.counters, excluded: template.excluded,
            revoked: false)
    }

    /// `POST /device/code`: `client_id` (+ `device_id`, `device_name`, `scope`).
    func deviceCode(_ request: HTTPRequest) -> HTTPResponse {
        let form = Dictionary(request.formItems, uniquingKeysWith: { first, _ in first })
        guard let clientID = form["client_id"], !clientID.isEmpty else {
            return oauthError(400, "invalid_request", "client_id is required")
        }
        guard fixtures.clients[clientID] != nil else {
            return oauthError(401, "invalid_client", "Client not found")
        }
        let deviceID = form["device_id"].flatMap { $0.isEmpty ? nil : $0 }
        if let deviceID, !(6...50).contains(deviceID.count) {
            return oauthError(400, "invalid_request", "device_id must be 6 to 50 characters long")
        }
        let authorization = DeviceAuthorization(
            deviceCode: Simulator.randomToken(length: 32),
            userCode: Simulator.randomUserCode(),
            clientID: clientID,
            deviceID: deviceID,
            expiresAt: Date().addingTimeInterval(Double(Simulator.deviceCodeLifetime)),
            pendingPollsLeft: options.devicePendingPolls)
        state.withLock { $0.oauth.deviceAuthorizations[authorization.deviceCode] = authorization }
        return .json(
            200,
            .object([
                ("device_code", .string(authorization.deviceCode)),
                ("user_code", .string(authorization.userCode)),
                ("verification_url", .string("https://ya.ru/device")),
                ("interval", .int(options.deviceInterval)),
                ("expires_in", .int(Simulator.deviceCodeLifetime))
            ]))
    }

    /// `POST /token`: the device-code and refresh-token grants.
    func token(_ request: HTTPRequest) -> HTTPResponse {
        let form = Dictionary(request.formItems, uniquingKeysWith: { first, _ in first })
        let client: ClientFixture
        switch authenticateClient(request, form: form) {
        case .failure(let error): return error.response
        case .success(let found): client = found
        }
        switch form["grant_type"] ?? "" {
        case "device_code":
            guard let code = form["code"] ?? form["device_code"], !code.isEmpty else {
                return oauthError(400, "invalid_request", "code is required")
            }
            enum Outcome {
                case pending, invalid
                case issue(deviceID: String?)
            }
            let outcome = state.withLock { s -> Outcome in
                guard var authorization = s.oauth.deviceAuthorizations[code], authorization.clientID == client.clientID,
                    !authorization.redeemed, authorization.expiresAt > Date()
                else { return .invalid }
                if authorization.pendingPollsLeft > 0 {
                    authorization.pendingPollsLeft -= 1
                    s.oauth.deviceAuthorizations[code] = authorization
                    return .pending
                }
                authorization.redeemed = true
                s.oauth.deviceAuthorizations[code] = authorization
                return .issue(deviceID: authorization.deviceID)
            }
            switch outcome {
            case .pending:
                return oauthError(400, "authorization_pending", "User has not yet authorized your application")
            case .invalid:
                return oauthError(400, "invalid_grant", "Code has expired or is invalid")
            case .issue(let deviceID):
                return issueTokens(client: client, deviceID: deviceID, replacing: nil)
            }
        case "refresh_token":
            guard let refresh = form["refresh_token"], !refresh.isEmpty else {
                return oauthError(400, "invalid_request", "refresh_token is required")
            }
            let old = state.withLock { s -> IssuedToken? in
                guard let access = s.oauth.accessByRefresh[refresh], let token = s.oauth.issued[access],
                    token.clientID == client.clientID
                else { return nil }
                return token
            }
            guard let old else { return oauthError(400, "invalid_grant", "Refresh token has expired or is invalid") }
            return issueTokens(client: client, deviceID: old.deviceID, replacing: old)
        case "":
            return oauthError(400, "invalid_request", "grant_type is required")
        case let other:
            return oauthError(400, "unsupported_grant_type", "Grant type \(other) is not supported")
        }
    }

    /// `POST /revoke_token`: `access_token` + client credentials.
    func revokeToken(_ request: HTTPRequest) -> HTTPResponse {
        let form = Dictionary(request.formItems, uniquingKeysWith: { first, _ in first })
        let client: ClientFixture
        switch authenticateClient(request, form: form) {
        case .failure(let error): return error.response
        case .success(let found): client = found
        }
        guard let access = form["access_token"], !access.isEmpty else {
            return oauthError(400, "invalid_request", "access_token is required")
        }
        if fixtures.tokens[access] != nil {
            return oauthError(400, "unsupported_token_type", "Only tokens issued for a device_id can be revoked")
        }
        enum Outcome {
            case revoked, notDevice, unknown
        }
        let outcome = state.withLock { s -> Outcome in
            guard var token = s.oauth.issued[access], token.clientID == client.clientID else { return .unknown }
            guard token.deviceID != nil else { return .notDevice }
            token.valid = false
            s.oauth.issued[access] = token
            s.oauth.accessByRefresh[token.refreshToken] = nil
            return .revoked
        }
        switch outcome {
        case .revoked: return .json(200, .object([("status", .string("ok"))]))
        case .notDevice:
            return oauthError(400, "unsupported_token_type", "Only tokens issued for a device_id can be revoked")
        case .unknown:
            return oauthError(400, "invalid_grant", "Token is invalid or was issued to another client")
        }
    }

    // MARK: - Helpers

    private func issueTokens(client: ClientFixture, deviceID: String?, replacing old: IssuedToken?) -> HTTPResponse {
        let token = IssuedToken(
            accessToken: "y0_sim" + Simulator.randomToken(length: 40),
            refreshToken: "1:sim:" + Simulator.randomToken(length: 40),
            clientID: client.clientID,
            deviceID: deviceID)
        state.withLock { s in
            if let old {
                s.oauth.issued[old.accessToken]?.valid = false
                s.oauth.accessByRefresh[old.refreshToken] = nil
            }
            s.oauth.issued[token.accessToken] = token
            s.oauth.accessByRefresh[token.refreshToken] = token.accessToken
        }
        return .json(
            200,
            .object([
                ("token_type", .string("bearer")),
                ("access_token", .string(token.accessToken)),
                ("expires_in", .int(Simulator.accessTokenLifetime)),
                ("refresh_token", .string(token.refreshToken))
            ]))
    }

    /// The client named by `client_id`/`client_secret` in the form, or by HTTP Basic auth.
    private func authenticateClient(_ request: HTTPRequest, form: [String: String]) -> Result<
        ClientFixture, ResponseError
    > {
        var id = form["client_id"]
        var secret = form["client_secret"]
        if let header = request.header("authorization"), header.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let pair = String(data: data, encoding: .utf8), let colon = pair.firstIndex(of: ":")
        {
            id = id ?? FormCoding.percentDecode(String(pair[..<colon]))
            secret = secret ?? FormCoding.percentDecode(String(pair[pair.index(after: colon)...]))
        }
        guard let id, let client = fixtures.clients[id] else {
            return .failure(ResponseError(oauthError(401, "invalid_client", "Client not found")))
        }
        guard secret == client.clientSecret else {
            return .failure(ResponseError(oauthError(401, "invalid_client", "Wrong client secret")))
        }
        return .success(client)
    }

    func oauthError(_ status: Int, _ code: String, _ description: String) -> HTTPResponse {
        .json(status, .object([("error", .string(code)), ("error_description", .string(description))]))
    }

    static func randomToken(length: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        return String((0..<length).map { _ in alphabet.randomElement()! })
    }

    static func randomUserCode() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        return String((0..<8).map { _ in alphabet.randomElement()! })
    }
}
