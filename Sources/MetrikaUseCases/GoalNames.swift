import MetrikaAPI
import MetrikaModel

/// The names of the goals that goal metrics (`goal<ID>reaches`) refer to, for column titles.
package enum GoalNames {
    /// Goal names for the goal metrics among `metrics`, read from the counters' goals lists — one
    /// request per counter, only when there is a goal metric, stopping once every goal is named.
    /// Best effort: a failure leaves the `Goal <ID>` titles and says so in one warning.
    package static func load(for metrics: [Metric], counterIDs: [Int], client: MetrikaClient?, activity: any Activity)
        async -> [Int: String]
    {
        var wanted = Set(metrics.compactMap(\.goalID))
        guard !wanted.isEmpty, let client else { return [:] }
        var names: [Int: String] = [:]
        for id in counterIDs where !wanted.isEmpty {
            do {
                for goal in try await client.fetchGoals(counterID: id) where wanted.contains(goal.id) {
                    names[goal.id] = goal.name
                    wanted.remove(goal.id)
                }
            } catch let failure as any MetrikaFailure {
                activity.note(
                    "Warning: could not read counter \(id)'s goals (\(activity.naming.message(of: failure))); goal columns keep their ids."
                )
                break
            } catch {
                activity.note(
                    "Warning: could not read counter \(id)'s goals (\(activity.naming.reason(error))); goal columns keep their ids."
                )
                break
            }
        }
        return names
    }
}
