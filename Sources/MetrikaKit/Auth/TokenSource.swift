import Foundation

/// Where the OAuth token came from, and the token itself. Never print `token`.
public struct ResolvedToken: Sendable {
    public var token: String
    /// A human description of the source: `METRIKA_TOKEN`, or `token file /path`.
    public var source: String
    /// The file the token was read from, if any (refresh writes back to it).
    public var path: String?

    public init(token: String, source: String, path: String? = nil) {
        self.token = token
        self.source = source
        self.path = path
    }
}

/// Finding the token: `--token-file PATH`, else `METRIKA_TOKEN`, else the default token file.
public enum TokenSource {
    /// `$XDG_CONFIG_HOME/metrika/token.json`, else `~/.config/metrika/token.json`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/metrika/token.json"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.config/metrika/token.json"
    }

    /// Resolves the token or throws `AuthError.notSignedIn` (exit 77) saying how to sign in.
    public static func resolve(tokenFile: String?, environment: [String: String]) throws -> ResolvedToken {
        if let tokenFile {
            return try read(path: tokenFile, explicit: true)
        }
        if let token = environment["METRIKA_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty {
            return ResolvedToken(token: token, source: "METRIKA_TOKEN")
        }
        let path = defaultPath(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else { throw AuthError.notSignedIn }
        return try read(path: path, explicit: false)
    }

    static func read(path: String, explicit: Bool) throws -> ResolvedToken {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuthError.unreadableTokenFile(path: path, reason: explicit ? "it does not exist or cannot be read" : "it cannot be read")
        }
        struct File: Decodable { let access_token: String? }
        if let file = try? JSONDecoder().decode(File.self, from: data), let token = file.access_token, !token.isEmpty {
            return ResolvedToken(token: token, source: "token file \(path)", path: path)
        }
        // A bare token on one line is accepted too (people paste one into a file).
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty, !text.contains(where: { $0.isWhitespace || $0 == "{" }) {
            return ResolvedToken(token: text, source: "token file \(path)", path: path)
        }
        throw AuthError.unreadableTokenFile(path: path, reason: "it holds no access_token")
    }
}

/// Sign-in problems a user can meet.
public enum AuthError: MetrikaFailure, Equatable {
    case notSignedIn
    case unreadableTokenFile(path: String, reason: String)

    public var exitCode: Int32 {
        switch self {
        case .notSignedIn: return ExitCode.noPermission
        case .unreadableTokenFile: return ExitCode.noPermission
        }
    }

    public var message: String {
        switch self {
        case .notSignedIn:
            return "Not signed in: no token found. Run `metrika login` (or set METRIKA_TOKEN) first."
        case .unreadableTokenFile(let path, let reason):
            return "Cannot use the token file \(path): \(reason). Run `metrika login` to write a new one."
        }
    }
}
