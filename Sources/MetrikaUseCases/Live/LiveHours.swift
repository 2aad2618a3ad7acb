import Foundation
import MetrikaModel
import MetrikaRender

/// Today's numbers of one counter hour by hour, as a refresh of `metrika live` gets them: visits, the
/// band of the same hours on the same weekday of earlier weeks, each goal's reaches with its usual
/// hours, the time of the newest data and the requests spent today. `LiveJudgement` turns it into
/// what the view shows.
package struct LiveHours: Sendable, Equatable {
    /// One goal's hours today and its usual hours (the earlier weeks' median).
    package struct Goal: Sendable, Equatable {
        package var name: String
        /// 24 slots; nil for an hour with no data.
        package var reaches: [Double?]
        /// 24 slots; nil where there is no history.
        package var usual: [Double?]

        package init(name: String, reaches: [Double?], usual: [Double?]) {
            self.name = name
            self.reaches = reaches
            self.usual = usual
        }
    }

    package var counter: Counter
    /// Visits, 24 slots (00:00 … 23:00 in the counter's time zone); nil for an hour with no data yet.
    package var visits: [Double?]
    /// The earlier weeks' band per hour; nil where there is no history.
    package var baseline: [LiveSnapshot.Band?]
    package var goals: [Goal]
    /// The newest data the API has (its `data_lag` behind the request), if known.
    package var lastData: Date?
    /// Requests spent today for this counter.
    package var requestsToday: Int
    /// Hours `0..<finishedHours` are over and the API has caught up with them (its data lag); nil:
    /// every hour before the running one.
    package var finishedHours: Int?

    package init(
        counter: Counter, visits: [Double?], baseline: [LiveSnapshot.Band?], goals: [Goal] = [],
        lastData: Date? = nil, requestsToday: Int = 0, finishedHours: Int? = nil
    ) {
        self.counter = counter
        self.visits = visits
        self.baseline = baseline
        self.goals = goals
        self.lastData = lastData
        self.requestsToday = requestsToday
        self.finishedHours = finishedHours
    }
}

/// Where a refresh gets a counter's hours: at most one request per counter (the earlier weeks come
/// from the history database). Production reads `HourlyHistory`; tests pass fixed hours.
package protocol LiveSource: Sendable {
    func hours(of counter: Counter, now: Date) async throws -> LiveHours
}
