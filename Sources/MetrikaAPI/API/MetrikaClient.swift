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
    /// The profiles of a run over several logins, and which reads each counter; nil: one token.
    package var routing: ProfileRouting?
    /// The quota ledger every request is admitted by before it is sent; nil: none.
    package var gate: (any RequestGate)?
    /// The login a one-token client's requests are counted against in the ledger.
    package var login = "default"
    /// The account a one-token client's requests act for (`ulogin=`), if any.
    package var ulogin: String?

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
    package func get<T: Decodable>(_ path: String, query: [(String, String)], route: APIRoute? = nil) async throws
        -> T
    {
        let (body, url) = try await fetchBody(path, query: query, route: route)
        return try decode(body, from: url)
    }

    // MARK: - Routes (several logins)

    /// The route of a one-token client: its own transports and login.
    var ownRoute: APIRoute {
        APIRoute(
            profile: nil, login: login, ulogin: ulogin, transport: transport, streamingTransport: streamingTransport)
    }

    /// The route a request to `url` is sent by: the profile that reads the counter it names (the
    /// profiles' lists read first, once per run), else the first profile.
    func route(for url: URL) async throws -> APIRoute {
        guard let routing else { return ownRoute }
        if routing.routes.count == 1 { return routing.route(nil) }
        guard let id = Self.counterOfRequest(url) else { return routing.route(nil) }
        if case .some(let owner) = routing.knownOwner(of: id) { return routing.route(owner) }
        let client = self
        try await routing.learnOnce { _ = try await client.fetchRoutedCounterList(routing, search: nil, status: nil) }
        if case .some(let owner) = routing.knownOwner(of: id) { return routing.route(owner) }
        return routing.route(nil)
    }

    /// The counter a request is about: `/counter/ID/…`, or the first of `ids=`/`id=`.
    static func counterOfRequest(_ url: URL) -> Int? {
        let parts = url.path.split(separator: "/")
        if let index = parts.firstIndex(of: "counter"), index + 1 < parts.count, let id = Int(parts[index + 1]) {
            return id
        }
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        where item.name == "ids" || item.name == "id" {
            if let first = item.value?.split(separator: ",").first, let id = Int(first) { return id }
        }
        return nil
    }

    /// `request` as `route` sends it: signed with the profile's token (its keeper swaps in the current
    /// one), with `ulogin=` when the profile acts for an account.
    func addressed(_ request: HTTPRequest, by route: APIRoute) -> HTTPRequest {
        var request = request
        if let routeToken = route.token, routeToken != token {
            for (name, value) in request.headers where value == "OAuth \(token)" {
                request.headers[name] = "OAuth \(routeToken)"
            }
        }
        guard let ulogin = route.ulogin, !ulogin.isEmpty,
            var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        else { return request }
        let pair = "ulogin=\(Self.encode(ulogin))"
        if let query = components.percentEncodedQuery, !query.isEmpty {
            components.percentEncodedQuery = query + "&" + pair
        } else {
            components.percentEncodedQuery = pair
        }
        var addressed = request
        addressed.url = components.url ?? request.url
        return addressed
    }

    /// GET with retries; the body of a 2xx answer, never empty. `route`: sent as that profile
    /// (else the one that reads the request's counter).
    func fetchBody(_ path: String, query: [(String, String)], route: APIRoute? = nil) async throws -> (Data, URL) {
        let url = makeURL(path: path, query: query)
        try Self.checkLength(url, query: query)
        let response = try await send(
            HTTPRequest(
                method: "GET", url: url, headers: signedHeaders(acceptingJSON: true), timeout: requestTimeout,
                maxResponseBytes: maxResponseBytes), route: route)
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
