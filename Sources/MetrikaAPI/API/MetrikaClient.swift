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
    private let transport: any HTTPTransport
    /// The transport of streamed downloads (Logs API parts); nil when the client never streams.
    package let streamingTransport: (any StreamingHTTPTransport)?
    /// Retry bounds for transient failures.
    package var retryPolicy: RetryPolicy
    /// Seconds one attempt may take in all, the whole answer included (METRIKA_TIMEOUT).
    package var requestTimeout: Double
    /// The largest answer accepted, in bytes after decompression (METRIKA_MAX_RESPONSE).
    package var maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    private let sleep: @Sendable (Double) async throws -> Void
    private let random: @Sendable () -> Double
    private let now: @Sendable () -> Date
    private let log: (@Sendable (String) -> Void)?
    /// Told of each wait before a retry, and (with nil) when the request is sent again: the progress
    /// line of a terminal shows it.
    private let retryWait: (@Sendable (RetryWait?) -> Void)?
    /// Counts the requests sent, retries included (for summaries and tests).
    package let requestCounter = RequestCounter()

    /// `streamingTransport` carries Logs API part downloads; without one, `transport` does when it
    /// streams too (as `CurlTransport` does).
    package init(
        baseURL: URL, token: String, transport: any HTTPTransport, streamingTransport: (any StreamingHTTPTransport)? = nil,
        retryPolicy: RetryPolicy = .standard,
        requestTimeout: Double = 30,
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(nanoseconds: UInt64($0 * 1e9)) },
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

    // MARK: - Management API

    /// Every counter the token can see, following `offset`/`per_page` paging until `offset > rows`.
    package func fetchCounters(search: String? = nil, status: String? = nil, perPage: Int = 1000) async throws -> [Counter] {
        try await fetchCounterList(search: search, status: status, perPage: perPage).counters
    }

    /// The counters list and, when the server's paging was not believable (a short page, a page of
    /// ids already seen, the request cap), a one-line warning for stderr.
    package func fetchCounterList(search: String? = nil, status: String? = nil, perPage: Int = 1000) async throws -> (counters: [Counter], warning: String?) {
        var result: [Counter] = []
        var seen = Set<Int>()
        var pager = Pager(wanted: Int.max, pageSize: perPage, hardCap: Pager.counterListHardCap)
        while let next = pager.nextPage {
            var query: [(String, String)] = [("offset", String(next.offset)), ("per_page", String(perPage))]
            if let search, !search.isEmpty { query.append(("search_string", search)) }
            if let status { query.append(("status", status)) }
            let page: CounterListResponse = try await get("/management/v1/counters", query: query)
            let before = result.count
            for wire in page.counters where seen.insert(wire.counter.id).inserted {
                result.append(wire.counter)
            }
            pager.record(rowCount: page.counters.count, newRows: result.count - before, claimedTotal: page.rows)
        }
        return (result, pager.warning("the counters list"))
    }

    /// One counter by id.
    package func fetchCounter(id: Int) async throws -> Counter {
        let response: CounterResponse = try await get("/management/v1/counter/\(id)", query: [])
        return response.counter.counter
    }

    /// A counter's goals (id, name, type), in the API's order.
    package func fetchGoals(counterID: Int) async throws -> [Goal] {
        let response: GoalsResponse = try await get("/management/v1/counter/\(counterID)/goals", query: [])
        return response.goals
    }

    // MARK: - Reporting API

    /// One page of `/stat/v1/data` (1-based `offset`).
    package func fetchData(_ query: StatQuery, offset: Int, limit: Int) async throws -> StatDataPage {
        try read(await fetchDataAnswer(query, offset: offset, limit: limit))
    }

    /// The answer for one page of `/stat/v1/data`, fetched (with retries) but not yet read: a caller
    /// that fetches the next page while it writes this one holds one page of rows and one answer,
    /// not two pages of rows (`read` turns it into the page).
    package func fetchDataAnswer(_ query: StatQuery, offset: Int, limit: Int) async throws -> StatDataAnswer {
        var items = query.items
        items.append(("offset", String(offset)))
        items.append(("limit", String(limit)))
        let (body, url) = try await fetchBody("/stat/v1/data", query: items)
        return StatDataAnswer(body: body, url: url, metricNames: query.metrics)
    }

    /// The page in `answer`: the fast scanner for plain pages, the tolerant decoder for anything
    /// unusual. A value no metric can have (`PlausibleValues`) makes the answer unreadable.
    package func read(_ answer: StatDataAnswer) throws -> StatDataPage {
        let scanned: StatDataPage?
        do {
            scanned = try StatDataScanner.scan(answer.body)
        } catch {
            throw APIError.unreadable("\(error.description) in the answer from \(answer.url.path)")
        }
        let page: StatDataPage = try scanned ?? decode(answer.body, from: answer.url)
        try page.checkPlausible(metricNames: answer.metricNames, path: answer.url.path)
        return page
    }

    /// `/stat/v1/data/bytime` with a grouping (period totals, such as the users of each week).
    package func fetchByTime(_ query: StatQuery, group: Grouping) async throws -> StatByTime {
        var items = query.items.filter { $0.0 != "group" }
        items.append(("group", group.rawValue))
        let answer: StatByTime = try await get("/stat/v1/data/bytime", query: items)
        try answer.checkPlausible(metricNames: query.metrics, path: "/stat/v1/data/bytime")
        return answer
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
        let response = try await send(HTTPRequest(
            method: "GET", url: url, headers: signedHeaders(acceptingJSON: true), timeout: requestTimeout, maxResponseBytes: maxResponseBytes))
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
            "User-Agent": "metrika/\(MetrikaVersion.current)",
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
            components.percentEncodedQuery = query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        return components.url!
    }

    /// Percent-encodes a query component strictly (RFC 3986 unreserved characters only), so that
    /// `+`, `&`, `=`, `'` and non-ASCII in filters and search strings survive the trip.
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        allowed.insert(charactersIn: ":,")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Sends with retries for transient failures; returns a 2xx response or throws `APIError`.
    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await retrying { () async throws -> Step<HTTPResponse> in
            requestCounter.increment()
            let sentAt = DispatchTime.now().uptimeNanoseconds
            do {
                let response = try await transport.send(request)
                logLine(request, status: "\(response.status)", since: sentAt)
                switch classify(response, from: request.url) {
                case .success(let response): return .done(response)
                case .fail(let error): return .fail(error)
                case .retry(let reason, let retryAfter, let quota): return .retry(reason, retryAfter: retryAfter, quota: quota)
                }
            } catch let error as TransportError {
                return transportStep(error, request: request, since: sentAt, context: nil)
            } catch let cancelled as CancellationError {
                // Asked to stop (Ctrl-C on a logs load): not an outage to wait out and try again.
                return .fail(cancelled)
            } catch {
                logLine(request, status: "failed", since: sentAt)
                return .retry("\(error)", retryAfter: nil, quota: nil)
            }
        }
    }

    /// Runs `body` under the retry policy, as `send` runs one request: a `TransientFailure` it throws
    /// is waited out (backoff with jitter, `Retry-After`, the same caps on attempts and on waiting) and
    /// `body` runs again; any other error ends it at once. For work that is more than one request,
    /// such as a log part streamed into its destination: `body` must make its attempt restartable, or
    /// turn the `TransientFailure` into its `failure` when it cannot.
    ///
    /// Unlike `send`, the time the attempts themselves took does not count against the policy: a
    /// streamed part has an idle deadline, not a total one, and one cut after an hour of a 10 GB
    /// download deserves its retries as much as one cut at once. The waits stay bounded.
    package func retryingTransient<T>(_ body: () async throws -> T) async throws -> T {
        try await retrying(boundingElapsedTime: false) { () async throws -> Step<T> in
            do {
                return .done(try await body())
            } catch let transient as TransientFailure {
                return .retry(transient.description, retryAfter: transient.retryAfter, quota: transient.quota)
            }
        }
    }

    /// What one attempt came to.
    private enum Step<T> {
        case done(T)
        case fail(any Error)
        case retry(String, retryAfter: Double?, quota: String?)
    }

    /// A transport failure as `send` judges it: a too large, malformed or insecure answer is final
    /// (asking again brings the same answer), everything else (timeouts, refused or cut connections) is
    /// retried. `context` (such as `log request 7, part 1 of 2`) starts the reason when given.
    private func transportStep<T>(_ error: TransportError, request: HTTPRequest, since sentAt: UInt64, context: String?) -> Step<T> {
        let prefix = context.map { "\($0): " } ?? ""
        switch error {
        case .tooLarge(let limit):
            logLine(request, status: "too large", since: sentAt)
            return .fail(APIError.tooLarge(path: request.url.path, limit: limit))
        case .malformed(let detail):
            logLine(request, status: "malformed", since: sentAt)
            return .fail(APIError.unreadable("\(prefix)a malformed HTTP answer from \(request.url.path) (\(Self.oneLine(detail)))"))
        case .insecure(let detail):
            logLine(request, status: "TLS failed", since: sentAt)
            return .fail(APIError.insecure(host: request.url.host ?? "the API", detail: Self.oneLine(detail)))
        default:
            logLine(request, status: Self.describe(error), since: sentAt)
            return .retry(prefix + Self.unavailableText(error), retryAfter: nil, quota: nil)
        }
    }

    /// The retry loop of every request to Yandex (see `RetryPolicy`).
    /// `boundingElapsedTime`: whether the attempts' own time counts too (each JSON attempt is bounded
    /// by the request timeout, so all of them by `requestTimeout × maxAttempts`).
    private func retrying<T>(boundingElapsedTime: Bool = true, _ attempt: () async throws -> Step<T>) async throws -> T {
        let started = now()
        var waited = 0.0
        var attempts = 0
        while true {
            attempts += 1
            switch try await attempt() {
            case .done(let value):
                return value
            case .fail(let error):
                throw error
            case .retry(let reason, let retryAfter, let quota):
                let delay = retryPolicy.delay(beforeRetry: attempts, random: random(), retryAfter: retryAfter)
                let elapsed = now().timeIntervalSince(started)
                let outOfTime = waited + delay > retryPolicy.maxTotalWait
                    || (boundingElapsedTime && elapsed + delay > retryPolicy.maxTotalWait + requestTimeout * Double(retryPolicy.maxAttempts))
                if attempts >= retryPolicy.maxAttempts || outOfTime {
                    if let quota { throw APIError.quotaPersisted(type: quota) }
                    throw APIError.unavailable("\(reason), \(attempts) attempt\(attempts == 1 ? "" : "s")")
                }
                log?("  retrying in \(Self.formatSeconds(delay)) s (\(reason))")
                retryWait?(RetryWait(seconds: delay, reason: quota ?? reason, nextAttempt: attempts + 1, maxAttempts: retryPolicy.maxAttempts))
                defer { retryWait?(nil) }
                try await sleep(delay)
                waited += delay
            }
        }
    }

    // MARK: - Streamed downloads

    /// Streams `request` (a GET signed by `signedHeaders`) to `receive` in one attempt over
    /// `streamingTransport`. A 2xx body goes to `receive` chunk by chunk; any other answer is judged
    /// as `send` judges it: a final one throws its `APIError`, a transient one (5xx, 429, a cut
    /// connection, a timeout) a `TransientFailure` naming `context`, for `retryingTransient` to retry.
    package func streamOnce(_ request: HTTPRequest, context: String, receive: ([UInt8]) throws -> Void) async throws {
        guard let streamingTransport else {
            preconditionFailure("MetrikaClient.streamOnce needs a streaming transport")
        }
        requestCounter.increment()
        let sentAt = DispatchTime.now().uptimeNanoseconds
        let step: Step<Void>
        do {
            let head = try await streamingTransport.exchange(request, upload: nil, receive: receive)
            logLine(request, status: "\(head.status)", since: sentAt)
            if (200..<300).contains(head.status) { return }
            switch classify(HTTPResponse(status: head.status, headers: head.headers, body: head.errorBody), from: request.url) {
            case .success: return
            case .fail(let error): step = .fail(error)
            case .retry(let reason, let retryAfter, let quota): step = .retry("\(context): \(reason)", retryAfter: retryAfter, quota: quota)
            }
        } catch let error as TransportError {
            step = transportStep(error, request: request, since: sentAt, context: context)
        }
        switch step {
        case .done: return
        case .fail(let error): throw error
        case .retry(let reason, let retryAfter, let quota): throw TransientFailure(description: reason, retryAfter: retryAfter, quota: quota)
        }
    }

    package enum Outcome {
        case success(HTTPResponse)
        case fail(APIError)
        case retry(String, retryAfter: Double?, quota: String?)
    }

    /// Decides what a response means: success, a final error, or a transient one worth retrying.
    package func classify(_ response: HTTPResponse, from url: URL) -> Outcome {
        let status = response.status
        if (200..<300).contains(status) { return .success(response) }
        if response.isRedirect { return .fail(.redirected(status: status, target: response.redirectTarget(from: url))) }
        // Preflight: a lone surrogate in the message must not cost the error type; a too deep body is no error JSON.
        let body = try? JSONDecoder().decode(WireErrorBody.self, from: JSONPreflight.prepare(response.body))
        let type = serverText(body?.errors?.first?.errorType ?? "")
        let apiMessage = serverText(body?.errors?.first?.message ?? body?.message ?? "")
        let retryAfter = response.headers["retry-after"].flatMap { Double($0.trimmingSpaces) }
        switch status {
        case 429, 420:
            if type == "quota_requests_by_uid" || type == "quota_requests_by_counter_id" || type == "quota_requests_by_uid_and_counter_id" {
                return .fail(.dailyQuota(type: type, resetsIn: APIError.untilMidnightGMT(from: now())))
            }
            return .retry("HTTP \(status) \(type.isEmpty ? "quota exceeded" : type)", retryAfter: retryAfter, quota: type.isEmpty ? "HTTP \(status)" : type)
        case 401:
            return .fail(.unauthorized(apiMessage.isEmpty ? "HTTP 401" : apiMessage))
        case 403:
            if type == "access_denied" || type == "counter_in_connect" {
                return .fail(.accessDenied(apiMessage.isEmpty ? "the token may not read this counter." : Self.sentence(apiMessage)))
            }
            return .fail(.invalidToken)
        case 404:
            return .fail(.notFound(apiMessage.isEmpty ? "the API has no \(response.status) object at that address" : apiMessage))
        case 400:
            if type == "query_error" { return .fail(.queryTooComplicated(apiMessage)) }
            if body == nil { return .fail(.unreadable("HTTP 400 with a body that is not the documented error JSON")) }
            return .fail(.badRequest(type: type.isEmpty ? "HTTP 400" : type, message: apiMessage))
        case 500..<600:
            let what = type.isEmpty ? "HTTP \(status)\(body == nil ? " (not JSON: a proxy or gateway answered)" : "")" : "HTTP \(status) \(type)"
            return .retry(what, retryAfter: retryAfter, quota: nil)
        default:
            return .fail(.unreadable("HTTP \(status)\(apiMessage.isEmpty ? "" : ": \(apiMessage)")"))
        }
    }

    /// `since` is a monotonic timestamp: request timing must not follow a pinned or jumping wall clock.
    private func logLine(_ request: HTTPRequest, status: String, since: UInt64) {
        guard let log else { return }
        let milliseconds = Int((DispatchTime.now().uptimeNanoseconds &- since) / 1_000_000)
        log("\(request.method) \(request.url.absoluteString) → \(status) (\(milliseconds) ms)")
    }

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

/// Thread-safe count of requests sent.
package final class RequestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    package init() {}

    package func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    /// Requests sent so far.
    package var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

/// The parameters of a Reporting API query (everything but paging).
package struct StatQuery: Sendable, Equatable {
    package var ids: [Int]
    package var metrics: [String]
    package var dimensions: [String]
    package var date1: String
    package var date2: String
    package var filters: String?
    package var sort: String?
    package var accuracy: String?
    package var preset: String?
    package var lang: String?
    package var group: String?
    /// `currency`: the currency of `<currency>` in money metrics (`RUB`, `USD`, `EUR`, `YND`);
    /// nil sends none, and the API answers in the counter's own.
    package var currency: String?
    /// `attribution`: the attribution model of `<attribution>` dimensions; nil sends none (the API's default).
    package var attribution: String?

    package init(ids: [Int], metrics: [String], dimensions: [String] = [], date1: String, date2: String, filters: String? = nil, sort: String? = nil, accuracy: String? = "full", preset: String? = nil, lang: String? = nil, group: String? = nil, currency: String? = nil, attribution: String? = nil) {
        self.ids = ids
        self.metrics = metrics
        self.dimensions = dimensions
        self.date1 = date1
        self.date2 = date2
        self.filters = filters
        self.sort = sort
        self.accuracy = accuracy
        self.preset = preset
        self.lang = lang
        self.group = group
        self.currency = currency
        self.attribution = attribution
    }

    var items: [(String, String)] {
        var items: [(String, String)] = [("ids", ids.map(String.init).joined(separator: ","))]
        if !metrics.isEmpty { items.append(("metrics", metrics.joined(separator: ","))) }
        if !dimensions.isEmpty { items.append(("dimensions", dimensions.joined(separator: ","))) }
        items.append(("date1", date1))
        items.append(("date2", date2))
        if let filters { items.append(("filters", filters)) }
        if let sort { items.append(("sort", sort)) }
        if let accuracy { items.append(("accuracy", accuracy)) }
        if let preset { items.append(("preset", preset)) }
        if let lang { items.append(("lang", lang)) }
        if let group { items.append(("group", group)) }
        if let currency { items.append(("currency", currency)) }
        if let attribution { items.append(("attribution", attribution)) }
        return items
    }
}
