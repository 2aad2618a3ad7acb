import Foundation
import MetrikaSystem

/// Where the OAuth token came from, and the token itself. Never print `token`.
package struct ResolvedToken: Sendable {
    /// The access token. Never print it: show `TokenMask.mask(token)`.
    package var token: String
    /// A human description of the source: `METRIKA_TOKEN`, or `token file /path`.
    package var source: String
    /// The file the token was read from, if any (refresh writes back to it).
    package var path: String?
    /// Everything the token file holds (refresh token, expiry, client id); nil for METRIKA_TOKEN.
    package var stored: StoredToken?
    /// The keyring entry holding the token when `path` only notes where it is (renewal writes there).
    package var keyring: Keyring?

    /// A resolved token; `stored` is the token file's (or keyring entry's) content when it came from one.
    package init(
        token: String, source: String, path: String? = nil, stored: StoredToken? = nil, keyring: Keyring? = nil
    ) {
        self.token = token
        self.source = source
        self.path = path
        self.stored = stored
        self.keyring = keyring
    }
}

/// Finding the token: `--token-file PATH`, else `METRIKA_TOKEN`, else the profile's token file, else
/// the default token file. A token file may instead note that the token is in the system keyring.
package enum TokenSource {
    /// `$XDG_CONFIG_HOME/metrika/token.json`, else `~/.config/metrika/token.json`.
    package static func defaultPath(environment: [String: String]) -> String {
        ConfigFile.directory(environment: environment) + "/token.json"
    }

    /// Resolves the token or throws `AuthError.notSignedIn` (exit 77) saying how to sign in.
    /// A token file must be private to its owner (mode 0600 or stricter), or it is refused.
    package static func resolve(tokenFile: String?, profile: ConfigFile.Profile? = nil, environment: [String: String])
        async throws -> ResolvedToken
    {
        if let tokenFile {
            return try await read(TokenFile(path: tokenFile), environment: environment)
        }
        if let token = environment["METRIKA_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty {
            try check(token, source: "METRIKA_TOKEN")
            return ResolvedToken(token: token, source: "METRIKA_TOKEN")
        }
        if let profile {
            let file = TokenFile(path: profileTokenPath(profile, environment: environment))
            guard file.exists else { throw AuthError.notSignedInProfile(name: profile.name, path: file.path) }
            return try await read(file, environment: environment)
        }
        let file = TokenFile.defaultFile(environment: environment)
        guard file.exists else { throw AuthError.notSignedIn }
        return try await read(file, environment: environment)
    }

    /// The profile's token file: its `token_file`, else `token-<name>.json` in the config directory,
    /// so that each profile keeps its own sign-in without naming a file.
    package static func profileTokenPath(_ profile: ConfigFile.Profile, environment: [String: String]) -> String {
        profile.tokenFile ?? ConfigFile.directory(environment: environment) + "/token-\(profile.name).json"
    }

    /// Reads a token file, and the keyring entry when the file notes that the token is there.
    package static func read(_ file: TokenFile, environment: [String: String]) async throws -> ResolvedToken {
        switch try file.readContent() {
        case .token(let stored):
            try check(stored.accessToken, source: "the token file \(file.path)")
            return ResolvedToken(
                token: stored.accessToken, source: "token file \(file.path)", path: file.path, stored: stored)
        case .keyring(let kind, let account):
            let keyring = Keyring(kind: kind, account: account, environment: environment)
            guard let data = try await keyring.lookup() else {
                throw AuthError.keyringEntryMissing(path: file.path, keyring: keyring.displayName)
            }
            let source = "\(keyring.displayName) (noted in \(file.path))"
            guard let stored = StoredToken.decode(data) else {
                throw AuthError.keyringEntryUnreadable(path: file.path, keyring: keyring.displayName)
            }
            try check(stored.accessToken, source: source)
            return ResolvedToken(
                token: stored.accessToken, source: source, path: file.path, stored: stored, keyring: keyring)
        }
    }

    /// Refuses a token with characters no OAuth token has. A CR or LF inside METRIKA_TOKEN made the
    /// HTTP layer drop the Authorization header without a word (the API then said "not signed in");
    /// other control characters could inject header text. Only visible ASCII is accepted.
    /// Throws `AuthError.malformedToken` (exit 78), which names the kind of character, never the token.
    package static func check(_ token: String, source: String) throws {
        for scalar in token.unicodeScalars where !(0x21...0x7E).contains(scalar.value) {
            let value = scalar.value
            if value < 0x20 || (0x7F...0x9F).contains(value) {
                let what = value == 0x0A || value == 0x0D ? "a line break (CR or LF)" : "a control character"
                throw AuthError.malformedToken(source: source, problem: what + " inside it")
            }
            throw AuthError.malformedToken(
                source: source, problem: "a space or a non-ASCII character, which a token never has")
        }
    }
}
