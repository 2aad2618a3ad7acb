import Foundation

// MARK: - Hostile text faults

/// Answers whose text attacks the terminal that shows it: ESC sequences (clear screen, OSC 52
/// clipboard write, window title), BEL, 8-bit CSI, bidi overrides and isolates, 100 KB lines, and the
/// caller's own token quoted back. Everything else about the answer is valid, so a client that shows
/// the text at all shows exactly this.
extension Simulator {
    /// Clear screen, write "pwned" to the clipboard (OSC 52), ring the bell, 8-bit CSI, then a
    /// right-to-left override and an isolate that would reorder the rest of the line.
    static let hostilePayload = "\u{1B}[2J\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}]0;pwned\u{1B}\\\u{9B}31m\u{202E}\u{2066}"
    /// Appended to the first hostile string of an answer: one line of 100 KB.
    static let hostileTail = String(repeating: "A", count: 100_000)

    func hostileText(_ request: HTTPRequest, under fault: Fault) -> HTTPResponse {
        switch fault.kind {
        case .hostileNames:
            // Every name and site in the normal answer (counters, dimension values, report dates).
            let response = route(request)
            guard let document = response.sourceDocument, (200..<300).contains(response.status) else { return response }
            var first = true
            func walk(_ value: JSONValue, key: String?) -> JSONValue {
                switch value {
                case .string(let text) where key == "name" || key == "site":
                    defer { first = false }
                    return .string(Self.hostilePayload + text + (first ? Self.hostileTail : ""))
                case .array(let items):
                    return .array(items.map { walk($0, key: nil) })
                case .object(let pairs):
                    return .object(pairs.map { ($0.0, walk($0.1, key: $0.0)) })
                default:
                    return value
                }
            }
            var result = HTTPResponse.json(200, walk(document, key: nil))
            result.headers = response.headers
            return result
        case .hostileAPIError:
            // 401 (or `status` 403 as access_denied): a message that quotes the token it was sent.
            let header = request.header("authorization") ?? ""
            let token = header.split(separator: " ", maxSplits: 1).last.map(String.init) ?? ""
            let status = fault.status == 403 ? 403 : 401
            let message = "Invalid oauth_token \(token) \(Self.hostilePayload)" + Self.hostileTail
            return APIError.response(status, status == 403 ? "access_denied" : "unauthorized", message)
        case .hostileDeviceCode:
            // A working device code whose address and user code carry the payload.
            let response = route(request)
            guard let document = response.sourceDocument, response.status == 200 else { return response }
            let userCode = document["user_code"]?.stringValue ?? ""
            let hostile =
                document
                .setting(
                    "verification_url", to: .string("https://ya.ru/device" + Self.hostilePayload + Self.hostileTail)
                )
                .setting("user_code", to: .string(Self.hostilePayload + userCode))
            return .json(200, hostile)
        case .hostileOAuthError:
            return .json(
                400,
                .object([
                    ("error", .string("unauthorized_client" + Self.hostilePayload)),
                    ("error_description", .string("Client is blocked" + Self.hostilePayload + Self.hostileTail))
                ]))
        default:
            return route(request)
        }
    }
}
