import Foundation
import MetrikaAPI
import MetrikaModel

/// Statements and streamed inserts over ClickHouse's HTTP interface (port 8123), through a
/// `StreamingHTTPTransport`. Failures become one line naming the table: exit 69 when ClickHouse
/// cannot be reached, 65 when it refuses the statement or the data.
package struct ClickHouseClient: Sendable {
    package let settings: ClickHouseSettings
    let transport: any StreamingHTTPTransport
    /// Query-level settings sent with every statement as URL parameters (`name=value`), such as
    /// `max_partitions_per_insert_block` on servers that have it.
    package var querySettings: [(name: String, value: String)] = []

    package init(settings: ClickHouseSettings, transport: any StreamingHTTPTransport) {
        self.settings = settings
        self.transport = transport
    }

    private func request(query: String?, body: Data?) -> HTTPRequest {
        var components = URLComponents(url: settings.url, resolvingAgainstBaseURL: false)!
        components.path = "/"
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        var parameters = querySettings.map {
            "\($0.name)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.value)"
        }
        if let query {
            parameters.insert("query=" + (query.addingPercentEncoding(withAllowedCharacters: allowed) ?? query), at: 0)
        }
        if !parameters.isEmpty { components.percentEncodedQuery = parameters.joined(separator: "&") }
        var headers = ["User-Agent": "metrika/\(MetrikaVersion.current)"]
        if let user = settings.user { headers["X-ClickHouse-User"] = user }
        if let password = settings.password { headers["X-ClickHouse-Key"] = password }
        return HTTPRequest(
            method: "POST", url: components.url!, headers: headers, body: body, timeout: settings.timeout)
    }

    /// Runs one statement (in the body) and returns the answer, at most 1 MiB of it.
    @discardableResult
    package func execute(_ sql: String, doing what: String) async throws -> String {
        var answer: [UInt8] = []
        let head = try await exchange(request(query: nil, body: Data(sql.utf8)), upload: nil, doing: what) { chunk in
            if answer.count < 1 << 20 { answer.append(contentsOf: chunk.prefix((1 << 20) - answer.count)) }
        }
        try check(head, doing: what)
        return String(decoding: answer, as: UTF8.self)
    }

    /// Runs a `SELECT` and returns its rows (TabSeparated, values unescaped), at most 1 MiB of answer.
    package func rows(_ sql: String, doing what: String) async throws -> [[String]] {
        let answer = try await execute(sql + " FORMAT TabSeparated", doing: what)
        return answer.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { Self.unescape(String($0)) }
        }
    }

    /// A TabSeparated value as text: `\t`, `\n`, `\\`, `\'` and the like back to their characters.
    static func unescape(_ value: String) -> String {
        guard value.contains("\\") else { return value }
        var result = ""
        var escaped = false
        for character in value {
            if escaped {
                switch character {
                case "t": result.append("\t")
                case "n": result.append("\n")
                case "r": result.append("\r")
                case "0": result.append("\0")
                default: result.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// A string literal for SQL: single quotes, backslash and quote escaped.
    package static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// `INSERT INTO table (columns) FORMAT <format>` with the rows streamed from `feed`. Never
    /// `TabSeparatedWithNames` for log parts: ClickHouse 20+ maps that header onto the columns.
    package func insert(
        into table: String, columns: [String], format: String = "TabSeparated", doing what: String,
        feed: (StreamWriter) async throws -> Void
    ) async throws {
        let sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) FORMAT \(format)"
        let head = try await withoutActuallyEscaping(feed) { feed in
            try await exchange(request(query: sql, body: nil), upload: feed, doing: what) { _ in }
        }
        try check(head, doing: what)
    }

    private func exchange(
        _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?, doing what: String,
        receive: ([UInt8]) async throws -> Void
    ) async throws -> StreamedResponseHead {
        do {
            return try await transport.exchange(request, upload: upload, receive: receive)
        } catch let error as TransportError {
            throw ClickHouseError.unreachable(
                host: settings.url.host ?? "?", port: settings.url.port ?? 8123, doing: what,
                table: settings.qualifiedTable,
                detail: MetrikaClient.unavailableText(error))
        }
    }

    private func check(_ head: StreamedResponseHead, doing what: String) throws {
        guard !(200..<300).contains(head.status) else { return }
        // "Code: 60, e.displayText() = DB::Exception: Table x doesn't exist., e.what() = DB::Exception"
        let text = String(decoding: head.errorBody, as: UTF8.self)
        let firstLine = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "HTTP \(head.status)"
        let clipped = firstLine.count > 400 ? String(firstLine.prefix(400)) + "…" : firstLine
        let credentials =
            head.status == 401 || head.status == 403 || text.contains("Code: 516") || text.contains("Code: 192")
            || text.contains("Code: 193")
        throw ClickHouseError.rejected(
            doing: what, table: settings.qualifiedTable, status: head.status,
            answer: TerminalText.quote(clipped, hiding: [settings.password].compactMap { $0 }), credentials: credentials
        )
    }
}
