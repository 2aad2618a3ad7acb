import Foundation

/// Reads HTTP/1.1 requests out of a connection's byte buffer.
///
/// Pure and incremental: it is handed everything received so far and says whether a whole request
/// is there. Anything it cannot read becomes `.invalid`, which the server answers with 400.
struct HTTPRequestParser {
    /// The most header bytes accepted before the request is refused.
    static let maximumHeaderBytes = 64 * 1024
    /// The largest body accepted.
    static let maximumBodyBytes = 16 * 1024 * 1024

    enum Outcome {
        /// Not a whole request yet; `expectsContinue` when the client waits for `100 Continue`.
        case needMore(expectsContinue: Bool)
        /// A whole request, the number of buffer bytes it used, and whether the client wants the
        /// connection kept open.
        case request(HTTPRequest, consumed: Int, keepAlive: Bool)
        /// Not HTTP the server can read; the status to answer with before closing.
        case invalid(status: Int, reason: String)
    }

    static func parse(_ buffer: [UInt8]) -> Outcome {
        guard let headerEnd = findHeaderEnd(buffer) else {
            if buffer.count > maximumHeaderBytes {
                return .invalid(status: 431, reason: "header section too large")
            }
            // Bytes that cannot start a request line are garbage: say so at once.
            if let first = buffer.first, !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) {
                return .invalid(status: 400, reason: "not an HTTP request")
            }
            return .needMore(expectsContinue: false)
        }
        guard headerEnd <= maximumHeaderBytes else { return .invalid(status: 431, reason: "header section too large") }
        guard let headText = String(validating: buffer[0..<headerEnd], as: UTF8.self) else {
            return .invalid(status: 400, reason: "header section is not UTF-8")
        }
        var lines = headText.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .invalid(status: 400, reason: "malformed request line") }
        let method = String(parts[0])
        let target = String(parts[1])
        let version = String(parts[2])
        guard !method.isEmpty, method.allSatisfy({ $0.isASCII && ($0.isUppercase || $0 == "-") }) else {
            return .invalid(status: 400, reason: "malformed method")
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .invalid(status: 400, reason: "unsupported HTTP version")
        }
        guard target.hasPrefix("/") else { return .invalid(status: 400, reason: "malformed request target") }

        var headers: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                return .invalid(status: 400, reason: "malformed header line")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(" ") else {
                return .invalid(status: 400, reason: "malformed header name")
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((name: name.lowercased(), value: value))
        }
        func header(_ name: String) -> String? { headers.first(where: { $0.name == name })?.value }

        let connection = header("connection")?.lowercased() ?? ""
        let keepAlive = version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        let bodyStart = headerEnd + 4
        let expectsContinue = header("expect")?.lowercased() == "100-continue"

        var body: [UInt8] = []
        var consumed = bodyStart
        if let encoding = header("transfer-encoding")?.lowercased(), encoding != "identity" {
            guard encoding == "chunked" else { return .invalid(status: 400, reason: "unsupported transfer encoding") }
            switch decodeChunked(buffer, from: bodyStart) {
            case .needMore: return .needMore(expectsContinue: expectsContinue)
            case .invalid(let reason): return .invalid(status: 400, reason: reason)
            case .body(let decoded, let end):
                body = decoded
                consumed = end
            }
        } else if let lengthText = header("content-length") {
            guard let length = Int(lengthText), length >= 0 else {
                return .invalid(status: 400, reason: "bad Content-Length")
            }
            guard length <= maximumBodyBytes else { return .invalid(status: 413, reason: "body too large") }
            guard buffer.count - bodyStart >= length else { return .needMore(expectsContinue: expectsContinue) }
            body = Array(buffer[bodyStart..<bodyStart + length])
            consumed = bodyStart + length
        }

        let path: String
        let query: String
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = target
            query = ""
        }
        let request = HTTPRequest(method: method, path: path, query: query, headers: headers, body: body)
        return .request(request, consumed: consumed, keepAlive: keepAlive)
    }

    private static func findHeaderEnd(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        var i = 0
        while i + 3 < buffer.count {
            if buffer[i] == 13, buffer[i + 1] == 10, buffer[i + 2] == 13, buffer[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    private enum ChunkedOutcome {
        case needMore
        case invalid(String)
        case body([UInt8], end: Int)
    }

    private static func decodeChunked(_ buffer: [UInt8], from start: Int) -> ChunkedOutcome {
        var body: [UInt8] = []
        var index = start
        while true {
            guard let lineEnd = findLineEnd(buffer, from: index) else { return .needMore }
            let sizeText = String(decoding: buffer[index..<lineEnd], as: UTF8.self)
            let sizeField = sizeText.split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeField.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                return .invalid("bad chunk size")
            }
            guard size <= maximumBodyBytes - body.count else { return .invalid("body too large") }
            index = lineEnd + 2
            if size == 0 {
                // Skip trailer fields up to the blank line.
                while true {
                    guard let end = findLineEnd(buffer, from: index) else { return .needMore }
                    let empty = end == index
                    index = end + 2
                    if empty { return .body(body, end: index) }
                }
            }
            guard buffer.count >= index + size + 2 else { return .needMore }
            body.append(contentsOf: buffer[index..<index + size])
            index += size
            guard buffer[index] == 13, buffer[index + 1] == 10 else { return .invalid("bad chunk terminator") }
            index += 2
        }
    }

    private static func findLineEnd(_ buffer: [UInt8], from start: Int) -> Int? {
        var i = start
        while i + 1 < buffer.count {
            if buffer[i] == 13, buffer[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }
}
