import Foundation
import Synchronization

// MARK: - Per-login quotas (metrika-api.md §3, §7), on only with `--quotas`

/// What the simulator counts of one login's use (the login that sends: a request with `ulogin` counts
/// against the representative's login, not the account it acts for).
struct LoginQuotaUse: Sendable {
    /// The UTC day `today` counts (the API resets at 00:00 GMT).
    var day = ""
    var today = 0
    /// Reporting requests of the last 5 minutes (the simulator's clock).
    var reporting: [Date] = []
    var inFlight = 0
    var requests = 0
    var maxReporting5Minutes = 0
    var peakInFlight = 0
    var rejected: [String: Int] = [:]
}

/// The quota counters of a simulator: per login, and the machine's last second of requests.
struct QuotaState: Sendable {
    var logins: [String: LoginQuotaUse] = [:]
    /// Monotonic nanoseconds of the requests of the last second (the per-address limit).
    var lastSecond: [UInt64] = []
}

/// The limits the simulator enforces with `--quotas`: the API's documented ones.
enum QuotaLimits {
    static let daily = 5_000
    static let reportingPer5Minutes = 200
    static let parallel = 3
    static let perSecondPerAddress = 30
}

extension Simulator {
    /// The login a request is sent by (its token's), or nil for OAuth calls and unknown tokens.
    func sendingLogin(_ request: HTTPRequest) -> String? {
        options.quotas ? tokenLogin(request) : nil
    }

    /// The login of the request's token, or nil for OAuth calls and unknown tokens.
    func tokenLogin(_ request: HTTPRequest) -> String? {
        guard !["/device/code", "/token", "/revoke_token"].contains(request.path),
            let header = request.header("authorization")
        else { return nil }
        let pieces = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard pieces.count == 2 else { return nil }
        let token = pieces[1].trimmingCharacters(in: .whitespaces)
        if let fixture = fixtures.tokens[token] { return fixture.revoked ? nil : fixture.login }
        return issuedGrant(for: token)?.login
    }

    /// Counts `request` against `login`'s quotas; the API's 429 answer when it would pass one.
    func admitQuota(_ request: HTTPRequest, login: String) -> HTTPResponse? {
        let now = now()
        let day = Simulator.utcDay(now)
        let reporting = request.path.hasPrefix("/stat/")
        let monotonic = DispatchTime.now().uptimeNanoseconds
        let refusal: String? = quotas.withLock { state in
            state.lastSecond.removeAll { monotonic &- $0 >= 1_000_000_000 }
            var use = state.logins[login] ?? LoginQuotaUse()
            if use.day != day {
                use.day = day
                use.today = 0
            }
            use.reporting.removeAll { now.timeIntervalSince($0) >= 300 }
            var refusal: String?
            if state.lastSecond.count >= QuotaLimits.perSecondPerAddress {
                refusal = "quota_requests_by_ip"
            } else if use.inFlight >= QuotaLimits.parallel {
                refusal = "quota_parallel_requests"
            } else if use.today >= QuotaLimits.daily {
                refusal = "quota_requests_by_uid"
            } else if reporting, use.reporting.count >= QuotaLimits.reportingPer5Minutes {
                refusal = "quota_requests_by_uid/5min"
            }
            if let refusal {
                use.rejected[refusal, default: 0] += 1
            } else {
                state.lastSecond.append(monotonic)
                use.today += 1
                use.requests += 1
                use.inFlight += 1
                use.peakInFlight = max(use.peakInFlight, use.inFlight)
                if reporting {
                    use.reporting.append(now)
                    use.maxReporting5Minutes = max(use.maxReporting5Minutes, use.reporting.count)
                }
            }
            state.logins[login] = use
            return refusal
        }
        guard let refusal else { return nil }
        if refusal == "quota_requests_by_uid/5min" {
            return APIError.response(
                429, "quota_requests_by_uid",
                "Quota exceeded: Reporting API request limit for the user (200 per 5 minutes)")
        }
        return APIError.response(429, refusal, Simulator.quotaMessage(refusal, path: request))
    }

    /// The end of an admitted request: it is no longer in flight.
    func releaseQuota(login: String) {
        quotas.withLock { $0.logins[login]?.inFlight -= 1 }
    }

    static func utcDay(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// `GET /__sim/quota`: each login's use, what was refused, and the peaks.
    func quotaDocument() -> JSONValue {
        let now = now()
        let logins = quotas.withLock { $0.logins }
        var rows: [JSONValue] = []
        var rejectedTotal = 0
        for (login, use) in logins.sorted(by: { $0.key < $1.key }) {
            let rejected = use.rejected.values.reduce(0, +)
            rejectedTotal += rejected
            rows.append(
                .object([
                    ("login", .string(login)),
                    ("today", .int(use.today)),
                    ("requests", .int(use.requests)),
                    ("reporting_5min", .int(use.reporting.filter { now.timeIntervalSince($0) < 300 }.count)),
                    ("max_reporting_5min", .int(use.maxReporting5Minutes)),
                    ("in_flight", .int(use.inFlight)),
                    ("peak_in_flight", .int(use.peakInFlight)),
                    ("rejected", .int(rejected)),
                    (
                        "rejected_by_type",
                        .object(use.rejected.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) })
                    )
                ]))
        }
        return .object([
            ("quotas", .bool(options.quotas)), ("rejected", .int(rejectedTotal)), ("logins", .array(rows))
        ])
    }

    /// `POST /__sim/quota {"login": L, "used_today": N, "reporting": M}`: a login whose quota is
    /// partly spent already (its requests of today and of the last 5 minutes, at the simulator's now).
    func spendQuota(_ document: JSONValue) -> HTTPResponse {
        guard let login = document["login"]?.stringValue else {
            return .json(400, .object([("error", .string("invalid_quota")), ("message", .string("login is required"))]))
        }
        let now = now()
        quotas.withLock { state in
            var use = state.logins[login] ?? LoginQuotaUse()
            let day = Simulator.utcDay(now)
            if use.day != day {
                use.day = day
                use.today = 0
            }
            use.today += document["used_today"]?.intValue ?? 0
            let reporting = document["reporting"]?.intValue ?? 0
            use.reporting += Array(repeating: now, count: max(0, reporting))
            state.logins[login] = use
        }
        return .json(200, quotaDocument())
    }

    /// `POST /__sim/clock {"now": INSTANT}` or `{"advance": SECONDS}`: moves the simulator's clock.
    func setClock(_ document: JSONValue) -> HTTPResponse {
        if let text = document["now"]?.stringValue, let date = SimulatorOptions.parseInstant(text) {
            clock.withLock { $0 = date }
        } else if let seconds = document["advance"]?.doubleValue {
            let current = now()
            clock.withLock { $0 = current.addingTimeInterval(seconds) }
        } else {
            return .json(
                400,
                .object([("error", .string("invalid_clock")), ("message", .string("give now (ISO 8601) or advance"))]))
        }
        let formatter = ISO8601DateFormatter()
        return .json(200, .object([("now", .string(formatter.string(from: now())))]))
    }
}
