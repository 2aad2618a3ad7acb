import Foundation
import MetrikaAPI
import MetrikaModel

/// A webhook of `metrika alert` (`--webhook URL`, METRIKA_WEBHOOK_URL): one JSON POST per run that
/// found something. Its URL carries a secret in its path (Slack's `/services/T…/B…/xyz`, a Telegram
/// bot token), so it is shown only as `scheme://host/…`, and it travels through the same transport
/// and the same hostile-server rules as the API's requests: no redirect followed, a total timeout,
/// a capped answer. Never through a child process.
package struct Webhook: Sendable {
    /// The URL, secret and all: only `send` uses it.
    package let url: URL

    /// A Slack incoming webhook (`hooks.slack.com`, GovSlack's `slack-gov.com`): Slack reads `&`, `<` and `>` in `text`
    /// as control
    /// characters (`<!channel>` pings everyone), so the text it is sent escapes them.
    package var isSlack: Bool {
        var host = (url.host ?? "").lowercased()
        if host.hasSuffix(".") { host.removeLast() } // `hooks.slack.com.` is the same host
        return ["slack.com", "slack-gov.com"].contains { host == $0 || host.hasSuffix("." + $0) }
    }
    let transport: any HTTPTransport
    /// Seconds the POST may take in all, the answer included.
    package var timeout: Double
    /// The most of an answer read: a webhook answers `ok`, not megabytes.
    package static let maxResponseBytes = 64 << 10

    /// Checks `text` (exit 78 naming only the masked URL, or nothing of it, when unusable): http or
    /// https with a host; no user:password part; plain http only where `PlainHTTPPolicy` allows it
    /// (this machine, or METRIKA_ALLOW_INSECURE_HTTP=1 in `environment`), since the secret would cross
    /// the network readable. The policy's own message would show the URL, so this one says it masked.
    package init(
        _ text: String, transport: any HTTPTransport, timeout: Double, source: String,
        environment: [String: String] = [:]
    ) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw WebhookError.notAURL(source: source)
        }
        guard url.user == nil, url.password == nil else {
            throw WebhookError.credentialsInURL(source: source, masked: Self.mask(url))
        }
        if scheme == "http", !PlainHTTPPolicy.isLoopback(host),
            environment[PlainHTTPPolicy.overrideVariable]?.trimmingCharacters(in: .whitespaces) != "1"
        {
            throw WebhookError.plainHTTP(source: source, masked: Self.mask(url))
        }
        self.url = url
        self.transport = transport
        self.timeout = timeout
    }

    /// `https://hooks.slack.com/…`: what messages may show of a webhook URL.
    package var masked: String { Self.mask(url) }

    /// The parts of the URL that must never be shown (for the run's list of secrets).
    package var secrets: [String] {
        var parts = [url.absoluteString]
        if url.path.count > 1 { parts.append(url.path) }
        if let query = url.query, !query.isEmpty { parts.append(query) }
        return parts
    }

    package static func mask(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "https"
        let host = url.host ?? "?"
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shown)\(url.port.map { ":\($0)" } ?? "")/…"
    }

    /// POSTs `body` (`Content-Type: application/json`). A 2xx answer is delivery; anything else is a
    /// `WebhookError` (exit 69) naming the masked URL and what happened, so the caller keeps the
    /// alerts to send again on the next run.
    package func send(_ body: Data) async throws {
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: [
                "Content-Type": "application/json; charset=utf-8", "User-Agent": "metrika/\(MetrikaVersion.current)",
                "Accept": "*/*"
            ],
            body: body, timeout: timeout, maxResponseBytes: Self.maxResponseBytes)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            switch error {
            case .timedOut: throw WebhookError.timedOut(masked: masked, seconds: timeout)
            case .tooLarge: throw WebhookError.answerTooLarge(masked: masked, limit: Self.maxResponseBytes)
            default:
                throw WebhookError.unreachable(
                    masked: masked, detail: hidingSecrets(MetrikaClient.unavailableText(error)))
            }
        }
        if response.isRedirect {
            throw WebhookError.redirected(
                masked: masked, status: response.status, target: hidingSecrets(response.redirectTarget(from: url)))
        }
        guard (200..<300).contains(response.status) else {
            let said = String(decoding: response.body.prefix(300), as: UTF8.self)
            throw WebhookError.refused(
                masked: masked, status: response.status,
                answer: said.isEmpty ? "" : hidingSecrets(TerminalText.quote(said, hiding: secrets)))
        }
    }

    /// `text` with every part of the URL that is a secret masked: what a `WebhookError` may hold.
    private func hidingSecrets(_ text: String) -> String {
        TerminalText.masking(secrets, in: text)
    }
}
