import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore
import MetrikaSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The quota ledger of a run (docs/reliability.md): every request to the API is admitted by the
// history database's ledger first, per Yandex login, so that every process on the machine keeps
// within each login's quotas.

extension Services {
    /// The ledger every request of the run's client passes, or nil when it is off: on for a run with a
    /// profile (`--profile`, METRIKA_PROFILE), and for every run with METRIKA_QUOTA_LEDGER=on; off
    /// with METRIKA_QUOTA_LEDGER=off.
    package func quotaGate() throws -> (any RequestGate)? {
        let setting = world.environment[EnvironmentSettings.quotaLedgerVariable]?.lowercased() ?? ""
        switch setting {
        case "off", "0", "no": return nil
        case "on", "1", "yes": break
        case "":
            guard try selectedProfiles() != nil else { return nil }
        default:
            throw ConfigError.badVariable(
                variable: EnvironmentSettings.quotaLedgerVariable, value: setting, expected: "on or off")
        }
        return QuotaLedgerGate(
            services: self, now: world.now, pinnedClock: world.environment["METRIKA_NOW"] != nil)
    }

    /// Each login's use as the ledger knows it, at the run's now (`metrika quota`).
    package func quotaUse() async throws -> [QuotaUse] {
        try await openHistory().quotaUse(at: world.now())
    }
}

/// The ledger as the client's `RequestGate`: a request that would pass a limit waits when the wait is
/// short (at most `maxWait` seconds in all), else is put off (`APIError.quotaPutOff`). The history
/// database is opened on the first request; one that cannot be opened leaves the run without a
/// ledger (said once), as a history that cannot be kept leaves it without a cache.
final class QuotaLedgerGate: RequestGate {
    let services: Services
    let now: @Sendable () -> Date
    /// METRIKA_NOW pins the run's clock: a window (the day, 5 minutes) cannot pass by waiting.
    let pinnedClock: Bool
    let limits = QuotaLimits.api
    /// The longest a request waits for its turn before it is put off.
    static let maxWait = 30.0

    init(services: Services, now: @escaping @Sendable () -> Date, pinnedClock: Bool) {
        self.services = services
        self.now = now
        self.pinnedClock = pinnedClock
    }

    func admit(login: String, reporting: Bool) async throws -> Int64 {
        let store: HistoryStore
        do {
            store = try await services.openHistory()
        } catch {
            return -1
        }
        var waited = 0.0
        while true {
            let decision: QuotaDecision
            do {
                decision = try await store.admitQuotaRequest(
                    login: login, reporting: reporting, at: now(), sent: Date(), pid: getpid(), limits: limits)
            } catch {
                // A history that cannot be written (full, read-only) costs the ledger, not the request.
                return -1
            }
            switch decision {
            case .admitted(let ticket):
                return ticket
            case .wait(let seconds, let limit):
                let window = limit == .daily || limit == .reporting
                if waited + seconds > Self.maxWait || (window && pinnedClock) {
                    throw APIError.quotaPutOff(
                        login: login, limit: limit.describe(limits), seconds: Int(seconds.rounded(.up)))
                }
                try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                waited += seconds
            }
        }
    }

    func finish(_ ticket: Int64) async {
        guard ticket >= 0, let store = try? await services.openHistory() else { return }
        try? await store.finishQuotaRequest(ticket)
    }
}
