#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `$XDG_CONFIG_HOME/metrika/config.json`, the one reader of it: the user's OAuth app, a default
/// counter, and named profiles (token file, API URL, default counter, OAuth app), e.g.
///
///     {"client_id": "…", "client_secret": "…", "counter": 1001,
///      "profiles": {"agency": {"token_file": "agency.json", "api_url": "https://…", "counter": [2001, 2002],
///                              "client_id": "…", "client_secret": "…"}}}
///
/// Every member is optional. An unknown member or one of the wrong type is refused rather than
/// ignored: a misspelt `"countr"` would otherwise silently do nothing.
package struct ConfigFile: Sendable, Equatable {
    /// One named set of sign-in settings (an agency's client account, say).
    package struct Profile: Sendable, Equatable {
        /// The profile's name, as `--profile` names it.
        package var name: String
        /// Its token file, absolute (a relative path in the file is relative to the config directory).
        package var tokenFile: String?
        /// Its API base URL (checked where it is used, like METRIKA_API_URL).
        package var apiURL: String?
        /// Its default counters.
        package var counters: [Int]?
        /// Its OAuth app's client id (above the file's own `client_id`, see `ClientCredentials`).
        package var clientID: String?
        /// Its OAuth app's client secret (the file must then be private).
        package var clientSecret: String?

        /// A profile with the members the file may give it.
        package init(name: String, tokenFile: String? = nil, apiURL: String? = nil, counters: [Int]? = nil, clientID: String? = nil, clientSecret: String? = nil) {
            self.name = name
            self.tokenFile = tokenFile
            self.apiURL = apiURL
            self.counters = counters
            self.clientID = clientID
            self.clientSecret = clientSecret
        }
    }

    /// Where the file is.
    package var path: String
    /// The OAuth app's client id.
    package var clientID: String?
    /// The OAuth app's client secret (the file must then be private).
    package var clientSecret: String?
    /// The counters report, chart and mail use when no `--counter` is given.
    package var counters: [Int]?
    /// The named profiles.
    package var profiles: [String: Profile]
    /// What `metrika alert` checks (the `"alerts"` member), if the file says.
    package var alerts: AlertsConfig? = nil
    /// `"clickhouse_url"`: the default `--clickhouse` of `logs` and `sync` (a URL, or one per shard as
    /// an array or `URL1,URL2`), below `--clickhouse` and METRIKA_CLICKHOUSE_URL.
    package var clickhouseURL: String? = nil
    /// `"clickhouse_cluster"`: the default `--cluster`, below it and METRIKA_CLICKHOUSE_CLUSTER.
    package var clickhouseCluster: String? = nil

    /// `$XDG_CONFIG_HOME/metrika/config.json` (else `~/.config/metrika/config.json`).
    package static func path(environment: [String: String]) -> String {
        TokenSource.configDirectory(environment: environment) + "/config.json"
    }

    /// Reads the file; nil when there is none. Throws `AuthError.badConfigFile` (exit 78) naming the
    /// member at fault when it is not what this describes, or when it holds `client_secret` and
    /// others may read it.
    package static func read(environment: [String: String]) throws -> ConfigFile? {
        let path = path(environment: environment)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        // Strict JSON first (Foundation lets a trailing comma pass), with the place of the mistake.
        guard JSONSyntaxError.locate(in: data) == nil, let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw AuthError.badConfigFile(path: path, reason: notAnObject(data))
        }
        func fail(_ reason: String) -> AuthError { AuthError.badConfigFile(path: path, reason: reason) }
        try checkKeys(object, allowed: ["client_id", "client_secret", "counter", "profiles", "alerts", "clickhouse_url", "clickhouse_cluster"], place: "", fail: fail)
        var config = ConfigFile(path: path, clientID: nil, clientSecret: nil, counters: nil, profiles: [:])
        config.clientID = try text(object["client_id"], "\"client_id\"", fail: fail)
        config.clientSecret = try text(object["client_secret"], "\"client_secret\"", fail: fail)
        config.counters = try counters(object["counter"], "\"counter\"", fail: fail)
        config.alerts = try AlertsConfig.parse(object["alerts"], fail: fail)
        if let urls = object["clickhouse_url"] as? [Any] {
            guard !urls.isEmpty, let texts = urls as? [String], texts.allSatisfy({ !$0.isEmpty }) else {
                throw fail("\"clickhouse_url\" must be a URL or a list of URLs, one per shard")
            }
            config.clickhouseURL = texts.joined(separator: ",")
        } else {
            config.clickhouseURL = try text(object["clickhouse_url"], "\"clickhouse_url\"", fail: fail)
        }
        config.clickhouseCluster = try text(object["clickhouse_cluster"], "\"clickhouse_cluster\"", fail: fail)
        if let value = object["profiles"] {
            guard let profiles = value as? [String: Any] else { throw fail("\"profiles\" must be an object of named profiles") }
            let directory = TokenSource.configDirectory(environment: environment)
            for (name, value) in profiles {
                let place = "profile \"\(name)\""
                guard !name.isEmpty, name.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                    throw fail("a profile name must be visible ASCII without spaces")
                }
                guard let fields = value as? [String: Any] else { throw fail("\(place) must be an object") }
                try checkKeys(fields, allowed: ["token_file", "api_url", "counter", "client_id", "client_secret"], place: " of \(place)", fail: fail)
                let tokenFile = try text(fields["token_file"], "\"token_file\" of \(place)", fail: fail).map { file -> String in
                    if file.hasPrefix("/") { return file }
                    if file.hasPrefix("~/") { return (environment["HOME"] ?? NSHomeDirectory()) + file.dropFirst(1) }
                    return directory + "/" + file
                }
                config.profiles[name] = Profile(
                    name: name, tokenFile: tokenFile, apiURL: try text(fields["api_url"], "\"api_url\" of \(place)", fail: fail),
                    counters: try counters(fields["counter"], "\"counter\" of \(place)", fail: fail),
                    clientID: try text(fields["client_id"], "\"client_id\" of \(place)", fail: fail),
                    clientSecret: try text(fields["client_secret"], "\"client_secret\" of \(place)", fail: fail)
                )
            }
        }
        if config.clientSecret != nil || config.profiles.values.contains(where: { $0.clientSecret != nil }) {
            var info = stat()
            if stat(path, &info) == 0, Int(info.st_mode) & 0o077 != 0 {
                throw fail("it holds client_secret but others may read it (mode \(AuthError.octal(Int(info.st_mode) & 0o777))); run `chmod 600 \(path)`")
            }
        }
        return config
    }

    /// The profile `name` of `config` (the file as read, nil when there is none), which `selector`
    /// (`--profile` or `METRIKA_PROFILE`) chose; throws `AuthError.unknownProfile` (exit 78), naming
    /// the profiles there are, when there is no such profile.
    package static func profile(_ name: String, selectedBy selector: String, in config: ConfigFile?, environment: [String: String]) throws -> Profile {
        guard let profile = config?.profiles[name] else {
            throw AuthError.unknownProfile(
                name: name, selector: selector, path: path(environment: environment), known: (config?.profiles.keys).map { $0.sorted() }
            )
        }
        return profile
    }

    /// Why `data` is not a JSON object, saying where a syntax error is (line, column, what was expected).
    static func notAnObject(_ data: Data) -> String {
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return "it is empty; write {} or remove it" }
        if let error = JSONSyntaxError.locate(in: data) { return "it is not valid JSON at \(error)" }
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let kind = first == UInt8(ascii: "[") ? "a list" : first == UInt8(ascii: "\"") ? "a string" : "a single value"
        return "it holds \(kind), not a JSON object like {\"counter\": 1001}"
    }

    // MARK: - Members

    private static func checkKeys(_ object: [String: Any], allowed: [String], place: String, fail: (String) -> AuthError) throws {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fail("unknown member \"\(unknown)\"\(place) (known: \(allowed.joined(separator: ", ")))")
        }
    }

    private static func text(_ value: Any?, _ what: String, fail: (String) -> AuthError) throws -> String? {
        guard let value else { return nil }
        guard let text = value as? String else { throw fail("\(what) must be a string") }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A counter id or a list of them. JSON numbers arrive as NSNumber, which also carries `true`
    /// and `1.5`: only whole numbers written as such are ids.
    private static func counters(_ value: Any?, _ what: String, fail: (String) -> AuthError) throws -> [Int]? {
        guard let value else { return nil }
        let items = (value as? [Any]) ?? [value]
        let reason = "\(what) must be a counter id or a list of them, like 1001 or [1001, 1002]"
        guard !items.isEmpty else { throw fail(reason) }
        var ids: [Int] = []
        for item in items {
            guard let number = item as? NSNumber, !(item is Bool), "\(number)".allSatisfy(\.isNumber),
                  let id = Int(exactly: number.doubleValue), id > 0 else { throw fail(reason) }
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }
}
