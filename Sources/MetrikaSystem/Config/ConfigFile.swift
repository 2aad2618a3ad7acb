import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
        /// Its Telegram bot token and chats (the file must then be private if it holds a token).
        package var telegram: TelegramConfig? = nil
        /// `"ulogin"`: the account a representative acts for; every request of the profile carries it.
        package var ulogin: String? = nil
        /// `"login"`: the Yandex login its token signs in as, which the quota ledger counts its
        /// requests against (profiles of one login share its quotas); default: the profile's name.
        package var login: String? = nil

        /// A profile with the members the file may give it.
        package init(
            name: String, tokenFile: String? = nil, apiURL: String? = nil, counters: [Int]? = nil,
            clientID: String? = nil, clientSecret: String? = nil
        ) {
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
    /// The profiles' names in the file's order (`--profile all` and the owner rule follow it).
    package var profileOrder: [String] = []
    /// What `metrika alert` checks (the `"alerts"` member), if the file says.
    package var alerts: AlertsConfig? = nil
    /// `"clickhouse_url"`: the default `--clickhouse` of `logs` and `sync` (a URL, or one per shard as
    /// an array or `URL1,URL2`), below `--clickhouse` and METRIKA_CLICKHOUSE_URL.
    package var clickhouseURL: String? = nil
    /// `"clickhouse_cluster"`: the default `--cluster`, below it and METRIKA_CLICKHOUSE_CLUSTER.
    package var clickhouseCluster: String? = nil
    /// `"telegram"`: the bot token and the default chats of `--telegram` (a token makes the file a secret's).
    package var telegram: TelegramConfig? = nil

    /// A config as the file at `path` would give it (tests and callers that build one by hand).
    package init(
        path: String, clientID: String? = nil, clientSecret: String? = nil, counters: [Int]? = nil,
        profiles: [String: Profile] = [:]
    ) {
        self.path = path
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.counters = counters
        self.profiles = profiles
    }

    /// `$XDG_CONFIG_HOME/metrika/config.json` (else `~/.config/metrika/config.json`).
    package static func path(environment: [String: String]) -> String {
        directory(environment: environment) + "/config.json"
    }

    /// `$XDG_CONFIG_HOME/metrika`, else `~/.config/metrika` (a relative XDG_CONFIG_HOME is ignored,
    /// as the XDG spec says): where the config file and the token files live.
    package static func directory(environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/metrika"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/metrika"
    }

    /// What reading the file's bytes gave.
    package enum Contents: Sendable, Equatable {
        /// No file there (nor the directory it would be in).
        case absent
        case bytes(Data)
        /// A directory where the file should be.
        case directory
        /// The file is there but could not be read: `errno` of the failed open or read.
        case unreadable(errno: Int32)
    }

    /// The bytes at `path`, telling a missing file from one that cannot be read.
    package static func contents(atPath path: String) -> Contents {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            return error == ENOENT || error == ENOTDIR ? .absent : .unreadable(errno: error)
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR { return .directory }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return .bytes(data) }
            if count < 0 {
                if errno == EINTR { continue }
                return errno == EISDIR ? .directory : .unreadable(errno: errno)
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Reads the file; nil when there is none. Throws a `ConfigError` (exit 78) naming the member at
    /// fault when it is not what this describes, when it holds `client_secret` and others may read
    /// it, or when it cannot be read at all (permissions, a directory in its place): a file that is
    /// there is never taken for none. `load` is the reading (tests inject its failures).
    package static func read(environment: [String: String], load: (String) -> Contents = contents(atPath:)) throws
        -> ConfigFile?
    {
        let path = path(environment: environment)
        let data: Data
        switch load(path) {
        case .absent: return nil
        case .bytes(let bytes): data = bytes
        case .directory: throw ConfigError.unreadableFile(path: path, reason: .directory)
        case .unreadable(let error): throw ConfigError.unreadableFile(path: path, reason: .errno(error))
        }
        // Strict JSON first, with the place of the mistake; then one object, decoded member by member.
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard JSONSyntaxError.locate(in: data) == nil, first == UInt8(ascii: "{") else {
            throw ConfigError.notAnObject(path: path, problem: notAnObject(data))
        }
        let decoder = JSONDecoder()
        decoder.userInfo[.configPath] = path
        var config: ConfigFile
        do {
            config = try decoder.decode(ConfigFile.self, from: data)
        } catch let error as ConfigError {
            throw error
        } catch {
            // The syntax is checked above: what JSONDecoder still refuses (a number beyond any
            // Double) is no value this file can hold.
            throw ConfigError.notAnObject(path: path, problem: "it is not valid JSON")
        }
        config.profileOrder = Self.profileOrder(in: data).filter { config.profiles[$0] != nil }
        for name in config.profiles.keys.sorted() where !config.profileOrder.contains(name) {
            config.profileOrder.append(name)
        }
        // A profile's relative token file is relative to the config directory.
        let directory = directory(environment: environment)
        for (name, profile) in config.profiles {
            config.profiles[name]?.tokenFile = profile.tokenFile.map { file -> String in
                if file.hasPrefix("/") { return file }
                if file.hasPrefix("~/") { return (environment["HOME"] ?? NSHomeDirectory()) + file.dropFirst(1) }
                return directory + "/" + file
            }
        }
        let secret: String?
        if config.clientSecret != nil || config.profiles.values.contains(where: { $0.clientSecret != nil }) {
            secret = "client_secret"
        } else if config.telegram?.token != nil || config.profiles.values.contains(where: { $0.telegram?.token != nil })
        {
            secret = "a Telegram bot token"
        } else {
            secret = nil
        }
        if let secret {
            var info = stat()
            if stat(path, &info) == 0, Int(info.st_mode) & 0o077 != 0 {
                throw ConfigError.readableSecret(path: path, mode: Int(info.st_mode) & 0o777, secret: secret)
            }
        }
        return config
    }

    /// The profile `name` of `config` (the file as read, nil when there is none), which `selector`
    /// (`--profile` or `METRIKA_PROFILE`) chose; throws `ConfigError.unknownProfile` (exit 78), naming
    /// the profiles there are, when there is no such profile.
    package static func profile(
        _ name: String, selectedBy selector: String, in config: ConfigFile?, environment: [String: String]
    ) throws -> Profile {
        guard let profile = config?.profiles[name] else {
            throw ConfigError.unknownProfile(
                name: name, selector: selector, path: path(environment: environment),
                known: (config?.profiles.keys).map { $0.sorted() }
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
}

// MARK: - Decoding

extension ConfigFile: Decodable {
    /// The members the top object may have.
    static let keys = [
        "client_id", "client_secret", "counter", "profiles", "alerts", "clickhouse_url", "clickhouse_cluster",
        "telegram"
    ]

    /// The file's top object; the path is the decoder's `userInfo[.configPath]`. A profile's
    /// `token_file` is kept as written (`read` resolves it against the config directory).
    package init(from decoder: any Decoder) throws {
        let members = try ConfigMembers(decoder, place: .top, allowed: Self.keys) {
            .notAnObject(path: $0, problem: "it is not a JSON object")
        }
        self.init(path: members.path)
        clientID = try members.text("client_id")
        clientSecret = try members.text("client_secret")
        counters = try members.counters("counter")
        alerts = try members.object(AlertsConfig.self, "alerts")
        telegram = try members.object(TelegramConfig.self, "telegram")
        let shards = members.bad("clickhouse_url", "a URL or a list of URLs, one per shard")
        if (try? members.value([AnyConfigValue].self, "clickhouse_url", refusal: shards)) != nil {
            let urls = try members.value([String].self, "clickhouse_url", refusal: shards) ?? []
            guard !urls.isEmpty, urls.allSatisfy({ !$0.isEmpty }) else { throw shards }
            clickhouseURL = urls.joined(separator: ",")
        } else {
            clickhouseURL = try members.text("clickhouse_url")
        }
        clickhouseCluster = try members.text("clickhouse_cluster")
        let profileObjects = try members.namedObjects(
            "profiles", refusal: members.bad("profiles", "an object of named profiles"))
        for (name, decoder) in profileObjects {
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw ConfigError.badProfileName(path: members.path)
            }
            profiles[name] = try Profile(from: decoder)
        }
    }
}

extension ConfigFile.Profile: Decodable {
    /// The members a profile may have.
    static let keys = [
        "token_file", "api_url", "counter", "client_id", "client_secret", "telegram", "ulogin", "login"
    ]

    /// A profile, named by the key it is under.
    package init(from decoder: any Decoder) throws {
        let name = decoder.codingPath.last?.stringValue ?? ""
        let members = try ConfigMembers(decoder, place: .profile(name), allowed: Self.keys) {
            .profileNotAnObject(path: $0, name: name)
        }
        self.init(
            name: name, tokenFile: try members.text("token_file"), apiURL: try members.text("api_url"),
            counters: try members.counters("counter"), clientID: try members.text("client_id"),
            clientSecret: try members.text("client_secret"))
        telegram = try members.object(TelegramConfig.self, "telegram")
        ulogin = try members.text("ulogin")
        login = try members.text("login")
    }
}

extension ConfigFile {
    /// The keys of the top object's `"profiles"` object, in the order the file writes them (a
    /// decoded dictionary forgets it). `data` is valid JSON (checked before).
    static func profileOrder(in data: Data) -> [String] {
        let bytes = [UInt8](data)
        var index = 0
        var depth = 0
        var names: [String] = []
        var inProfiles = false
        var profilesDepth = 0
        var expectingKey = false
        var lastKeyAtTop: String?
        func readString() -> String {
            var raw: [UInt8] = [UInt8(ascii: "\"")]
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                raw.append(byte)
                index += 1
                if byte == UInt8(ascii: "\\"), index < bytes.count {
                    raw.append(bytes[index])
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    break
                }
            }
            return (try? JSONDecoder().decode(String.self, from: Data(raw))) ?? ""
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let text = readString()
                if expectingKey {
                    if depth == 1 { lastKeyAtTop = text }
                    if inProfiles, depth == profilesDepth { names.append(text) }
                }
                expectingKey = false
                continue
            case UInt8(ascii: "{"):
                depth += 1
                if depth == 2, lastKeyAtTop == "profiles", !inProfiles {
                    inProfiles = true
                    profilesDepth = 2
                }
                expectingKey = true
            case UInt8(ascii: "}"):
                if inProfiles, depth == profilesDepth { inProfiles = false }
                depth -= 1
            case UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: ","):
                expectingKey = true
            default:
                break
            }
            index += 1
        }
        return names
    }
}

/// read(2), reachable from inside `ConfigFile` (whose static `read` would shadow it).
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
