import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore
import Synchronization

/// `metrika live`'s source of hours: `HourlyHistory` (one request per counter and refresh; the earlier
/// weeks from the history database) for visits and the reaches of the counter's first goals, all in
/// that one request. It adds up the requests it has spent per counter and local day, so the footer
/// can say what today's refreshes cost.
package final class HourlyLiveSource: LiveSource {
    package let history: HourlyHistory
    /// The goals each counter shows (read once, at the start: they do not change by the minute).
    private let goals: [Int: [(goal: Goal, metric: Metric)]]
    /// Requests spent per counter on its local day.
    private let spent = Mutex<[Int: (day: Day, requests: Int)]>([:])

    /// Goals shown at most (one request holds 18 metrics: visits and these).
    package static let goalLimit = 8
    /// How old a stored goals list may be before it is read again (as the alert check's).
    static let goalsMaxAge: TimeInterval = 20 * 3600

    package init(history: HourlyHistory, goals: [Int: [Goal]]) {
        self.history = history
        self.goals = goals.mapValues { list in
            Array(
                list.compactMap { goal in Metric.named("goal\(goal.id)reaches").map { (goal, $0) } }.prefix(
                    Self.goalLimit))
        }
    }

    /// The source over `loader`'s database and client, with each counter's goals: the stored list when
    /// fresh, else read once now (a counter whose goals cannot be read shows none, with a note).
    package static func make(counters: [Counter], loader: HistoryLoader, activity: any Activity) async throws
        -> HourlyLiveSource
    {
        var goals: [Int: [Goal]] = [:]
        for counter in counters {
            let stored = try await loader.store.storedGoals(counterID: counter.id)
            if let stored, activity.now().timeIntervalSince(stored.fetchedAt) < goalsMaxAge {
                goals[counter.id] = stored.goals
                continue
            }
            guard let client = loader.client else {
                goals[counter.id] = stored?.goals ?? []
                continue
            }
            do {
                let list = try await client.fetchGoals(counterID: counter.id)
                try await loader.store.storeGoals(counterID: counter.id, goals: list, fetchedAt: activity.now())
                goals[counter.id] = list
            } catch let failure as any MetrikaFailure {
                if failure is StoreError { throw failure }
                activity.note(
                    "Warning: counter \(counter.id): could not read its goals (\(activity.naming.message(of: failure))); showing visits only."
                )
                goals[counter.id] = stored?.goals ?? []
            }
        }
        return HourlyLiveSource(
            history: HourlyHistory(store: loader.store, client: loader.client, now: loader.now), goals: goals)
    }

    package func hours(of counter: Counter, now: Date) async throws -> LiveHours {
        let shown = goals[counter.id] ?? []
        let snapshot = try await history.load(counter: counter, metrics: [.visits] + shown.map(\.metric))
        let requests = spent.withLock { spent -> Int in
            let before = spent[counter.id].flatMap { $0.day == snapshot.today ? $0.requests : nil } ?? 0
            spent[counter.id] = (snapshot.today, before + snapshot.requests)
            return before + snapshot.requests
        }
        let baseline = (0..<24).map { hour -> LiveSnapshot.Band? in
            let values = snapshot.baselineValues(hour: hour, metric: 0)
            guard let median = HourlyHistory.median(values), let low = values.min(), let high = values.max() else {
                return nil
            }
            return LiveSnapshot.Band(low: low, median: median, high: high)
        }
        let goalHours = shown.enumerated().map { index, pair in
            LiveHours.Goal(
                name: pair.goal.name,
                reaches: (0..<24).map { snapshot.value(hour: $0, metric: index + 1) },
                usual: (0..<24).map { snapshot.baseline(hour: $0, metric: index + 1) })
        }
        return LiveHours(
            counter: counter, visits: (0..<24).map { snapshot.value(hour: $0, metric: 0) }, baseline: baseline,
            goals: goalHours, lastData: snapshot.lastData, requestsToday: requests,
            finishedHours: snapshot.finishedHours)
    }
}
