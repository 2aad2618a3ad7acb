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

    package init(
        counterID: Int, source: LogSource, from: Day, to: Day, fields: String, destination: String, requestID: Int,
        loadedParts: Set<Int> = []
    ) {
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
    /// Every day loaded, in order: a day between `firstDay` and `lastDay` that is not here was never
    /// loaded (a gap; `LogsContinuation` makes ranges and gaps of them).
    package var days: [Day]
    /// The rows the loaded days held when loaded; nil when some day's were not counted (loaded by an
    /// older metrika).
    package var rows: Int?

    package init(
        counterID: Int, source: LogSource, destination: String, firstDay: Day, lastDay: Day, loadedAt: Date,
        days: [Day]? = nil, rows: Int? = nil
    ) {
        self.counterID = counterID
        self.source = source
        self.destination = destination
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.loadedAt = loadedAt
        self.days = days ?? (firstDay.ordinal...max(firstDay.ordinal, lastDay.ordinal)).map(Day.init(ordinal:))
        self.rows = rows
    }
}

/// Where `LogExporter` records its progress (the history database in production).
package protocol LogProgressStore: Sendable {
    /// The unfinished job with these arguments, if any.
    func job(counterID: Int, source: LogSource, from: Day, to: Day, fields: String, destination: String) async throws
        -> LogJob?
    /// Remembers a freshly ordered request.
    func saveJob(_ job: LogJob) async throws
    /// Part `part` of `requestID` is loaded.
    func markLoaded(requestID: Int, part: Int) async throws
    /// The job is done (or its request is gone): forget it.
    func removeJob(requestID: Int) async throws
    /// Every unfinished job of a counter.
    func jobs(counterID: Int) async throws -> [LogJob]
    /// `from…to` is loaded into `destination` (and visible there): widens the recorded days.
    func recordLoaded(counterID: Int, source: LogSource, destination: String, from: Day, to: Day, at: Date) async throws
    /// The same, with the rows each day holds now (nil: not counted; a day missing from `rows` holds none).
    func recordLoaded(
        counterID: Int, source: LogSource, destination: String, from: Day, to: Day, rows: [Day: Int]?, at: Date)
        async throws
    /// The days loaded into `destination`, if a run recorded any.
    func load(counterID: Int, source: LogSource, destination: String) async throws -> LogLoad?
    /// Every destination a counter's rows were loaded into.
    func loads(counterID: Int) async throws -> [LogLoad]
}

extension LogProgressStore {
    /// A store that keeps no rows records the days alone.
    package func recordLoaded(
        counterID: Int, source: LogSource, destination: String, from: Day, to: Day, rows: [Day: Int]?, at: Date
    ) async throws {
        try await recordLoaded(
            counterID: counterID, source: source, destination: destination, from: from, to: to, at: at)
    }
}
