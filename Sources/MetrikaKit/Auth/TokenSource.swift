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
            try check(token, source: "METRIKA_TOKEN")
            return ResolvedToken(token: token, source: "METRIKA_TOKEN")
        }
        let file = TokenFile.defaultFile(environment: environment)
        guard file.exists else { throw AuthError.notSignedIn }
        return try read(file)
    }

    static func read(_ file: TokenFile) throws -> ResolvedToken {
        let stored = try file.read()
        try check(stored.accessToken, source: "the token file \(file.path)")
        return ResolvedToken(token: stored.accessToken, source: "token file \(file.path)", path: file.path, stored: stored)
    }

    /// Refuses a token with characters no OAuth token has. A CR or LF inside METRIKA_TOKEN made the
    /// HTTP layer drop the Authorization header without a word (the API then said "not signed in");
    /// other control characters could inject header text. Only visible ASCII is accepted.
    /// Throws `AuthError.malformedToken` (exit 78), which names the kind of character, never the token.
    public static func check(_ token: String, source: String) throws {
        for scalar in token.unicodeScalars where !(0x21...0x7E).contains(scalar.value) {
            let value = scalar.value
            if value < 0x20 || (0x7F...0x9F).contains(value) {
                let what = value == 0x0A || value == 0x0D ? "a line break (CR or LF)" : "a control character"
                throw AuthError.malformedToken(source: source, problem: what + " inside it")
            }
            throw AuthError.malformedToken(source: source, problem: "a space or a non-ASCII character, which a token never has")
        }
    }
}
