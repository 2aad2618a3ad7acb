import Foundation
import MetrikaModel

/// Talks to the Management, Reporting and Logs APIs: signs every request with `Authorization: OAuth`,
/// pages through lists, retries what is transient and turns everything else into an `APIError`.
///
/// The one signed-request path to Yandex: JSON calls go through `transport`, streamed Logs API parts
/// through `streamingTransport`; both are signed by `signedHeaders` and (in a run) both are wrapped by
/// the same token-renewing layer, so a token renewed mid-run reaches every later request of either kind.
package struct MetrikaClient: Sendable {
    /// The default API host; `METRIKA_API_URL` overrides it.
    package static let defaultBaseURL = "https://api-metrika.yandex.net"

    package let baseURL: URL
    package let token: String
    let transport: any HTTPTransport
    /// The transport of streamed downloads (Logs API parts); nil when the client never streams.
    package let streamingTransport: (any StreamingHTTPTransport)?
    /// Retry bounds for transient failures.
    package var retryPolicy: RetryPolicy
    /// Seconds one attempt may take in all, the whole answer included (METRIKA_TIMEOUT).
    package var requestTimeout: Double
    /// The largest answer accepted, in bytes after decompression (METRIKA_MAX_RESPONSE).
    package var maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    let sleep: @Sendable (Double) async throws -> Void
    let random: @Sendable () -> Double
    let now: @Sendable () -> Date
    let log: (@Sendable (String) -> Void)?
    /// Told of each wait before a retry, and (with nil) when the request is sent again: the progress
    /// line of a terminal shows it.
    let retryWait: (@Sendable (RetryWait?) -> Void)?
    /// Counts the requests sent, retries included (for summaries and tests).
    package let requestCounter = RequestCounter()

    /// `streamingTransport` carries Logs API part downloads; without one, `transport` does when it
    /// streams too (as `CurlTransport` does).
    package init(
        baseURL: URL, token: String, transport: any HTTPTransport,
        streamingTransport: (any StreamingHTTPTransport)? = nil,
        retryPolicy: RetryPolicy = .standard,
        requestTimeout: Double = 30,
        sleep: @escaping @Sendable (Double) async throws -> Void = {
            try await Task.sleep(nanoseconds: UInt64($0 * 1e9))
        },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        now: @escaping @Sendable () -> Date = { Date() },
        log: (@Sendable (String) -> Void)? = nil,
        retryWait: (@Sendable (RetryWait?) -> Void)? = nil
    ) {
        self.baseURL = baseURL
        self.token = token
        self.transport = transport
        self.streamingTransport = streamingTransport ?? (transport as? any StreamingHTTPTransport)
        self.retryPolicy = retryPolicy
        self.requestTimeout = requestTimeout
        self.sleep = sleep
        self.random = random
        self.now = now
        self.log = log
        self.retryWait = retryWait
    }

    // MARK: - Requests

    /// GET with retries; decodes the documented JSON or throws an `APIError`.
    package func get<T: Decodable>(_ path: String, query: [(String, String)]) async throws -> T {
        let (body, url) = try await fetchBody(path, query: query)
        return try decode(body, from: url)
    }

    /// GET with retries; the body of a 2xx answer, never empty.
    func fetchBody(_ path: String, query: [(String, String)]) async throws -> (Data, URL) {
        let url = makeURL(path: path, query: query)
        try Self.checkLength(url, query: query)
        let response = try await send(
            HTTPRequest(
                method: "GET", url: url, headers: signedHeaders(acceptingJSON: true), timeout: requestTimeout,
                maxResponseBytes: maxResponseBytes))
        guard !response.body.isEmpty else {
            throw APIError.unreadable("an empty body (HTTP \(response.status)) from \(url.path)")
        }
        return (response.body, url)
    }

    /// The headers of every request to Yandex. The token is the one the client was built with; the
    /// token layer in front of both transports replaces it with the keeper's current one at send time.
    package func signedHeaders(acceptingJSON: Bool) -> [String: String] {
        var headers = [
            "Authorization": "OAuth \(token)",
            "User-Agent": "metrika/\(MetrikaVersion.current)"
        ]
        if acceptingJSON { headers["Accept"] = "application/json" }
        return headers
    }

    /// Decodes the documented JSON tolerantly, or throws `APIError.unreadable` saying what is wrong.
    package func decode<T: Decodable>(_ body: Data, from url: URL) throws -> T {
        let prepared: Data
        do {
            prepared = try JSONPreflight.prepare(Self.repairingInvalidUTF8(body))
        } catch {
            throw APIError.unreadable("\(error.description) in the answer from \(url.path)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: prepared)
        } catch {
            throw APIError.unreadable("\(describeDecodingFailure(error)) in the answer from \(url.path)")
        }
    }

    package func makeURL(path: String, query: [(String, String)]) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        let basePath = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = basePath + path
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(
                separator: "&")
        }
        return components.url!
    }

    /// The longest request address metrika sends (the query string included). Servers in front of the
    /// API refuse longer ones (HTTP 414 or 431) — an answer that reads like a fault to retry.
    package static let maximumURLBytes = 32 * 1024

    /// Refuses a request whose address would pass `maximumURLBytes`, naming its longest argument.
    static func checkLength(_ url: URL, query: [(String, String)]) throws {
        guard url.absoluteString.utf8.count > maximumURLBytes, let longest = query.max(by: { $0.1.count < $1.1.count })
        else { return }
        throw APIError.argumentTooLong(name: longest.0, length: longest.1.count, limit: maximumURLBytes)
    }

    /// Percent-encodes a query component strictly (RFC 3986 unreserved characters only), so that
    /// `+`, `&`, `=`, `'` and non-ASCII in filters and search strings survive the trip.
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        allowed.insert(charactersIn: ":,")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
