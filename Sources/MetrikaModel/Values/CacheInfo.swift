import Foundation

/// What the history database holds, for `metrika cache info`.
package struct CacheInfo: Sendable, Hashable {
    /// The history of one counter.
    package struct CounterHistory: Sendable, Hashable {
        package var id: Int
        package var name: String
        /// The earliest day with any stored value; nil when nothing is stored.
        package var firstDay: Day?
        /// The latest day with any stored value; nil when nothing is stored.
        package var lastDay: Day?
        /// How many distinct days have at least one stored value (gaps make this less than the span).
        package var dayCount: Int
        /// When data for this counter was last fetched; nil when never.
        package var lastFetchedAt: Date?

        /// Creates a counter's history summary.
        package init(id: Int, name: String, firstDay: Day?, lastDay: Day?, dayCount: Int, lastFetchedAt: Date?) {
            self.id = id
            self.name = name
            self.firstDay = firstDay
            self.lastDay = lastDay
            self.dayCount = dayCount
            self.lastFetchedAt = lastFetchedAt
        }
    }

    /// The database path.
    package var path: String
    /// Bytes on disk: the database file plus its write-ahead log.
    package var sizeBytes: Int64
    /// The schema version (the highest applied migration).
    package var schemaVersion: Int
    /// Every stored counter, by id.
    package var counters: [CounterHistory]
    /// The latest fetch of any counter; nil when nothing was ever fetched.
    package var lastSync: Date?

    /// Creates a summary.
    package init(path: String, sizeBytes: Int64, schemaVersion: Int, counters: [CounterHistory], lastSync: Date?) {
        self.path = path
        self.sizeBytes = sizeBytes
        self.schemaVersion = schemaVersion
        self.counters = counters
        self.lastSync = lastSync
    }
}
