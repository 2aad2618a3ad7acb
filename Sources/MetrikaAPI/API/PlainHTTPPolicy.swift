import Foundation
import MetrikaModel
import MetrikaSystem

/// The one rule for sending a secret (the OAuth token, the app's secret, a refresh token, a ClickHouse
/// password, a webhook URL) over plain `http://`: only to this machine (127.0.0.0/8, ::1, localhost),
/// where nothing crosses a network. Anywhere else it is refused before any connection, unless
/// METRIKA_ALLOW_INSECURE_HTTP=1 says that this is a test set-up.
package enum PlainHTTPPolicy {
    /// The variable that allows plain http to other hosts (test set-ups only): its value must be `1`.
    package static let overrideVariable = ConfigError.allowInsecureHTTPVariable

    /// Refuses `url` when it is plain http to a host that is not loopback and the override is not set.
    /// `setting` names where the URL came from (`METRIKA_API_URL`, `--clickhouse`); `secret` what it
    /// would carry (`the OAuth token`). Throws `ConfigError.plainHTTP` (exit 78).
    package static func check(_ url: URL, setting: String, secret: String, environment: [String: String]) throws {
        guard url.scheme?.lowercased() == "http", let host = url.host, !isLoopback(host) else { return }
        if environment[overrideVariable]?.trimmingCharacters(in: .whitespaces) == "1" { return }
        throw ConfigError.plainHTTP(setting: setting, url: url.absoluteString, host: host, secret: secret)
    }

    /// Whether `host` names this machine: `localhost` (and names under `.localhost`), an IPv4 address
    /// in 127.0.0.0/8, or the IPv6 loopback `::1` (with or without brackets). A name that merely starts
    /// like one (`127.0.0.1.example.org`) is not.
    package static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        if name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        let numbers = octets.compactMap { octet -> Int? in
            guard (1...3).contains(octet.count), octet.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(octet).flatMap { $0 <= 255 ? $0 : nil }
        }
        return numbers.count == 4 && numbers[0] == 127
    }
}
