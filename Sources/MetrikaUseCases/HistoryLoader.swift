import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore
import Synchronization

/// Daily history of counters: fetches only what the database lacks or what may still change, stores
/// each fetched range in one transaction, and builds day/week/month rows from the stored days.
package struct HistoryLoader: Sendable {
    package let store: HistoryStore
    /// nil offline: then nothing is fetched and missing days are reported.
    package let client: MetrikaClient?
    package let now: @Sendable () -> Date
    /// How many recent days (today included) are still changing and refetched: 2 = today and yesterday.
    package let unsettledDays: Int

    /// What to do when the history cannot keep what was fetched (a full disk): nil, throw it (sync,
    /// whose job is keeping it); else use the fetched values as they are and say so once.
    package var unkept: UnkeptHistory?

    package init(
        store: HistoryStore, client: MetrikaClient?, now: @escaping @Sendable () -> Date, unsettledDays: Int,
        unkept: UnkeptHistory? = nil
    ) {
        self.store = store
        self.client = client
        self.now = now
        self.unsettledDays = unsettledDays
        self.unkept = unkept
    }

    /// Runs a write to the history; false when the disk was full and `unkept` took the failure
    /// (then nothing of the write was kept: each is one transaction).
    private func keeping(_ write: () async throws -> Void) async throws -> Bool {
        do {
            try await write()
            return true
        } catch let error as StoreError where error.kind == .full {
            guard let unkept else { throw error }
            unkept.report(error)
            return false
        }
    }

    /// What one counter's history load produced.
    package struct Loaded {
        package var counter: Counter
        package var range: DateRange
        /// The rows' periods: every day, week or month of the range (empty without a grouping).
        package var periods: [DateRange]
        /// The metrics stored (requested ones plus visits and pageviews, which weighting needs).
        package var storedMetrics: [Metric]
        package var daily: [Day: [Double?]]
        package var missingDays: [Day]
        package var today: Day
        /// API totals of non-additive metrics over each period asked for (keyed by period, then API name).
        package var periodTotals: [DateRange: [String: Double]]
        package var requests: Int
        package var daysFetched: Int
        /// Days that have some metrics stored but not this one (API name → days): its cells are unknown.
        package var metricMissingDays: [String: [Day]] = [:]

        /// The asked metrics missing on some day of the range, with those days, in the asked order.
        package func missingMetrics(_ metrics: [Metric]) -> [(metric: Metric, days: [Day])] {
            metrics.compactMap { metric in metricMissingDays[metric.apiName].map { (metric, $0) } }
        }
    }

    /// The metrics to store for a request: the asked ones plus visits and pageviews (weighting needs them).
    /// How long the currency an answer named is trusted without asking again (a counter's currency
    /// is a setting that rarely changes; a changed one is another series anyway).
    package static let currencyMemory: TimeInterval = 86_400

    /// Money ratios bring what they divide: the average order value its revenue (same currency) and
    /// purchases, revenue per visit its revenue — so a week's value is a ratio of the week's sums.
    package static func storedMetrics(for metrics: [Metric]) -> [Metric] {
        var needed = metrics + [Metric.visits, Metric.pageviews]
        for metric in metrics {
            guard let currency = metric.currency else { continue }
            switch metric.aggregation {
            case .revenuePerPurchase: needed += [Metric.revenue.inCurrency(currency), Metric.purchases]
            case .revenuePerVisit: needed.append(Metric.revenue.inCurrency(currency))
            default: break
            }
        }
        var result: [Metric] = []
        for metric in needed where !result.contains(where: { $0.apiName == metric.apiName }) {
            result.append(metric)
        }
        return result
    }

    /// `metrics` with every money metric in a known currency: `requested` (`--currency`) when given;
    /// else the counter's own — as the API's answer names it (`query.currency` of a one-row probe,
    /// remembered in the history and trusted for a day, so re-runs cost nothing; `refresh` asks
    /// again), offline as last remembered. Other metrics unchanged; no request when no metric needs
    /// a currency.
    package func inCurrency(_ metrics: [Metric], counter: Counter, requested: Currency?, refresh: Bool = false)
        async throws -> [Metric]
    {
        guard metrics.contains(where: \.needsCurrency) else { return metrics }
        let currency: Currency
        let remembered = try await store.counterCurrencySeen(id: counter.id)
        if let requested {
            currency = requested
        } else if let remembered,
            client == nil || (!refresh && abs(now().timeIntervalSince(remembered.seenAt)) < Self.currencyMemory)
        {
            currency = remembered.currency
        } else if let client {
            let day = metrikaToday(counter).iso
            let probe = StatQuery(
                ids: [counter.id], metrics: [Metric.revenue.apiName], date1: day, date2: day, accuracy: "full")
            let page = try await client.fetchData(probe, offset: 1, limit: 1)
            guard let code = page.queryCurrency, let found = Currency(code: code) else {
                throw HistoryError.currencyNotSaid(counterID: counter.id)
            }
            try await store.storeCounterCurrency(id: counter.id, currency: found, seenAt: now())
            currency = found
        } else {
            throw HistoryError.currencyUnknown(counterID: counter.id)
        }
        return metrics.map { $0.inCurrency(currency) }
    }

    /// The counter's metadata: from the database when known (no request), else from the API (and stored).
    package func counter(id: Int) async throws -> Counter {
        if let counter = try await store.counter(id: id) { return counter }
        guard let client else {
            throw HistoryError.counterNotInHistory(counterID: id, database: store.path)
        }
        let counter = try await client.fetchCounter(id: id)
        _ = try await keeping { try await store.upsertCounters([counter]) }
        return counter
    }

    /// Loads `metrics` for `range` of a counter, fetching what is missing or unsettled (all with
    /// `refresh`), plus the API's non-additive totals for the whole range and for each period of
    /// `grouping` (nil: no rows, only the days and the range's totals).
    /// `rangeTotals: false` skips the API's totals over the range (sync needs only the days);
    /// `values: false` skips reading the stored values back (`daily` and `missingDays` stay empty):
    /// sync only stores, and reading 365 days × 6 metrics back per counter was half its CPU.
    ///
    /// Days before the counter existed (its `create_time`, in its time zone) or before 2008 are not
    /// fetched, stored or shown: the range starts at the creation day, and a range wholly before it
    /// loads no day at all (no rows; never rows of zeros).
    package func load(
        counter: Counter, range requested: DateRange, metrics: [Metric], grouping: Grouping?, refresh: Bool,
        rangeTotals: Bool = true, values: Bool = true
    ) async throws -> Loaded {
        var stored = Self.storedMetrics(for: metrics)
        // Money is stored per currency. A metric still in "the counter's currency" (`<currency>`) is
        // sent as is, online only: the answer names the currency (`query.currency`) and the values are
        // kept under the metric in that currency (`Loaded.storedMetrics` says which) — a first check of
        // a shop learns its currency and its revenue in one request. Offline it has no series: every
        // offline caller puts its metrics through `inCurrency` first, and one that did not is a bug.
        precondition(
            client != nil || !stored.contains(where: \.needsCurrency),
            "load(counter:…) offline needs money metrics in a currency: call inCurrency first")
        let today = metrikaToday(counter)
        let firstDay = firstDataDay(of: counter)
        guard requested.to >= firstDay else {
            return Loaded(
                counter: counter, range: requested, periods: [], storedMetrics: stored, daily: [:], missingDays: [],
                today: today, periodTotals: [:], requests: 0, daysFetched: 0)
        }
        let range = requested.from >= firstDay ? requested : DateRange(from: firstDay, to: requested.to)!
        let periods = grouping.map(range.periods) ?? []
        let settledBefore = settledBefore(today: today)
        let nonAdditive = stored.filter { $0.aggregation == .nonAdditive }
        var requests = 0
        var daysFetched = 0
        // What was fetched but could not be kept (a full disk): used as if it had been read back.
        var unkeptDaily: [Day: [Double?]] = [:]
        var unkeptTotals: [DateRange: [String: Double]] = [:]

        // Offline nothing is fetched, so which days are settled does not matter: skip the query.
        let settled =
            refresh || client == nil
            ? [] : try await store.settledDays(counterID: counter.id, range: range, metrics: stored)
        let missing = range.days.filter { !settled.contains($0) }
        var rangeTotalNeeded = false
        if rangeTotals, !nonAdditive.isEmpty {
            for metric in nonAdditive {
                let cached = try await store.periodTotal(counterID: counter.id, period: range, metric: metric)
                if refresh || cached?.settled != true { rangeTotalNeeded = true }
            }
        }

        if let client, !missing.isEmpty || rangeTotalNeeded {
            // One request: the span of what is missing, or the whole range when its totals are needed
            // too (the API's totals over the request are the only correct users total).
            let span = rangeTotalNeeded ? range : DateRange(from: missing.first!, to: missing.last!)!
            let page = try await fetchDaily(client: client, counter: counter, span: span, metrics: stored)
            requests += page.requests
            if stored.contains(where: \.needsCurrency) {
                guard let code = page.currency, let found = Currency(code: code) else {
                    throw HistoryError.currencyNotSaid(counterID: counter.id)
                }
                stored = stored.map { $0.needsCurrency ? $0.inCurrency(found) : $0 }
            }
            let kept = try await keeping {
                try await store.storeDaily(
                    counterID: counter.id, range: span, metrics: stored, values: page.values, fetchedAt: now(),
                    settledBefore: settledBefore, sampled: page.sampled, dataLag: page.dataLag)
            }
            if !kept { unkeptDaily.merge(page.values) { $1 } }
            daysFetched += span.dayCount
            // The answer names the counter's currency (`query.currency`: no currency was asked): remembered,
            // so that money asks no probe of its own (`inCurrency`).
            if let code = page.currency, let found = Currency(code: code) {
                _ = try await keeping {
                    try await store.storeCounterCurrency(id: counter.id, currency: found, seenAt: now())
                }
            }
            if span == range {
                for (index, metric) in stored.enumerated() where metric.aggregation == .nonAdditive {
                    let value = index < page.totals.count ? page.totals[index] : nil
                    let kept = try await keeping {
                        try await store.storePeriodTotal(
                            counterID: counter.id, period: range, metric: metric, value: value,
                            settled: range.to < settledBefore, fetchedAt: now())
                    }
                    if !kept, let value { unkeptTotals[range, default: [:]][metric.apiName] = value }
                }
            }
        }

        // Period totals of non-additive metrics for weeks and months (one bytime request for all).
        var periodTotals: [DateRange: [String: Double]] = [:]
        let multiDayPeriods = periods.filter { $0.dayCount > 1 && $0 != range }
        if !nonAdditive.isEmpty, !multiDayPeriods.isEmpty {
            var needed = false
            for period in multiDayPeriods {
                for metric in nonAdditive {
                    let cached = try await store.periodTotal(counterID: counter.id, period: period, metric: metric)
                    if refresh || cached?.settled != true { needed = true }
                }
            }
            if needed, let client, let grouping {
                let query = StatQuery(
                    ids: [counter.id], metrics: nonAdditive.map(\.apiName), date1: range.from.iso, date2: range.to.iso)
                let answer = try await client.fetchByTime(query, group: grouping)
                requests += 1
                let intervals: [DateRange] =
                    answer.timeIntervals.map { pairs in
                        pairs.compactMap { pair in
                            guard pair.count == 2, let from = Day(iso: pair[0]), let to = Day(iso: pair[1]) else {
                                return nil
                            }
                            return DateRange(from: from, to: to)
                        }
                    } ?? range.periods(grouping)
                for (metricIndex, metric) in nonAdditive.enumerated() {
                    guard metricIndex < answer.totals.count else { continue }
                    for (periodIndex, period) in intervals.enumerated()
                    where periodIndex < answer.totals[metricIndex].count {
                        let value = answer.totals[metricIndex][periodIndex]
                        let kept = try await keeping {
                            try await store.storePeriodTotal(
                                counterID: counter.id, period: period, metric: metric, value: value,
                                settled: period.to < settledBefore, fetchedAt: now())
                        }
                        if !kept, let value { unkeptTotals[period, default: [:]][metric.apiName] = value }
                    }
                }
            }
        }
        // A one-day period's users are that day's stored value (the Aggregator takes it from the row).
        for period in periods + [range] where period.dayCount > 1 {
            for metric in nonAdditive {
                if let total = try await store.periodTotal(counterID: counter.id, period: period, metric: metric),
                    let value = total.value
                {
                    periodTotals[period, default: [:]][metric.apiName] = value
                }
            }
        }

        for (period, totals) in unkeptTotals { periodTotals[period, default: [:]].merge(totals) { $1 } }

        var daily = values ? try await store.dailyValues(counterID: counter.id, range: range, metrics: stored) : [:]
        if values { daily.merge(unkeptDaily.filter { range.contains($0.key) }) { $1 } }
        var stillMissing = values ? range.days.filter { daily[$0] == nil } : []
        // A day that has some of the metrics (offline: `visits` synced, `newUsers` never) shows those;
        // the others are missing for that metric alone, not the whole day.
        var metricMissing: [String: [Day]] = [:]
        if !stillMissing.isEmpty, stored.count > 1 {
            var partial: [Day: [Double?]] = [:]
            var present: [Day: Set<Int>] = [:]
            for (index, metric) in stored.enumerated() {
                let cells = try await store.dailyValues(counterID: counter.id, range: range, metrics: [metric])
                for day in stillMissing {
                    guard let cell = cells[day] else { continue }
                    partial[day, default: Array(repeating: nil, count: stored.count)][index] = cell.first ?? nil
                    present[day, default: []].insert(index)
                }
            }
            for (day, row) in partial { daily[day] = row }
            for (index, metric) in stored.enumerated() {
                let lacking = stillMissing.filter { partial[$0] != nil && present[$0]?.contains(index) != true }
                if !lacking.isEmpty { metricMissing[metric.apiName] = lacking }
            }
            stillMissing = stillMissing.filter { partial[$0] == nil }
        }
        return Loaded(
            counter: counter, range: range, periods: periods, storedMetrics: stored, daily: daily,
            missingDays: stillMissing,
            today: today, periodTotals: periodTotals, requests: requests, daysFetched: daysFetched,
            metricMissingDays: metricMissing)
    }

    package struct DailyPage {
        package var values: [Day: [Double?]]
        package var totals: [Double?]
        package var sampled: Bool
        package var dataLag: Double?
        package var requests: Int
        /// The currency the answer says it used (`query.currency`); nil when it did not say.
        package var currency: String? = nil
    }

    /// `/stat/v1/data` by `ym:s:date` over a span, every day filled: days the API omitted had no
    /// visits, so their counts are 0 and their ratios unknown (nil).
    package func fetchDaily(client: MetrikaClient, counter: Counter, span: DateRange, metrics: [Metric]) async throws
        -> DailyPage
    {
        let query = StatQuery(
            ids: [counter.id], metrics: metrics.map(\.apiName), dimensions: [MetrikaModel.Dimension.date.apiName],
            date1: span.from.iso, date2: span.to.iso, sort: MetrikaModel.Dimension.date.apiName, accuracy: "full")
        var values: [Day: [Double?]] = [:]
        var offset = 1
        var requests = 0
        var totals: [Double?] = []
        var sampled = false
        var dataLag: Double?
        var currency: String?
        repeat {
            let page = try await client.fetchData(query, offset: offset, limit: min(100_000, span.dayCount))
            requests += 1
            var newDays = 0
            if offset == 1 {
                totals = page.totals
                sampled = page.sampled
                dataLag = page.dataLag
                currency = page.queryCurrency
            }
            for row in page.rows {
                guard let name = row.dimensions.first?.name, let day = Day(iso: name), span.contains(day) else {
                    throw APIError.unreadable(
                        "a row of the daily report has the date '\(TerminalText.quote(row.dimensions.first?.name ?? "null"))', outside \(span)"
                    )
                }
                guard row.metrics.count == metrics.count else {
                    throw APIError.unreadable(
                        "a row of the daily report has \(row.metrics.count) values for \(metrics.count) metrics")
                }
                if values.updateValue(row.metrics, forKey: day) == nil { newDays += 1 }
            }
            offset += page.rowCount
            // A page with no new day ends the walk whatever total_rows claims (a span has at most
            // dayCount rows): a broken or hostile answer can't make us page forever.
            if page.rowCount == 0 || newDays == 0 || offset > page.totalRows || values.count >= span.dayCount { break }
        } while true
        // Counts and summed money (revenue) of a day without visits are 0; ratios have no value.
        let empty = metrics.map {
            $0.unit == .count || ($0.unit == .money && $0.aggregation == .sum) ? Optional(0.0) : nil
        }
        for day in span.days where values[day] == nil { values[day] = empty }
        return DailyPage(
            values: values, totals: totals, sampled: sampled, dataLag: dataLag, requests: requests, currency: currency)
    }

    package func metrikaToday(_ counter: Counter) -> Day { today(for: counter, now: now()) }

    /// Days before this one are settled (final when fetched: kept, and read instead of asked again).
    package func settledBefore(today: Day) -> Day { today.adding(days: -(max(1, unsettledDays) - 1)) }

    /// Rows of a time-series report from loaded history: one per period, values aggregated by each
    /// metric's rule; a period with a day missing has no values (never a partial sum).
    package static func rows(from loaded: Loaded, metrics: [Metric]) -> (rows: [Report.Row], totals: [Quantity]) {
        let rows = loaded.periods.map { period in
            Report.Row(
                dimensions: [DimensionValue(name: period.from.iso)],
                values: aggregate(loaded, period: period, metrics: metrics),
                isIncomplete: period.contains(loaded.today), period: period)
        }
        return (rows, aggregate(loaded, period: loaded.range, metrics: metrics))
    }

    /// The values of any period from loaded history, each metric by its rule; all nil when a day of
    /// the period is not loaded (missing, or before the counter existed). Non-additive metrics of a
    /// period longer than a day only from the API's totals for exactly that period.
    package static func aggregate(_ loaded: Loaded, period: DateRange, metrics: [Metric]) -> [Quantity] {
        let stored = loaded.storedMetrics
        let days = period.days
        guard days.allSatisfy({ loaded.daily[$0] != nil }) else {
            return metrics.map { Quantity(nil, unit: $0.unit, currency: $0.currency) }
        }
        let values = Aggregator.aggregate(
            metrics: stored, rows: days.map { loaded.daily[$0]! }, periodTotals: loaded.periodTotals[period] ?? [:])
        // A metric missing on a day of the period is unknown there (never a partial sum); one the
        // others are weighted by (visits, pageviews, revenue) makes them all unknown.
        let lacking = Set(loaded.metricMissingDays.filter { $0.value.contains(where: period.contains) }.keys)
        let asked = Set(metrics.map(\.apiName))
        let helperLacking = !lacking.subtracting(asked).isEmpty
        return metrics.map { metric in
            let position = stored.firstIndex { $0.apiName == metric.apiName }
            guard !helperLacking, !lacking.contains(metric.apiName) else {
                return Quantity(nil, unit: metric.unit, currency: metric.currency)
            }
            return Normalizer.quantity(position.flatMap { values[$0] }, of: metric)
        }
    }
}

/// Says once per run that the history could not keep what was fetched (its disk is full): the report
/// is still shown, from the fetched values, and the next run fetches them again.
package final class UnkeptHistory: Sendable {
    private let said = Mutex(false)
    private let warn: @Sendable (String) -> Void
    private let naming: ParameterNaming

    /// `warn` gets the one warning line, its reason in the entry point's words (`naming`).
    package init(naming: ParameterNaming = .neutral, warn: @escaping @Sendable (String) -> Void) {
        self.naming = naming
        self.warn = warn
    }

    /// Whether a write was lost this run.
    package var happened: Bool {
        said.withLock { $0 }
    }

    /// Says it, the first time only.
    package func report(_ error: StoreError) {
        let first = said.withLock { said in
            defer { said = true }
            return !said
        }
        if first { warn("Warning: shown but not kept in the history: \(error.message(naming)).") }
    }
}
