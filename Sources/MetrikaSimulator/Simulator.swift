import Foundation
import Synchronization

/// A shape of real Logs API data that integrations reported (docs/clickhouse.md names the sources).
package enum LogsQuirk: String, Sendable, CaseIterable {
    /// String arrays with their element quotes escaped again: `[\'a\',\'b\']` (logs_api_integration bdd94f7).
    case escapedArrayQuotes = "escaped_array_quotes"
    /// Such an array whose element holds `"`, wrapped in CSV quotes: `"[\'1/2""\']"` (logs_api_integration#33).
    case csvQuotedArray = "csv_quoted_array"
    /// The header (and every row) in case-insensitive alphabetical order, not the requested one (#4).
    case headerOrder = "header_order"
    /// CRLF line ends, a byte order mark before the header, no line feed after the last row.
    case crlf, bom
    case noFinalNewline = "no_final_newline"
    /// One row per part with a raw tab inside a value: a field too many, which cannot be loaded.
    case brokenRow = "broken_row"
}

/// How a simulator instance is set up.
package struct SimulatorOptions: Sendable {
    /// The fixture directory (holds `counters.json` and `tokens.json`).
    package var fixturesDirectory: URL
    /// A frozen "now"; nil follows the real clock.
    package var now: Date?
    /// The `interval` the device-code endpoint tells clients to poll at, in seconds.
    package var deviceInterval: Int
    /// How many polls of `POST /token` answer `authorization_pending` before the user "confirms".
    package var devicePendingPolls: Int
    /// Info polls of a log request answered `created` before it is `processed` (at least 1).
    package var logsReadyPolls = 2
    /// Rows per day of every log request; nil takes the day's visits (or pageviews) from the traffic model.
    package var logsRowsPerDay: Int?
    /// Rows per downloadable part.
    package var logsPartRows = 200_000
    /// The `max_possible_day_quantity` evaluate answers; longer requests are refused.
    package var logsMaxDays = 366
    /// Shapes real Logs API parts arrive in (docs/simulator.md, `--logs-quirks`), all off by default.
    package var logsQuirks: Set<LogsQuirk> = []
    /// Enforce each login's quotas (5,000 a day, 200 Reporting requests per 5 minutes, 3 in flight)
    /// and 30 requests a second overall, answering 429 as the API does (`--quotas`); off by default.
    package var quotas = false

    /// Options with the documented defaults (real clock, interval 5 s, 2 pending polls).
    package init(fixturesDirectory: URL, now: Date? = nil, deviceInterval: Int = 5, devicePendingPolls: Int = 2) {
        self.fixturesDirectory = fixturesDirectory
        self.now = now
        self.deviceInterval = deviceInterval
        self.devicePendingPolls = devicePendingPolls
    }

    /// The fixture directory named by `METRIKA_FAKE_FIXTURES`, if set.
    package static func fixturesDirectory(fromEnvironment environment: [String: String]) -> URL? {
        guard let path = environment["METRIKA_FAKE_FIXTURES"], !path.isEmpty else { return nil }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Reads `2026-06-15T12:00:00Z` (or with an offset, or fractional seconds) for `--now`.
    package static func parseInstant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

/// The simulated Yandex.Metrika + Yandex OAuth service: turns requests into responses.
///
/// It owns the fixtures, the request log, the fault queue and the OAuth state; the HTTP server only
/// moves bytes. Every entry point is safe to call from many connection threads at once.
package final class Simulator: Sendable {
    let options: SimulatorOptions
    let fixtures: FixtureSet
    let state: Mutex<SimulatorState>
    let model: TrafficModel
    /// Each login's quota use (`--quotas`).
    let quotas = Mutex(QuotaState())
    /// The clock as `POST /__sim/clock` set it; nil: `options.now` or the real clock.
    let clock = Mutex<Date?>(nil)

    /// Loads the fixtures; throws `FixtureError` when they are unusable.
    package init(options: SimulatorOptions) throws {
        self.options = options
        self.fixtures = try FixtureSet.load(from: options.fixturesDirectory, now: options.now ?? Date())
        self.state = Mutex(SimulatorState())
        self.model = TrafficModel()
    }

    /// The simulator's current time: the frozen instant, or the real clock.
    func now() -> Date { clock.withLock { $0 } ?? options.now ?? Date() }

    /// Answers one request. Control endpoints under `/__sim/` bypass faults and the log.
    package func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.path.hasPrefix("/__sim/") || request.path == "/__sim" {
            return handleControl(request)
        }
        let fault = takeFault(for: request.path)
        var response: HTTPResponse
        if let fault {
            response = respond(to: request, under: fault)
            if let retryAfter = fault.retryAfter {
                response.headers.append((name: "Retry-After", value: String(retryAfter)))
            }
        } else if let login = sendingLogin(request) {
            if let refused = admitQuota(request, login: login) {
                response = refused
            } else {
                response = route(request)
                releaseQuota(login: login)
            }
        } else {
            response = route(request)
        }
        let entry = LogEntry(
            method: request.method,
            path: request.path,
            query: Simulator.redactedQuery(request.query),
            hasAuthorization: request.header("authorization") != nil,
            status: response.status, login: tokenLogin(request))
        state.withLock { $0.log.append(entry) }
        return response
    }

    /// A query string with any `oauth_token` value blanked, so a client that leaks its token into a
    /// URL is visible in the log without the token being stored.
    static func redactedQuery(_ query: String) -> String {
        guard query.contains("oauth_token") else { return query }
        return query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            part.hasPrefix("oauth_token=") ? "oauth_token=REDACTED" : String(part)
        }.joined(separator: "&")
    }

    // MARK: - Routing

    func route(_ request: HTTPRequest) -> HTTPResponse {
        var path = request.path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if path.hasSuffix(".json") { path.removeLast(5) }
        let parts = path.split(separator: "/").map(String.init)

        switch parts {
        case ["management", "v1", "counters"]:
            return requireGET(request) ?? listCounters(request)
        case ["management", "v1", "accounts"]:
            return requireGET(request) ?? listAccounts(request)
        case _ where parts.count == 4 && parts[0] == "management" && parts[1] == "v1" && parts[2] == "counter":
            return requireGET(request) ?? showCounter(request, id: parts[3])
        case _
        where parts.count == 5 && parts[0] == "management" && parts[1] == "v1" && parts[2] == "counter"
            && parts[4] == "goals":
            return requireGET(request) ?? listGoals(request, id: parts[3])
        case _
        where parts.count == 5 && parts[0] == "management" && parts[1] == "v1" && parts[2] == "counter"
            && parts[4] == "chart_annotations":
            if request.method == "POST" { return chartAnnotations(request, id: parts[3]) }
            return requireGET(request) ?? chartAnnotations(request, id: parts[3])
        case _
        where parts.count >= 5 && parts[0] == "management" && parts[1] == "v1" && parts[2] == "counter"
            && (parts[4] == "logrequests" || parts[4] == "logrequest"):
            return routeLogs(request, parts)
        case ["stat", "v1", "data"]:
            return requireGET(request) ?? statData(request)
        case ["stat", "v1", "data", "bytime"]:
            return requireGET(request) ?? statByTime(request)
        case ["stat", "v1", "data", "comparison"]:
            return requireGET(request) ?? statComparison(request)
        case ["device", "code"]:
            return requirePOST(request) ?? deviceCode(request)
        case ["token"]:
            return requirePOST(request) ?? token(request)
        case ["revoke_token"]:
            return requirePOST(request) ?? revokeToken(request)
        default:
            return APIError.response(404, "not_found", "No such resource: \(request.path)")
        }
    }

    private func requireGET(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method != "GET" && request.method != "HEAD" else { return nil }
        var response = APIError.response(405, "invalid_parameter", "Method \(request.method) is not allowed here")
        response.headers.append((name: "Allow", value: "GET"))
        return response
    }

    private func requirePOST(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method != "POST" else { return nil }
        var response = HTTPResponse.json(
            405, .object([("error", .string("invalid_request")), ("error_description", .string("use POST"))]))
        response.headers.append((name: "Allow", value: "POST"))
        return response
    }

    // MARK: - Authorization

    /// Who is calling, or the error response that ends the request.
    enum Caller {
        case authorized(TokenFixture)
        case rejected(HTTPResponse)
    }

    /// Resolves the `Authorization: OAuth <token>` header (`Bearer` accepted too). A token in the
    /// URL (`oauth_token=`) authenticates nothing, as on the real service since 2019.
    func authorize(_ request: HTTPRequest) -> Caller {
        guard let header = request.header("authorization") else { return .rejected(APIError.unauthorized()) }
        let pieces = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard pieces.count == 2 else { return .rejected(APIError.unauthorized()) }
        let scheme = pieces[0].lowercased()
        guard scheme == "oauth" || scheme == "bearer" else { return .rejected(APIError.unauthorized()) }
        let token = pieces[1].trimmingCharacters(in: .whitespaces)
        let caller: TokenFixture
        if let fixture = fixtures.tokens[token] {
            if fixture.revoked { return .rejected(APIError.invalidToken()) }
            caller = fixture
        } else if let issued = issuedGrant(for: token) {
            caller = issued
        } else {
            return .rejected(APIError.invalidToken())
        }
        // A representative acting for an account it represents sees what that account sees.
        guard let ulogin = request.queryItems.first(where: { $0.0 == "ulogin" })?.1, !ulogin.isEmpty,
            ulogin != caller.login
        else { return .authorized(caller) }
        guard caller.represents.contains(ulogin) else {
            let message = "Login \(caller.login) does not represent the account \(ulogin)"
            return .rejected(APIError.response(403, "access_denied", message))
        }
        return .authorized(fixtures.acting(as: ulogin))
    }

    /// The counter `idText` names, if the caller may read it; otherwise the 404/403 answer.
    func readableCounter(_ idText: String, by caller: TokenFixture) -> Result<CounterFixture, ResponseError> {
        guard let id = Int(idText), let counter = fixtures.counter(id) else {
            return .failure(ResponseError(APIError.counterNotFound(idText)))
        }
        guard caller.canRead(id) else { return .failure(ResponseError(APIError.accessDenied(counter: id))) }
        return .success(counter)
    }
}

/// A response carried through `Result` and `throws`.
struct ResponseError: Error {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}

/// Mutable simulator state, always accessed under its lock.
struct SimulatorState {
    var log: [LogEntry] = []
    var faults: [Fault] = []
    var oauth = OAuthState()
    var logs = LogsState()
    /// Chart annotations `POST`ed while the simulator runs, per counter.
    var annotations: [Int: [JSONValue]] = [:]
}
