import Foundation

/// One renewal of a token file at a time (issue 45 target 11): however many calls, keepers and
/// processes find its token due at once, exactly one refresh request is sent and the file written
/// once; the others take the renewed token.
///
/// - In this process: a renewal of a file in flight is awaited by every other keeper of that file
///   (single flight), and its outcome is kept for the refresh token it started from, so a keeper
///   that comes later reads it instead of asking again. A failure is kept `failureBackoff` seconds:
///   the calls in that time neither ask again nor say it again.
/// - Across processes: the renewal holds an exclusive lock on `<token file>.lock` (flock, taken
///   without blocking a thread: tried again every 20 ms), and reads the file again once it holds
///   it; a token another process renewed meanwhile is taken as it is, without a request. A failure
///   is kept beside the token file too (`<token file>.renewal`, 0600: when, why, the token's expiry,
///   when it was said — never a token): for `failureBackoff` seconds no process asks again, and it
///   is said once a day (again once the token has expired since), not by every process and run.
package actor TokenRenewals {
    package static let shared = TokenRenewals()

    /// Seconds a failed renewal is not tried again in this process.
    package static let failureBackoff: Double = 600

    /// A renewal's outcome.
    package enum Outcome: Sendable {
        case renewed(StoredToken)
        /// Why not: a sentence safe to print.
        case failed(String)
        /// Why not, said already (by another process, or within the day): not to be said again.
        case failedQuietly(String)
    }

    /// Seconds after a failed renewal was said before it is said again.
    package static let failureSaidAgainAfter: Double = 86_400

    /// A failed renewal as every process sees it (`<token file>.renewal`).
    package struct FailureMark: Codable, Sendable, Equatable {
        package var failedAt: Double
        /// The expiry of the token it failed to renew (a new login's token is another story).
        package var expiresAt: Double?
        package var reason: String
        package var saidAt: Double?

        enum CodingKeys: String, CodingKey {
            case failedAt = "failed_at"
            case expiresAt = "expires_at"
            case reason
            case saidAt = "said_at"
        }
    }

    /// `<path>.renewal`.
    package static func markPath(beside path: String) -> String { path + ".renewal" }

    /// The failure kept beside `path` for the token that expires at `expiresAt`; nil when none.
    package static func failureMark(beside path: String, expiresAt: Date?) -> FailureMark? {
        guard let data = FileManager.default.contents(atPath: markPath(beside: path)),
            let mark = try? JSONDecoder().decode(FailureMark.self, from: data),
            mark.expiresAt == expiresAt?.timeIntervalSince1970
        else { return nil }
        return mark
    }

    /// A failure kept beside `path` less than `failureBackoff` ago: no process asks again meanwhile.
    package static func backingOff(beside path: String, expiresAt: Date?, now: Date) -> FailureMark? {
        guard let mark = failureMark(beside: path, expiresAt: expiresAt) else { return nil }
        let since = now.timeIntervalSince1970 - mark.failedAt
        return since >= 0 && since < failureBackoff ? mark : nil
    }

    /// Keeps `outcome` beside `path` (called holding the lock): a renewal clears the failure; a failure
    /// is written (0600, atomically) and comes back quiet when it was said within the day and the
    /// token has not expired since.
    package static func keep(_ outcome: Outcome, beside path: String, expiresAt: Date?, now: Date) -> Outcome {
        let markPath = markPath(beside: path)
        guard case .failed(let reason) = outcome else {
            if case .renewed = outcome { unlink(markPath) }
            return outcome
        }
        let at = now.timeIntervalSince1970
        var mark = FailureMark(
            failedAt: at, expiresAt: expiresAt?.timeIntervalSince1970, reason: reason, saidAt: at)
        var said = false
        if let earlier = failureMark(beside: path, expiresAt: expiresAt), let saidAt = earlier.saidAt,
            at - saidAt >= 0, at - saidAt < failureSaidAgainAfter,
            !(expiresAt.map { saidAt < $0.timeIntervalSince1970 && $0.timeIntervalSince1970 <= at } ?? false)
        {
            mark.saidAt = saidAt
            said = true
        }
        if let data = try? JSONEncoder().encode(mark) {
            let temporary = markPath + ".\(getpid())"
            if FileManager.default.createFile(
                atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
            {
                chmod(temporary, 0o600)
                if rename(temporary, markPath) != 0 { unlink(temporary) }
            }
        }
        return said ? .failedQuietly(reason) : outcome
    }

    private struct Kept {
        var refreshToken: String
        var outcome: Outcome
        var at: Date
    }

    private var flights: [String: (refreshToken: String, task: Task<Outcome, Never>)] = [:]
    private var kept: [String: Kept] = [:]

    /// The renewal of the token file at `path` whose refresh token is `refreshToken`: `work` runs at
    /// most once for it at a time; `first` is true for the caller whose `work` ran (the one that says
    /// a failure).
    package func renew(
        path: String, refreshToken: String, now: Date, work: @escaping @Sendable () async -> Outcome
    ) async -> (outcome: Outcome, first: Bool) {
        if let flight = flights[path], flight.refreshToken == refreshToken {
            return (await flight.task.value, false)
        }
        if let last = kept[path], last.refreshToken == refreshToken {
            switch last.outcome {
            case .renewed: return (last.outcome, false)
            case .failed, .failedQuietly:
                if now.timeIntervalSince(last.at) < Self.failureBackoff, now >= last.at { return (last.outcome, false) }
            }
        }
        let task = Task { await work() }
        flights[path] = (refreshToken, task)
        let outcome = await task.value
        flights[path] = nil
        kept[path] = Kept(refreshToken: refreshToken, outcome: outcome, at: now)
        return (outcome, true)
    }

    /// Runs `body` holding the exclusive lock beside `path` (`<path>.lock`, 0600). A lock that cannot
    /// be made (a read-only directory) is done without; one held longer than `patience` seconds by
    /// another process is waited for no longer.
    package static func withFileLock<T: Sendable>(
        beside path: String, patience: Double = 30, _ body: () async -> T
    ) async -> T {
        let descriptor = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return await body() }
        defer { close(descriptor) }
        var tries = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0, errno == EWOULDBLOCK || errno == EINTR,
            Double(tries) * 0.02 < patience
        {
            tries += 1
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        defer { flock(descriptor, LOCK_UN) }
        return await body()
    }
}
