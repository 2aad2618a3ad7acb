import Foundation
import MetrikaModel

/// What a run remembers about a log request it ordered, so a re-run with the same arguments reuses it.
package struct LogJob: Sendable, Equatable {
    package var counterID: Int
    package var source: LogSource
    package var from: Day
    package var to: Day
    /// The requested fields joined by commas, in request order.
    package var fields: String
    /// Where the rows go (`file:/path` or `clickhouse:http://host:8123/db.table`): a run into another
    /// destination must not skip parts this one loaded.
    package var destination: String
    package var requestID: Int
    /// Parts already loaded into `destination`.
    package var loadedParts: Set<Int>

    package init(counterID: Int, source: LogSource, from: Day, to: Day, fields: String, destination: String, requestID: Int, loadedParts: Set<Int> = []) {
        self.counterID = counterID
        self.source = source
        self.from = from
        self.to = to
        self.fields = fields
        self.destination = destination
        self.requestID = requestID
        self.loadedParts = loadedParts
    }
}

/// The days a counter's rows were loaded into one destination (a ClickHouse table), so that a run
/// without dates continues from the last one.
package struct LogLoad: Sendable, Equatable {
    package var counterID: Int
    package var source: LogSource
    package var destination: String
    /// The earliest and the latest day any run loaded (days between may have been skipped).
    package var firstDay: Day
    package var lastDay: Day
    /// When the latest range was loaded.
    package var loadedAt: Date

    package init(counterID: Int, source: LogSource, destination: String, firstDay: Day, lastDay: Day, loadedAt: Date) {
        self.counterID = counterID
        self.source = source
        self.destination = destination
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.loadedAt = loadedAt
    }
}

/// Where `LogExporter` records its progress (the history database in production).
package protocol LogProgressStore: Sendable {
    /// The unfinished job with these arguments, if any.
    func job(counterID: Int, source: LogSource, from: Day, to: Day, fields: String, destination: String) throws -> LogJob?
    /// Remembers a freshly ordered request.
    func saveJob(_ job: LogJob) throws
    /// Part `part` of `requestID` is loaded.
    func markLoaded(requestID: Int, part: Int) throws
    /// The job is done (or its request is gone): forget it.
    func removeJob(requestID: Int) throws
    /// Every unfinished job of a counter.
    func jobs(counterID: Int) throws -> [LogJob]
    /// `from…to` is loaded into `destination` (and visible there): widens the recorded days.
    func recordLoaded(counterID: Int, source: LogSource, destination: String, from: Day, to: Day, at: Date) throws
    /// The days loaded into `destination`, if a run recorded any.
    func load(counterID: Int, source: LogSource, destination: String) throws -> LogLoad?
    /// Every destination a counter's rows were loaded into.
    func loads(counterID: Int) throws -> [LogLoad]
}
