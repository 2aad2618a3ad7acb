import Foundation
import MetrikaModel
import MetrikaSystem

/// The user's own registered OAuth app: its client id and (for device login, refresh and revoke)
/// its secret. The secret is not a token, but it is treated the same way: never printed.
///
/// Login, renewal, `auth status` and logout all get them from `resolve`, the one rule: the id and the
/// secret are each taken from the first place that has one, in the order option > environment
/// (METRIKA_CLIENT_ID, METRIKA_CLIENT_SECRET, each on its own) > profile > config file > token file
/// (the id of the app that issued the stored token; it holds no secret).
package struct ClientCredentials: Sendable, Equatable {
    /// The app's client id.
    package var clientID: String
    /// The app's client secret, when known.
    package var clientSecret: String?
    /// Where the id came from, for messages: `--client-id`, `METRIKA_CLIENT_ID`, `profile 'x'`, …
    package var source: String
    /// Where the secret came from, for messages; nil when there is no secret.
    package var secretSource: String?

    /// Credentials from known sources.
    package init(clientID: String, clientSecret: String?, source: String, secretSource: String? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.source = source
        self.secretSource = clientSecret == nil ? nil : secretSource ?? source
    }

    /// `$XDG_CONFIG_HOME/metrika/config.json`.
    package static func configPath(environment: [String: String]) -> String {
        ConfigFile.path(environment: environment)
    }

    /// One place that may name the app.
    private struct Place {
        var idSource: String
        var secretSource: String
        var id: String?
        var secret: String?
    }

    /// The app's credentials by the one precedence: option > environment > profile > config file >
    /// token file (`tokenClientID`, the app that issued the stored token). The id and the secret are
    /// looked up each on its own, so METRIKA_CLIENT_SECRET alone completes the id a token file holds;
    /// a secret is skipped where the same place names another app's id (it is that app's secret).
    /// Nil when no place names an id.
    package static func resolve(
        clientID optionID: String?, clientSecret optionSecret: String?, environment: [String: String],
        profile: ConfigFile.Profile?, config: ConfigFile?, tokenClientID: String?
    ) -> ClientCredentials? {
        func clean(_ value: String?) -> String? {
            guard let value = value?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
            return value
        }
        var places = [
            Place(
                idSource: "--client-id", secretSource: "--client-secret", id: clean(optionID),
                secret: clean(optionSecret)),
            Place(
                idSource: "METRIKA_CLIENT_ID", secretSource: "METRIKA_CLIENT_SECRET",
                id: clean(environment["METRIKA_CLIENT_ID"]), secret: clean(environment["METRIKA_CLIENT_SECRET"]))
        ]
        if let profile {
            let name = "profile '\(profile.name)'"
            places.append(
                Place(
                    idSource: name, secretSource: name, id: clean(profile.clientID), secret: clean(profile.clientSecret)
                ))
        }
        if let config {
            let name = "the config file \(config.path)"
            places.append(
                Place(
                    idSource: name, secretSource: name, id: clean(config.clientID), secret: clean(config.clientSecret)))
        }
        places.append(
            Place(idSource: "the token file", secretSource: "the token file", id: clean(tokenClientID), secret: nil))
        guard let named = places.first(where: { $0.id != nil }), let id = named.id else { return nil }
        let secret = places.first { $0.secret != nil && ($0.id == nil || $0.id == id) }
        return ClientCredentials(
            clientID: id, clientSecret: secret?.secret, source: named.idSource, secretSource: secret?.secretSource)
    }

    /// The credentials that can renew or revoke a token issued to the app `issuer` (nil when the token
    /// file does not say): `resolved` must be complete (id and secret) and be that app. A refresh token
    /// works only with the app that issued it, so another app's credentials are never sent for it.
    package static func forToken(issuer: String?, resolved: ClientCredentials?) -> Result<
        ClientCredentials, AppCredentialsProblem
    > {
        guard let resolved else { return .failure(.noClientID) }
        if let issuer, issuer != resolved.clientID {
            return .failure(.anotherApp(issuer: issuer, configured: resolved.clientID, source: resolved.source))
        }
        guard resolved.clientSecret != nil else { return .failure(.noClientSecret(clientID: resolved.clientID)) }
        return .success(resolved)
    }
}

/// Why the app's credentials cannot renew or revoke a stored token. `reason` is one clause, safe to
/// print (it names ids and places, never a secret), with what to set.
package enum AppCredentialsProblem: Error, Sendable, Equatable {
    /// No place names a client id, and the token file does not say which app issued the token.
    case noClientID
    /// The app is known but no place holds its secret.
    case noClientSecret(clientID: String)
    /// `source` names the app `configured`, but the token was issued to `issuer`.
    case anotherApp(issuer: String, configured: String, source: String)

    /// The clause for messages, without a final period, its fix in the entry point's words.
    package func reason(_ naming: ParameterNaming) -> String {
        switch self {
        case .noClientID:
            return "no OAuth app is known for this token: \(naming.action(.giveAppCredentials))"
        case .noClientSecret(let clientID):
            return "no client secret for the app \(clientID): \(naming.action(.giveAppSecret))"
        case .anotherApp(let issuer, let configured, let source):
            return
                "the token was issued to the app \(issuer), but \(source) names the app \(configured): give \(issuer)'s id and secret instead"
        }
    }
}
