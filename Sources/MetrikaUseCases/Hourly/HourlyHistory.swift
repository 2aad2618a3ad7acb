import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore

/// Today hour by hour for one counter, and what its hours usually are: the data `metrika alert
/// --today` judges and `metrika live` draws (live can build on this: `load` is all it needs).
///
/// All hours are local hours of the counter's time zone (`00:00` … `23:00`, the API's `ym:s:hour`).
/// The baseline of an hour is the same hour on the same weekday of the previous `weeks` weeks; those
/// days are settled and kept in the history database (`hourly_values`), so only the first run
/// fetches them. Yesterday's hours and their baseline (the same weekday as yesterday) come along,
/// so the alert check judges the last hours across midnight as it does at midday (docs/alerts.md,
/// "Midnight"). Cost: ONE `/stat/v1/data` request per counter and run (today's hours, plus any
/// earlier day not yet stored or settled — yesterday in the first run after midnight — in the same
/// `ym:s:date,ym:s:hour` request; a second one only past 18 metrics); offline (`client` nil) nothing
/// is fetched and today is what the last run stored.
package struct HourlyHistory: Sendable {
    package let store: HistoryStore
    /// nil: offline (only the store is read).
    package let client: MetrikaClient?
    package let now: @Sendable () -> Date
    /// Same-weekday weeks in the baseline.
    package var weeks = 4

    /// Metrics per request: the API takes 20.
    static let metricsPerRequest = 18

    package init(store: HistoryStore, client: MetrikaClient?, now: @escaping @Sendable () -> Date, weeks: Int = 4) {
        self.store = store
        self.client = client
        self.now = now
        self.weeks = weeks
    }

    /// One counter's today and its baseline, for `metrics` (in that order everywhere below).
    package struct Snapshot: Sendable {
        package var counter: Counter
        package var metrics: [Metric]
        /// Today in the counter's time zone, and the local hour running now (0–23).
        package var today: Day
        package var runningHour: Int
        /// Hours of today whose numbers are complete: those that ended before now (and before the data
        /// lag: an hour the API has not caught up with is still growing). Hours `0..<finishedHours`.
        package var finishedHours: Int
        /// Today's values `[hour][metric]` for hours `0...runningHour` (the running hour partial); nil
        /// where unknown (offline with nothing stored).
        package var todayHours: [[Double?]?]
        /// The same weekday of the previous weeks, newest first (`today − 7`, `today − 14`, …).
        package var baselineDays: [Day]
        /// `[week][hour][metric]` aligned with `baselineDays`; nil hours are unknown (not stored,
        /// offline), 0 an hour without visits.
        package var baselineHours: [[[Double?]?]]
        /// Yesterday's 24 hours `[hour][metric]` (nil: unknown), and the same hours of the same
        /// weekday as yesterday, `[week][hour][metric]`, aligned with `baselineDays` (each a day earlier).
        package var yesterdayHours: [[Double?]?] = Array(repeating: nil, count: 24)
        package var yesterdayBaselineHours: [[[Double?]?]] = []
        /// The API's `data_lag` (seconds behind real time) of this run's answer; nil offline.
        package var dataLag: Double?
        /// When the newest data is from: now minus the data lag (nil when unknown).
        package var lastData: Date?
        /// Requests this snapshot cost (0 offline).
        package var requests: Int

        /// The values of `metric` at `hour` on the baseline days (newest first), unknown ones left out.
        package func baselineValues(hour: Int, metric: Int) -> [Double] {
            baselineHours.compactMap { $0[hour]?[metric] ?? nil }
        }

        /// The median of `baselineValues` (nil with none).
        package func baseline(hour: Int, metric: Int) -> Double? {
            HourlyHistory.median(baselineValues(hour: hour, metric: metric))
        }

        /// Yesterday, the day before `today`.
        package var yesterday: Day { today.adding(days: -1) }

        /// One metric's finished hours across midnight: yesterday's 24 hours, then today's finished
        /// ones (`series[24 + h]` is today's hour h), with the same hours of earlier weeks aligned
        /// (`weeks[week]`, yesterday's weekday then today's); `finished` is the series' finished length.
        package func acrossMidnight(metric: Int) -> (series: [Double?], weeks: [[Double?]], finished: Int) {
            let yesterday = (0..<24).map { yesterdayHours[$0]?[metric] ?? nil }
            let today = (0..<finishedHours).map { value(hour: $0, metric: metric) }
            let weeks = baselineHours.indices.map { week in
                let before =
                    week < yesterdayBaselineHours.count
                    ? yesterdayBaselineHours[week].map { $0?[metric] ?? nil } : Array(repeating: nil, count: 24)
                return before + baselineHours[week].map { $0?[metric] ?? nil }
            }
            return (yesterday + today, weeks, 24 + finishedHours)
        }

        /// Today's value of `metric` at `hour` (nil: unknown or not happened yet).
        package func value(hour: Int, metric: Int) -> Double? {
            guard hour < todayHours.count else { return nil }
            return todayHours[hour]?[metric] ?? nil
        }
    }

    /// The local clock of `counter` at `date`: its day and the seconds since that day's midnight.
    package static func localClock(_ counter: Counter, at date: Date) -> (day: Day, seconds: Double) {
        let day = MetrikaUseCases.today(for: counter, now: date)
        let offset =
            TimeZone(identifier: counter.timeZoneName)?.secondsFromGMT(for: date) ?? counter.timeZoneOffsetMinutes * 60
        let seconds = date.timeIntervalSince1970 + Double(offset) - Double(day.ordinal) * 86_400
        return (day, min(86_400, max(0, seconds)))
    }

    /// Today's hours and their baseline for `counter`; see the type's comment for what it costs.
    package func load(counter: Counter, metrics: [Metric]) async throws -> Snapshot {
        let at = now()
        let (today, seconds) = Self.localClock(counter, at: at)
        let runningHour = min(23, Int(seconds / 3_600))
        let baselineDays = (1...max(1, weeks)).map { today.adding(days: -7 * $0) }
        let yesterday = today.adding(days: -1)
        let yesterdayBaseline = baselineDays.map { $0.adding(days: -1) }
        let earlierDays = baselineDays + yesterdayBaseline + [yesterday]
        var requests = 0
        var dataLag: Double?
        var todayRows: [[Double?]?] = Array(repeating: nil, count: 24)
        if let client {
            // Earlier days not yet settled in the store come along in today's request.
            let settled = try await store.settledHourDays(counterID: counter.id, days: earlierDays, metrics: metrics)
            let missing = earlierDays.filter { !settled.contains($0) }
            let first = missing.min() ?? today
            var start = 0
            var fetched: [Day: [[Double?]?]] = [:]
            while start < metrics.count {
                let chunk = Array(metrics[start..<min(metrics.count, start + Self.metricsPerRequest)])
                let page = try await fetchHours(
                    client: client, counter: counter, from: first, to: today, metrics: chunk)
                requests += page.requests
                if dataLag == nil { dataLag = page.dataLag }
                for (day, hours) in page.values {
                    var rows = fetched[day] ?? Array(repeating: nil, count: 24)
                    for hour in 0..<24 {
                        guard let values = hours[hour] else { continue }
                        rows[hour] = (rows[hour] ?? []) + values
                    }
                    fetched[day] = rows
                }
                start += Self.metricsPerRequest
            }
            // Hours after the running one have not happened: not stored, not told.
            if var rows = fetched[today] {
                for hour in (runningHour + 1)..<24 { rows[hour] = nil }
                fetched[today] = rows
            }
            // Only the days the window needs, and today, are kept (today unsettled; yesterday too
            // until the data has caught up with its end).
            let kept = fetched.filter { $0.key == today || earlierDays.contains($0.key) }
            let settledBefore = seconds - (dataLag ?? 0) > 0 ? today : yesterday
            try await store.storeHourly(
                counterID: counter.id, metrics: metrics, values: kept, settledBefore: settledBefore, fetchedAt: at)
            todayRows = fetched[today] ?? todayRows
        }
        let stored = try await store.hourlyValues(
            counterID: counter.id, days: earlierDays + (client == nil ? [today] : []), metrics: metrics)
        var yesterdayRows = stored[yesterday] ?? Array(repeating: nil, count: 24)
        if client == nil,
            try await store.settledHourDays(counterID: counter.id, days: [yesterday], metrics: metrics).isEmpty,
            let last = yesterdayRows.lastIndex(where: { $0 != nil })
        {
            // Offline, an unsettled yesterday's last stored hour was running when it was stored: partial.
            yesterdayRows[last] = nil
        }
        if client == nil, let rows = stored[today] {
            todayRows = rows
        }
        let lag = dataLag ?? 0
        let caughtUp = seconds - lag
        var finished = max(0, min(runningHour, Int((caughtUp / 3_600).rounded(.down))))
        if client == nil {
            // Offline, today's hours are what the last run stored: its last hour was the one running
            // then, partial — not finished, however late it is now.
            let lastStored = todayRows.lastIndex { $0 != nil } ?? 0
            finished = min(finished, lastStored)
        }
        return Snapshot(
            counter: counter, metrics: metrics, today: today, runningHour: runningHour, finishedHours: finished,
            todayHours: Array(todayRows.prefix(runningHour + 1)), baselineDays: baselineDays,
            baselineHours: baselineDays.map { stored[$0] ?? Array(repeating: nil, count: 24) },
            yesterdayHours: yesterdayRows,
            yesterdayBaselineHours: yesterdayBaseline.map { stored[$0] ?? Array(repeating: nil, count: 24) },
            dataLag: dataLag, lastData: dataLag.map { at.addingTimeInterval(-$0) }, requests: requests)
    }

    /// `ym:s:date,ym:s:hour` over `from...to` (one request: at most 24 rows a day): per day, 24 hours
    /// of values. Hours the API left out had no visits: counts 0, ratios unknown.
    func fetchHours(client: MetrikaClient, counter: Counter, from: Day, to: Day, metrics: [Metric]) async throws
        -> (values: [Day: [[Double?]?]], dataLag: Double?, requests: Int)
    {
        let span = DateRange(from: from, to: to) ?? DateRange(from: to, to: to)!
        let query = StatQuery(
            ids: [counter.id], metrics: metrics.map(\.apiName), dimensions: ["ym:s:date", "ym:s:hour"],
            date1: span.from.iso, date2: span.to.iso, sort: "ym:s:date,ym:s:hour", accuracy: "full")
        let capacity = span.dayCount * 24
        var values: [Day: [[Double?]?]] = [:]
        var offset = 1
        var requests = 0
        var dataLag: Double?
        var seen = 0
        repeat {
            let page = try await client.fetchData(query, offset: offset, limit: min(100_000, capacity))
            requests += 1
            if offset == 1 { dataLag = page.dataLag }
            var fresh = 0
            for row in page.rows {
                guard row.dimensions.count == 2, let name = row.dimensions[0].name, let day = Day(iso: name),
                    span.contains(day),
                    let hour = Self.hour(named: row.dimensions[1].name)
                else {
                    throw APIError.unreadable(
                        "a row of the hourly report has the date and hour '\(TerminalText.quote(row.dimensions.compactMap(\.name).joined(separator: " ")))', outside \(span)"
                    )
                }
                guard row.metrics.count == metrics.count else {
                    throw APIError.unreadable(
                        "a row of the hourly report has \(row.metrics.count) values for \(metrics.count) metrics")
                }
                var rows = values[day] ?? Array(repeating: nil, count: 24)
                if rows[hour] == nil { fresh += 1 }
                rows[hour] = row.metrics
                values[day] = rows
            }
            seen += fresh
            offset += page.rowCount
            if page.rowCount == 0 || fresh == 0 || offset > page.totalRows || seen >= capacity { break }
        } while true
        // Hours without a row had no visits: counts and summed money 0, ratios unknown.
        let empty = metrics.map {
            $0.unit == .count || ($0.unit == .money && $0.aggregation == .sum) ? Optional(0.0) : nil
        }
        for day in span.days {
            var rows = values[day] ?? Array(repeating: nil, count: 24)
            for hour in 0..<24 where rows[hour] == nil { rows[hour] = empty }
            values[day] = rows
        }
        return (values, dataLag, requests)
    }

    /// `14:00` (or `14`) → 14; nil for anything else.
    static func hour(named name: String?) -> Int? {
        guard let name else { return nil }
        let digits = name.hasSuffix(":00") ? String(name.dropLast(3)) : name
        guard digits.count <= 2, let hour = Int(digits), (0..<24).contains(hour) else { return nil }
        return hour
    }

    /// The middle value (the mean of the two middle ones for an even count); nil for none.
    package static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
