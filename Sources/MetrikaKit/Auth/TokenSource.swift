import Foundation

/// Where the OAuth token came from, and the token itself. Never print `token`.
public struct ResolvedToken: Sendable {
    /// The access token. Never print it: show `TokenMask.mask(token)`.
    public var token: String
    /// A human description of the source: `METRIKA_TOKEN`, or `token file /path`.
    public var source: String
    /// The file the token was read from, if any (refresh writes back to it).
    public var path: String?
    /// Everything the token file holds (refresh token, expiry, client id); nil for METRIKA_TOKEN.
    public var stored: StoredToken?

    /// A resolved token; `stored` is the token file's content when it came from one.
    public init(token: String, source: String, path: String? = nil, stored: StoredToken? = nil) {
        self.token = token
        self.source = source
        self.path = path
        self.stored = stored
    }
}

/// Finding the token: `--token-file PATH`, else `METRIKA_TOKEN`, else the default token file.
public enum TokenSource {
    /// `$XDG_CONFIG_HOME/metrika/token.json`, else `~/.config/metrika/token.json`.
    public static func defaultPath(environment: [String: String]) -> String {
        configDirectory(environment: environment) + "/token.json"
    }

    /// `$XDG_CONFIG_HOME/metrika`, else `~/.config/metrika` (a relative XDG_CONFIG_HOME is ignored,
    /// as the XDG spec says).
    public static func configDirectory(environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/metrika"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/metrika"
    }

    /// Resolves the token or throws `AuthError.notSignedIn` (exit 77) saying how to sign in.
    /// A token file must be private to its owner (mode 0600 or stricter), or it is refused.
    public static func resolve(tokenFile: String?, environment: [String: String]) throws -> ResolvedToken {
        if let tokenFile {
            return try read(TokenFile(path: tokenFile))
        }
        if let token = environment["METRIKA_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty {
            return ResolvedToken(token: token, source: "METRIKA_TOKEN")
        }
        let file = TokenFile.defaultFile(environment: environment)
        guard file.exists else { throw AuthError.notSignedIn }
        return try read(file)
    }

    static func read(_ file: TokenFile) throws -> ResolvedToken {
        let stored = try file.read()
        return ResolvedToken(token: stored.accessToken, source: "token file \(file.path)", path: file.path, stored: stored)
    }
}
