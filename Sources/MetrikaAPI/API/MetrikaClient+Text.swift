import Foundation
import MetrikaModel

/// The text helpers of the client's messages: transport failures in words, server text as one safe line.
extension MetrikaClient {
    static func describe(_ error: TransportError) -> String {
        switch error {
        case .timedOut: return "timed out"
        case .cannotConnect: return "cannot connect"
        case .connectionLost: return "connection lost"
        case .tooLarge: return "too large"
        case .insecure: return "TLS failed"
        case .malformed: return "malformed"
        case .other: return "network error"
        }
    }

    package static func unavailableText(_ error: TransportError) -> String {
        switch error {
        case .timedOut: return "no answer within the request timeout"
        case .cannotConnect(let detail): return "cannot connect (\(detail))"
        case .connectionLost(let detail): return "the connection broke mid-answer (\(detail))"
        case .tooLarge(let limit): return "an answer larger than the \(APIError.describeBytes(limit)) limit"
        case .insecure(let detail): return "the TLS connection failed (\(detail))"
        case .malformed(let detail): return "a malformed HTTP answer (\(detail))"
        case .other(let detail): return detail
        }
    }

    /// Bytes that are not UTF-8 (a name mangled by a proxy or a broken backend) become U+FFFD, as a
    /// browser shows them: one bad character must not cost the whole answer. Bad bytes outside
    /// strings still fail to parse, so the structure of an answer is never guessed.
    static func repairingInvalidUTF8(_ body: Data) -> Data {
        Data(String(decoding: body, as: UTF8.self).utf8)
    }

    /// Text from the API (or about it) as one short line, through `TerminalText`, the one sanitizer:
    /// errors are one `Error: …` line on stderr, so line breaks, terminal escapes and bidi controls
    /// cannot get through, and an endless message is cut at 300 characters.
    static func oneLine(_ text: String) -> String {
        TerminalText.quote(text)
    }

    /// Text the API sent, as a message may quote it: one short line, and the token this client signs
    /// with masked — a 401/403 body that says "Invalid oauth_token y0_…" must not print the token.
    func serverText(_ text: String) -> String {
        TerminalText.quote(text, hiding: [token])
    }

    static func sentence(_ text: String) -> String {
        text.hasSuffix(".") ? text : text + "."
    }

    static func formatSeconds(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
