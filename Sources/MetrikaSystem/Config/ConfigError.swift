import Foundation
import MetrikaModel

/// A configuration metrika cannot use: the config file (`ConfigFile`, its `"alerts"` member too), a
/// profile it does not define, or a URL setting that would send a secret over plain http. Every case
/// carries what its message names; the one-line message and the exit status (78, EX_CONFIG) are
/// derived here, and nowhere else.
package enum ConfigError: WordedFailure, Equatable {
    /// Where in the config file a member is: at the top, in a profile, or in `"alerts"`.
    package enum Place: Sendable, Equatable {
        case top
        case profile(String)
        case alerts
    }

    /// The file at `path` is not one JSON object; `problem` says what it is instead (empty, a syntax
    /// error at a line and column, a list, a single value).
    case notAnObject(path: String, problem: String)
    /// A member metrika does not know (a misspelt one would otherwise silently do nothing).
    case unknownMember(path: String, member: String, place: Place, known: [String])
    /// A member holds a value of the wrong kind or range; `expected` is what it must be.
    case badMember(path: String, member: String, place: Place, expected: String)
    /// A key of `"profiles"` is not visible ASCII without spaces.
    case badProfileName(path: String)
    /// The profile `name` is not an object.
    case profileNotAnObject(path: String, name: String)
    /// The file holds `secret` (`client_secret`, a Telegram bot token) but others may read it
    /// (`mode`: its permission bits).
    case readableSecret(path: String, mode: Int, secret: String = "client_secret")
    /// A Telegram delivery was asked for, but no bot token was given (METRIKA_TELEGRAM_TOKEN or the
    /// `"telegram"` member of the config file at `path`).
    case missingTelegramToken(path: String)
    /// The config's `"telegram"` `"keyring"` names the entry `account`, which `keyring` (its display
    /// name) does not hold; `store` is the command that stores it.
    case missingTelegramKeyringEntry(account: String, keyring: String, store: String)
    /// `selector` (`--profile` or `METRIKA_PROFILE`) names a profile the config file at `path` does
    /// not define; `known` are the ones it does, nil when there is no config file.
    case unknownProfile(name: String, selector: String, path: String, known: [String]?)
    /// `setting` (`METRIKA_API_URL`, `The ClickHouse URL`) is `url`, plain http to `host`, which is not
    /// this machine: `secret` would cross the network unencrypted (see `PlainHTTPPolicy`).
    case plainHTTP(setting: String, url: String, host: String, secret: String)
    /// The environment variable `variable` holds `value`, which is not `expected` (`METRIKA_TIMEOUT`:
    /// "a number of seconds above 0 and at most 600").
    case badVariable(variable: String, value: String, expected: String)
    /// `METRIKA_COUNTER` holds `value`, which is not a counter id or a list of them.
    case badCounterVariable(value: String)
    /// The URL setting `variable` (`METRIKA_API_URL`, `METRIKA_OAUTH_URL`) is `value`, which is no
    /// base URL metrika can use, for `problem`. A URL with credentials or a query is kept without
    /// them (`.notPlain`): an error never holds a secret.
    case badBaseURL(variable: String, value: String, problem: URLProblem)
    /// The config file's `"alerts"` `"metrics"` names `name`, which the alert check cannot judge.
    case unjudgeableAlertMetric(name: String)
    /// The config file at `path` is there but cannot be read: metrika never takes it for none (its
    /// profiles, default counter and alert settings would silently be dropped).
    case unreadableFile(path: String, reason: UnreadableReason)

    /// Why the config file cannot be read.
    package enum UnreadableReason: Sendable, Equatable {
        /// A directory is where the file should be.
        case directory
        /// Opening or reading it failed with this `errno` (EACCES: permission denied).
        case errno(Int32)
    }

    /// What is wrong with a base URL setting.
    package enum URLProblem: Sendable, Equatable {
        /// Not an http(s) URL with a host.
        case notHTTP
        /// It has a query or credentials.
        case notPlain
        /// Its port is outside 1…65535.
        case port(Int)
    }

    /// The variable that allows plain http to other hosts (test set-ups only): its value must be `1`.
    package static let allowInsecureHTTPVariable = "METRIKA_ALLOW_INSECURE_HTTP"
    /// The variable that names the default counters (`badCounterVariable`).
    package static let counterVariable = "METRIKA_COUNTER"

    package var exitCode: Int32 { ExitCode.config }

    /// The message, its fixes in `naming`'s words (the Telegram token's, the alert check's).
    package func message(_ naming: ParameterNaming) -> String {
        switch self {
        case .notAnObject(let path, let problem):
            return Self.fileMessage(path, problem, format: "docs/auth.md")
        case .unknownMember(let path, let member, let place, let known):
            return Self.fileMessage(
                path, "unknown member \"\(member)\"\(Self.suffix(place)) (known: \(known.joined(separator: ", ")))",
                format: Self.format(place))
        case .badMember(let path, let member, let place, let expected):
            return Self.fileMessage(
                path, "\"\(member)\"\(Self.suffix(place)) must be \(expected)", format: Self.format(place))
        case .badProfileName(let path):
            return Self.fileMessage(path, "a profile name must be visible ASCII without spaces", format: "docs/auth.md")
        case .profileNotAnObject(let path, let name):
            return Self.fileMessage(path, "profile \"\(name)\" must be an object", format: "docs/auth.md")
        case .unreadableFile(let path, .directory):
            return
                "Cannot use the config file \(path): it is a directory. Remove or rename it; the config file is a JSON file (docs/auth.md)."
        case .unreadableFile(let path, .errno(let code)):
            if code == EACCES || code == EPERM {
                return
                    "Cannot use the config file \(path): permission denied. Make it readable to you (chmod 600 \(path)) or move it away."
            }
            let reason = String(cString: strerror(code))
            return
                "Cannot use the config file \(path): \(reason.prefix(1).lowercased() + reason.dropFirst()). Fix it or move it away."
        case .readableSecret(let path, let mode, let secret):
            // The fix is the command itself, so no pointer to the format.
            return
                "Cannot use the config file \(path): it holds \(secret) but others may read it (mode \(Self.octal(mode))); run `chmod 600 \(path)`."
        case .missingTelegramToken(let path):
            return "Telegram (\(naming.action(.useTelegram))) needs the bot's token from @BotFather: "
                + "\(naming.action(.giveTelegramToken(configPath: path)))."
        case .missingTelegramKeyringEntry(let account, let keyring, let store):
            return
                "The config's \"telegram\" \"keyring\" names the entry '\(account)', which \(keyring) does not hold: store the bot's token there with `\(store)` (it asks for the token; docs/telegram.md)."
        case .unknownProfile(let name, let selector, let path, let known):
            // The selector is the caller's: an option names another profile, a variable is changed.
            let change =
                selector.hasPrefix("-") ? "name another profile with \(selector)" : "change or unset \(selector)"
            guard let known else {
                return
                    "\(selector) names the profile '\(name)', but there is no config file \(path). Define it there as {\"profiles\": {\"\(name)\": {…}}} (see docs/auth.md), or \(change)."
            }
            // `all` is no profile's name: it asks for every profile, and the file has none.
            if name == "all", known.isEmpty {
                return
                    "\(selector) all runs over every profile of the config file \(path), which defines none. "
                    + "Define one per Yandex login under \"profiles\" (docs/auth.md, Agencies), or "
                    + (selector.hasPrefix("-") ? "leave \(selector) out." : "unset \(selector).")
            }
            let list = known.isEmpty ? "it defines no profiles" : "it defines \(known.joined(separator: ", "))"
            return
                "\(selector) names the profile '\(name)', which the config file \(path) does not define (\(list)). Add it under \"profiles\", or \(change)."
        case .plainHTTP(let setting, let url, let host, let secret):
            return
                "\(setting) '\(TerminalText.quote(url))' is plain http to \(TerminalText.quote(host)), which is not this machine: "
                + "\(secret) would cross the network unencrypted. Use https://, or set \(Self.allowInsecureHTTPVariable)=1 for a test set-up."
        case .badVariable(let variable, let value, let expected):
            return "\(variable) must be \(expected), not '\(TerminalText.quote(value))'."
        case .badCounterVariable(let value):
            return
                "\(Self.counterVariable) '\(TerminalText.quote(value))' is not a counter id (a positive whole number, or several joined by commas); fix or unset it."
        case .badBaseURL(let variable, let value, .notHTTP):
            return
                "\(variable) '\(TerminalText.quote(value))' is not an http(s) URL. Set it like \(Self.exampleURL(of: variable)) or unset it."
        case .badBaseURL(let variable, _, .notPlain):
            // The value may hold credentials: it is not repeated.
            return "\(variable) must be a plain base URL without query or credentials."
        case .badBaseURL(let variable, let value, .port(let port)):
            return "\(variable) '\(TerminalText.quote(value))' has port \(port); a port is 1 to 65535."
        case .unjudgeableAlertMetric(let name):
            return
                "\"metrics\" of \"alerts\" in the config file names '\(TerminalText.quote(name))', which is not a metric \(naming.action(.alertCheck)) can judge (a count such as visits, pageviews, users, purchases or goal123reaches, or revenue)"
        }
    }

    private static func fileMessage(_ path: String, _ reason: String, format: String) -> String {
        "Cannot use the config file \(path): \(reason). Fix it (the format is in \(format)) or move it away."
    }

    /// ` of profile "work"`, ` of "alerts"`, or nothing at the top.
    private static func suffix(_ place: Place) -> String {
        switch place {
        case .top: return ""
        case .profile(let name): return " of profile \"\(name)\""
        case .alerts: return " of \"alerts\""
        }
    }

    private static func format(_ place: Place) -> String {
        place == .alerts ? "docs/alerts.md" : "docs/auth.md"
    }

    /// `0644` for the permission bits 0o644.
    static func octal(_ mode: Int) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension ConfigError {
    /// The address a URL setting takes by default, as the example of a right value (each setting its own:
    /// the Telegram Bot API's is no Metrika address).
    static func exampleURL(of variable: String) -> String {
        switch variable {
        case "METRIKA_TELEGRAM_API_URL": return "https://api.telegram.org"
        case "METRIKA_OAUTH_URL": return "https://oauth.yandex.ru"
        case "METRIKA_CLICKHOUSE_URL": return "http://localhost:8123"
        default: return "https://api-metrika.yandex.net"
        }
    }
}
