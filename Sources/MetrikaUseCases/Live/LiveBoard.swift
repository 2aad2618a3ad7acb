import Foundation
import MetrikaModel
import MetrikaRender

/// The job behind `metrika live`: one refresh of every counter shown, each through its `LiveSource`
/// (at most one request per counter), judged by `LiveJudgement`. A counter whose refresh fails keeps
/// its place with the failure, so the others still draw.
package struct LiveBoard: Sendable {
    /// One counter's refresh: what to draw, or why there is nothing.
    package enum Outcome: Sendable {
        case snapshot(LiveSnapshot)
        case failed(counter: Counter, failure: any MetrikaFailure)
    }

    package let counters: [Counter]
    package let source: any LiveSource
    package let activity: any Activity

    package init(counters: [Counter], source: any LiveSource, activity: any Activity) {
        self.counters = counters
        self.source = source
        self.activity = activity
    }

    /// Refreshes every counter, in order; an error that is no `MetrikaFailure` is thrown (a bug, not a counter's
    /// trouble).
    package func refresh() async throws -> [Outcome] {
        var outcomes: [Outcome] = []
        for counter in counters {
            let now = activity.now()
            do {
                outcomes.append(
                    .snapshot(LiveJudgement.snapshot(try await source.hours(of: counter, now: now), now: now)))
            } catch let failure as any MetrikaFailure {
                outcomes.append(.failed(counter: counter, failure: failure))
            }
        }
        return outcomes
    }
}
