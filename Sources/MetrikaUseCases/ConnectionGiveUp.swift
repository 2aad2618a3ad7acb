import Foundation
import MetrikaAPI
import MetrikaModel

/// The rule that ends a run over many counters when its API goes away: after `limit` counters in a
/// row failed because the host could not be reached (every attempt of the retry policy spent on a
/// connection that failed, timed out or broke, or on 5xx answers), the host is taken as gone and the
/// run stops rather than spending the policy's attempts and an `Error:` line on every counter left.
/// A counter that gets through, or fails for a reason of its own (access, a bad id), ends the streak.
/// Used by `sync` (`SyncRun`); shaped for any per-counter run (an alert check) to hold one too.
package struct ConnectionGiveUp: Sendable, Equatable {
    /// Consecutive connection failures to one host that end the run.
    package let limit: Int
    /// The host of the current streak and its length.
    package private(set) var host: String?
    package private(set) var streak = 0
    /// The last connection failure's reason, said when the run gives up.
    package private(set) var lastReason: String?

    package init(limit: Int = 3) {
        precondition(limit > 0, "ConnectionGiveUp needs a positive limit")
        self.limit = limit
    }

    /// Whether `failure` says the host could not be reached (not that it refused the request).
    package static func isConnectionFailure(_ failure: any Error) -> Bool {
        switch failure {
        case APIError.unavailable: return true
        case let transient as TransientFailure: return transient.quota == nil
        default: return false
        }
    }

    /// Records one counter's end: `failure` nil when it got through (its reason kept in the entry
    /// point's words, `naming`). Returns true when the run should give up (this was the `limit`th
    /// connection failure in a row to `host`).
    @discardableResult
    package mutating func record(_ failure: (any Error)?, host: String, naming: ParameterNaming = .neutral) -> Bool {
        guard let failure, Self.isConnectionFailure(failure) else {
            self.host = nil
            streak = 0
            lastReason = nil
            return false
        }
        if self.host != host {
            self.host = host
            streak = 0
        }
        streak += 1
        lastReason = (failure as? any MetrikaFailure).map { naming.message(of: $0) }
        return streak >= limit
    }

    /// Whether the limit has been reached.
    package var gaveUp: Bool { streak >= limit }
}
