import Foundation
import MetrikaModel

/// What `metrika login` keeps in the token file: the tokens, when they were obtained and expire, and
/// which OAuth app issued them (a refresh token only works with the app that issued it).
package struct StoredToken: Sendable, Equatable {
    /// The token sent as `Authorization: OAuth <accessToken>`. Never print it.
    package var accessToken: String
    /// The token that buys a new access token (`grant_type=refresh_token`); nil for pasted tokens.
    package var refreshToken: String?
    /// When metrika received the token.
    package var obtainedAt: Date
    /// When the access token stops working; nil when unknown (a pasted token without `expires_in`).
    package var expiresAt: Date?
    /// The OAuth app (client id) that issued the token; nil when unknown.
    package var clientID: String?
    /// The scopes `metrika login` asked for (`metrika:read`, `metrika:write` with `--scope write`);
    /// nil when unknown (a file written by hand or by an older metrika): then it holds no write scope.
    package var scopes: [String]?

    /// A token with the fields the token file holds.
    package init(
        accessToken: String, refreshToken: String? = nil, obtainedAt: Date, expiresAt: Date? = nil,
        clientID: String? = nil, scopes: [String]? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.obtainedAt = obtainedAt
        self.expiresAt = expiresAt
        self.clientID = clientID
        self.scopes = scopes
    }

    /// The scope that writing (`metrika annotate`) needs.
    package static let writeScope = "metrika:write"

    /// Whether the token was granted the scope that writing needs, as far as the file knows.
    package var canWrite: Bool { scopes?.contains(Self.writeScope) == true }

    /// A stored token made from what the OAuth server granted at `now`. A grant without a new
    /// refresh token keeps `previous`'s (Yandex may or may not rotate refresh tokens).
    package init(grant: TokenGrant, obtainedAt now: Date, clientID: String?, previous: StoredToken? = nil) {
        self.accessToken = grant.accessToken
        self.refreshToken = grant.refreshToken ?? previous?.refreshToken
        self.obtainedAt = now
        self.expiresAt = grant.expiresIn.map { now.addingTimeInterval(Double($0)) }
        self.clientID = clientID ?? previous?.clientID
        self.scopes = previous?.scopes
    }

    /// Seconds of validity left at `now` (negative once expired); nil when the expiry is unknown.
    package func secondsLeft(at now: Date) -> Double? {
        expiresAt.map { $0.timeIntervalSince(now) }
    }

    // MARK: - File format

    /// The token file's JSON: a versioned object with snake_case keys in a fixed order and UTC
    /// timestamps, so that the same token always gives the same bytes.
    package func encoded() -> Data {
        var lines = ["{", "  \"version\": 1,", "  \"access_token\": \(Self.quote(accessToken)),"]
        if let refreshToken { lines.append("  \"refresh_token\": \(Self.quote(refreshToken)),") }
        lines.append("  \"obtained_at\": \(Self.quote(Self.timestamp(obtainedAt))),")
        if let expiresAt { lines.append("  \"expires_at\": \(Self.quote(Self.timestamp(expiresAt))),") }
        if let clientID { lines.append("  \"client_id\": \(Self.quote(clientID)),") }
        if let scopes { lines.append("  \"scope\": \(Self.quote(scopes.joined(separator: " "))),") }
        // The last member must not end with a comma.
        lines[lines.count - 1].removeLast()
        lines.append("}")
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Reads the token file's JSON. Only `access_token` is required, so files written by hand (or by
    /// an older metrika) still work; unknown members are ignored.
    package static func decode(_ data: Data) -> StoredToken? {
        TokenFileMembers.decode(data).flatMap(StoredToken.init(members:))
    }

    /// The token the file's members hold; nil without an `access_token`.
    package init?(members file: TokenFileMembers) {
        guard let access = file.accessToken else { return nil }
        self.init(
            accessToken: access,
            refreshToken: file.refreshToken,
            obtainedAt: file.obtainedAt.flatMap(Self.parseTimestamp) ?? Date(timeIntervalSince1970: 0),
            expiresAt: file.expiresAt.flatMap(Self.parseTimestamp),
            clientID: file.clientID,
            scopes: file.scope.map { $0.split(separator: " ").map(String.init) }
        )
    }

    /// `2026-06-15T12:00:00Z`: RFC 3339 in UTC, whole seconds.
    package static func timestamp(_ date: Date) -> String {
        RFC3339.format(date)
    }

    /// `2026-06-15`, the UTC day of an instant (for messages).
    package static func day(_ date: Date) -> String {
        String(timestamp(date).prefix(10))
    }

    static func parseTimestamp(_ text: String) -> Date? {
        RFC3339.parse(text)
    }

    /// A JSON string literal; escapes quotes, backslashes and control characters.
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// The token file's members as `Decodable` reads them: a token (`access_token` …) or the note that
/// the token is in a keyring (`store`, `account`). Files written by hand or by an older metrika are
/// read too: a member of another type counts as absent, a text is trimmed and a blank one is
/// absent, unknown members are ignored.
package struct TokenFileMembers: Decodable, Sendable, Equatable {
    package var accessToken: String?
    package var refreshToken: String?
    package var obtainedAt: String?
    package var expiresAt: String?
    package var clientID: String?
    /// The scopes login asked for, space-separated as OAuth writes them.
    package var scope: String?
    /// The keyring note's store (`secret-service`, `keychain`): kept as written.
    package var store: String?
    /// The keyring note's account: kept as written.
    package var account: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case obtainedAt = "obtained_at"
        case expiresAt = "expires_at"
        case clientID = "client_id"
        case scope
        case store
        case account
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) -> String? {
            let text = try? container.decode(String.self, forKey: key)
            let value = text?.trimmingCharacters(in: .whitespacesAndNewlines)
            return value?.isEmpty == false ? value : nil
        }
        accessToken = text(.accessToken)
        refreshToken = text(.refreshToken)
        obtainedAt = text(.obtainedAt)
        expiresAt = text(.expiresAt)
        clientID = text(.clientID)
        scope = text(.scope)
        store = try? container.decode(String.self, forKey: .store)
        account = try? container.decode(String.self, forKey: .account)
    }

    /// The members of `data`; nil when it is not one JSON object.
    package static func decode(_ data: Data) -> TokenFileMembers? {
        try? JSONDecoder().decode(TokenFileMembers.self, from: data)
    }
}
