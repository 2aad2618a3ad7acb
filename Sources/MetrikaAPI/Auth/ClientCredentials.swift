#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The user's own registered OAuth app: its client id and (for device login, refresh and revoke)
/// its secret. The secret is not a token, but it is treated the same way: never printed.
public struct ClientCredentials: Sendable, Equatable {
    /// The app's client id.
    public var clientID: String
    /// The app's client secret, when known.
    public var clientSecret: String?
    /// Where they came from, for messages: `--client-id`, `METRIKA_CLIENT_ID`, or the config file.
    public var source: String

    /// Credentials from a known source.
    public init(clientID: String, clientSecret: String?, source: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.source = source
    }

    /// `$XDG_CONFIG_HOME/metrika/config.json`.
    public static func configPath(environment: [String: String]) -> String {
        ConfigFile.path(environment: environment)
    }

    /// The credentials in order: options, then METRIKA_CLIENT_ID / METRIKA_CLIENT_SECRET, then the
    /// config file (`{"client_id": …, "client_secret": …}`). The secret is taken from the same
    /// level as the id, or a later one (a secret from elsewhere would belong to another app only if
    /// the user mixed apps, and then the server says invalid_client). Nil when no id is known.
    public static func resolve(clientID optionID: String?, clientSecret optionSecret: String?, environment: [String: String]) throws -> ClientCredentials? {
        try resolve(clientID: optionID, clientSecret: optionSecret, environment: environment, configFile: { try ConfigFile.read(environment: environment) })
    }

    /// The same, with the config file from `configFile` (a caller that has read it already passes
    /// its copy, so one run reads the file once).
    public static func resolve(
        clientID optionID: String?, clientSecret optionSecret: String?, environment: [String: String], configFile: () throws -> ConfigFile?
    ) throws -> ClientCredentials? {
        func clean(_ value: String?) -> String? {
            guard let value = value?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
            return value
        }
        let envID = clean(environment["METRIKA_CLIENT_ID"])
        let envSecret = clean(environment["METRIKA_CLIENT_SECRET"])
        let config = try configFile().map { (id: $0.clientID, secret: $0.clientSecret) }
        if let id = clean(optionID) {
            return ClientCredentials(clientID: id, clientSecret: clean(optionSecret) ?? envSecret ?? config?.secret, source: "--client-id")
        }
        if let id = envID {
            return ClientCredentials(clientID: id, clientSecret: clean(optionSecret) ?? envSecret ?? config?.secret, source: "METRIKA_CLIENT_ID")
        }
        if let config, let id = config.id {
            return ClientCredentials(clientID: id, clientSecret: clean(optionSecret) ?? envSecret ?? config.secret, source: "config file \(configPath(environment: environment))")
        }
        return nil
    }

    /// The credentials to use with a token issued to `clientID` (refresh, revoke): the configured
    /// ones when they are for that app; otherwise the id alone.
    public static func forIssuer(_ clientID: String?, environment: [String: String]) throws -> ClientCredentials? {
        try forIssuer(clientID, environment: environment, configFile: { try ConfigFile.read(environment: environment) })
    }

    /// The same, with the config file from `configFile` (see `resolve(…configFile:)`).
    public static func forIssuer(_ clientID: String?, environment: [String: String], configFile: () throws -> ConfigFile?) throws -> ClientCredentials? {
        let configured = try resolve(clientID: nil, clientSecret: nil, environment: environment, configFile: configFile)
        guard let clientID else { return configured }
        if let configured, configured.clientID == clientID { return configured }
        return ClientCredentials(clientID: clientID, clientSecret: nil, source: "the token file")
    }
}
