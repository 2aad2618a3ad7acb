import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The API's quotas per Yandex login (metrika-api.md §3, §7) as the ledger keeps them.
package struct QuotaLimits: Sendable, Equatable {
    /// Requests a login may send per API day (the day resets at 00:00 UTC).
    package var daily = 5_000
    /// Reporting API (`/stat/…`) requests a login may send in any 5 minutes.
    package var reportingPer5Minutes = 200
    /// Requests of a login in flight at once.
    package var parallel = 3
    /// Requests a second from the machine, every login together: the API allows 30 per address; the
    /// ledger keeps 25, a margin for the time between counting a request and its arrival (measured: at
    /// 30, jitter let the simulator see 31 in one of its seconds about once every 40 requests).
    package var perSecond = 25

    package static let api = QuotaLimits()

    package init() {}
}

/// One limit of the ledger, as a refusal names it.
package enum QuotaLimit: String, Sendable, Equatable {
    case daily, reporting, parallel, perSecond

    /// `daily quota (5,000 requests a day, resets 00:00 UTC)`.
    package func describe(_ limits: QuotaLimits) -> String {
        switch self {
        case .daily: return "daily quota (\(limits.daily) requests a day; it resets at 00:00 UTC)"
        case .reporting: return "Reporting quota (\(limits.reportingPer5Minutes) requests in 5 minutes)"
        case .parallel: return "parallel quota (\(limits.parallel) requests at once)"
        case .perSecond: return "per-address quota (30 requests a second; the ledger keeps \(limits.perSecond))"
        }
    }
}

/// What the ledger says to one request.
package enum QuotaDecision: Sendable, Equatable {
    /// Counted and in flight: `finishQuotaRequest` it when answered.
    case admitted(ticket: Int64)
    /// Sending now would pass `limit`; it could go in `seconds`.
    case wait(seconds: Double, limit: QuotaLimit)
}

/// One login's use, as `metrika quota` shows it.
package struct QuotaUse: Sendable, Equatable {
    package var login: String
    package var today: Int
    package var last5Minutes: Int
    package var inFlight: Int
}

/// The quota ledger (tables `quota_requests`, `quota_in_flight`): one write transaction per admission,
/// so processes sharing the database queue on its lock and never both take the last request.
extension HistoryStore {
    /// Admits one request of `login` at `at` (the run's clock; `sent`: the machine's) when every limit
    /// allows it, counting it and marking it in flight for process `pid`; else how long to wait.
    package func admitQuotaRequest(
        login: String, reporting: Bool, at: Date, sent: Date, pid: Int32, limits: QuotaLimits = .api
    ) async throws -> QuotaDecision {
        try await withLock { database in
            try database.inTransaction {
                let now = at.timeIntervalSince1970
                let wall = sent.timeIntervalSince1970
                // In flight: rows of processes that are gone, or older than any request lives, do not count.
                let flying = try database.rows(
                    "SELECT id, pid, started FROM quota_in_flight WHERE login = ?", [.text(login)])
                var live = 0
                for row in flying {
                    let id = row[0].int ?? 0
                    let owner = Int32(row[1].int ?? 0)
                    let started = row[2].double ?? 0
                    if wall - started > 900 || (owner != pid && kill(owner, 0) != 0 && errno == ESRCH) {
                        try database.execute("DELETE FROM quota_in_flight WHERE id = ?", [.integer(Int64(id))])
                    } else {
                        live += 1
                    }
                }
                if live >= limits.parallel { return .wait(seconds: 0.05, limit: .parallel) }
                let dayStart = (now / 86_400).rounded(.down) * 86_400
                let today =
                    try database.rows(
                        "SELECT count(*) FROM quota_requests WHERE login = ? AND at >= ? AND at < ?",
                        [.text(login), .real(dayStart), .real(dayStart + 86_400)]
                    ).first?.first?.int ?? 0
                if today >= limits.daily { return .wait(seconds: dayStart + 86_400 - now, limit: .daily) }
                if reporting {
                    let window = try database.rows(
                        "SELECT count(*), min(at) FROM quota_requests WHERE login = ? AND reporting = 1 AND at > ? AND at <= ?",
                        [.text(login), .real(now - 300), .real(now)])
                    if let row = window.first, (row[0].int ?? 0) >= limits.reportingPer5Minutes {
                        // The oldest leaves the window 5 minutes after it was sent.
                        let oldest = row[1].double ?? now
                        return .wait(seconds: max(oldest + 300 - now, 0.05), limit: .reporting)
                    }
                }
                let second = try database.rows(
                    "SELECT count(*), min(sent) FROM quota_requests WHERE sent > ?", [.real(wall - 1)])
                if let row = second.first, (row[0].int ?? 0) >= limits.perSecond {
                    return .wait(seconds: max((row[1].double ?? wall) + 1 - wall, 0.01), limit: .perSecond)
                }
                try database.execute(
                    "INSERT INTO quota_requests (login, at, sent, reporting) VALUES (?, ?, ?, ?)",
                    [.text(login), .real(now), .real(wall), .integer(reporting ? 1 : 0)])
                try database.execute(
                    "INSERT INTO quota_in_flight (login, pid, started) VALUES (?, ?, ?)",
                    [.text(login), .integer(Int64(pid)), .real(wall)])
                let ticket = Int64(try database.rows("SELECT last_insert_rowid()").first?.first?.int ?? 0)
                if today % 500 == 0 {
                    // Now and then, forget what no window looks at any more.
                    try database.execute(
                        "DELETE FROM quota_requests WHERE login = ? AND at < ?",
                        [.text(login), .real(dayStart - 86_400)])
                }
                return .admitted(ticket: ticket)
            }
        }
    }

    /// The request of `ticket` was answered: no longer in flight.
    package func finishQuotaRequest(_ ticket: Int64) async throws {
        try await withLock { database in
            try database.execute("DELETE FROM quota_in_flight WHERE id = ?", [.integer(ticket)])
        }
    }

    /// Records `count` requests of `login` at `at` that were sent without the ledger (another tool on
    /// the same login): later runs leave them their share. `reporting`: they were Reporting requests.
    package func recordQuotaUse(login: String, count: Int, reporting: Bool, at: Date) async throws {
        try await withLock { database in
            try database.inTransaction {
                let statement = try database.prepare(
                    "INSERT INTO quota_requests (login, at, sent, reporting) VALUES (?, ?, ?, ?)")
                for _ in 0..<max(0, count) {
                    try statement.run([
                        .text(login), .real(at.timeIntervalSince1970), .real(0), .integer(reporting ? 1 : 0)
                    ])
                }
            }
        }
    }

    /// Each login's use at `at`: today's requests (the UTC day), the last 5 minutes' Reporting
    /// requests, and those in flight; logins in alphabetical order.
    package func quotaUse(at: Date) async throws -> [QuotaUse] {
        try await withLock { database in
            let now = at.timeIntervalSince1970
            let dayStart = (now / 86_400).rounded(.down) * 86_400
            var uses: [String: QuotaUse] = [:]
            for row in try database.rows(
                """
                SELECT login, sum(at >= ? AND at < ?), sum(reporting = 1 AND at > ? AND at <= ?)
                FROM quota_requests WHERE at >= ? GROUP BY login
                """,
                [
                    .real(dayStart), .real(dayStart + 86_400), .real(now - 300), .real(now),
                    .real(min(dayStart, now - 300))
                ])
            {
                let login = row[0].string ?? ""
                uses[login] = QuotaUse(login: login, today: row[1].int ?? 0, last5Minutes: row[2].int ?? 0, inFlight: 0)
            }
            for row in try database.rows("SELECT login, count(*) FROM quota_in_flight GROUP BY login") {
                let login = row[0].string ?? ""
                uses[login, default: QuotaUse(login: login, today: 0, last5Minutes: 0, inFlight: 0)].inFlight =
                    row[1].int ?? 0
            }
            return uses.values.sorted { $0.login < $1.login }
        }
    }
}
