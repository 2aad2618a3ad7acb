import Foundation
import MetrikaAPI
import MetrikaModel

/// Where and as whom to reach ClickHouse: from `--clickhouse URL`, `--table` and the environment.
package struct ClickHouseSettings: Sendable {
    /// The HTTP interface, e.g. `http://127.0.0.1:8123` (no path, query or credentials).
    package var url: URL
    package var database: String
    package var table: String
    /// From `METRIKA_CLICKHOUSE_USER` / `METRIKA_CLICKHOUSE_PASSWORD` only, never argv.
    package var user: String?
    package var password: String?
    /// Seconds to connect and to wait for each next chunk.
    package var timeout: Double

    /// `db.table`.
    package var qualifiedTable: String { "\(database).\(table)" }
    /// The destination as progress records it: host, port and table (no credentials).
    package var identity: String { "\(url.host ?? ""):\(url.port ?? 8123)/\(qualifiedTable)" }

    /// `text` with anything between `scheme://` and an `@` of its authority replaced by `…`, so that a
    /// URL refused as malformed never echoes a password it held.
    static func withoutCredentials(_ text: String) -> String {
        guard let start = text.range(of: "://") else { return text }
        let authorityEnd =
            text[start.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? text.endIndex
        guard let at = text[start.upperBound..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<start.upperBound]) + "…" + String(text[at...])
    }

    /// Checks the URL and names; credentials in the URL are refused (they would show in `ps`).
    package static func make(
        url text: String, table tableText: String?, source: LogSource, environment: [String: String], timeout: Double
    ) throws -> ClickHouseSettings {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw ClickHouseError.notAURL(shown: TerminalText.quote(withoutCredentials(text)))
        }
        // Before any message that quotes the URL: a password in it is never echoed.
        guard url.user == nil, url.password == nil else {
            throw ClickHouseError.credentialsInURL
        }
        if let port = url.port, !(1...65_535).contains(port) {
            throw ClickHouseError.badPort(shown: TerminalText.quote(text), port: port)
        }
        guard url.query == nil, url.path.isEmpty || url.path == "/" else {
            throw ClickHouseError.notABaseURL
        }
        var database = "metrika"
        var table = source.rawValue
        if let tableText {
            let pieces = tableText.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(pieces.count), pieces.allSatisfy(isIdentifier) else {
                throw ClickHouseError.badTableName(shown: TerminalText.quote(tableText))
            }
            if pieces.count == 2 { database = pieces[0] }
            table = pieces.last!
        }
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        for name in ["METRIKA_CLICKHOUSE_USER", "METRIKA_CLICKHOUSE_PASSWORD"] {
            if let text = value(name), text.contains(where: { $0.isNewline || $0 == "\0" }) {
                throw ClickHouseError.lineBreak(variable: name)
            }
        }
        if value("METRIKA_CLICKHOUSE_PASSWORD") != nil {
            try PlainHTTPPolicy.check(
                url, setting: "The ClickHouse URL", secret: "METRIKA_CLICKHOUSE_PASSWORD", environment: environment)
        }
        return ClickHouseSettings(
            url: url, database: database, table: table, user: value("METRIKA_CLICKHOUSE_USER"),
            password: value("METRIKA_CLICKHOUSE_PASSWORD"), timeout: timeout)
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter || first == "_", text.count <= 128 else {
            return false
        }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }
}
