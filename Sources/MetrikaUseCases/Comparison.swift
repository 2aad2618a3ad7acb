import Foundation
import MetrikaAPI
import MetrikaModel

/// `--compare`: a period against the period of the same length just before it.
package enum Comparison {
    /// The period of the same length just before `range` (`shift` days earlier: its length by default).
    package static func previousRange(of range: DateRange, shift: Int? = nil) -> DateRange {
        let shift = shift ?? range.dayCount
        return DateRange(from: range.from.adding(days: -shift), to: range.to.adding(days: -shift))!
    }

    /// How many days back the compared period lies: the period's length, except for today alone
    /// (`hours` set), which is set against the same weekday a week before, as `alert --today` judges
    /// its hours: a Monday afternoon against a Sunday's would read the week's shape as a change.
    package static func shift(of range: DateRange, hours: Int?) -> Int {
        hours != nil && range.dayCount == 1 ? 7 : range.dayCount
    }

    /// A compared period with today in it, like for like: the number of today's finished hours
    /// (16 at 16:30: `00:00–16:00`), by which the last day of both periods is counted; nil when
    /// the period does not hold today. Refused before today's first hour is over, and offline
    /// (the hours come from the API; the history keeps whole days).
    package static func finishedHoursToday(_ range: DateRange, counter: Counter, now: Date, online: Bool) throws
        -> Int?
    {
        guard includesToday(range, counter: counter, now: now) else { return nil }
        let hours = min(23, Int(HourlyHistory.localClock(counter, at: now).seconds / 3_600))
        guard online else {
            throw ParameterError(.compare, .notApplicable) {
                "\($0[.compare]) with today sets today's finished hours against the same hours of the previous period, "
                    + "which only the API has; \($0.action(.fetchOnline)), or end the period yesterday (\($0[.to]) yesterday)"
            }
        }
        guard hours > 0 else {
            throw ParameterError(.compare, .notApplicable) {
                "\($0[.compare]) sets today's finished hours against the same hours before, and no hour of today is over "
                    + "yet (the first at 01:00). Compare whole days (\($0[.to]) yesterday), or \($0.action(.watchToday(counterID: counter.id)))"
            }
        }
        return hours
    }

    /// The `filters` that count `period`'s last day by its first `hours` hours only:
    /// `ym:s:hour=.('00:00',…,'15:00')` for one day, `(ym:s:date!='D' OR ym:s:hour=.(…))` for more;
    /// `and` (the report's own filters) kept before it.
    package static func cutFilter(_ period: DateRange, hours: Int, and filters: String? = nil) -> String {
        let names = (0..<hours).map { $0 < 10 ? "'0\($0):00'" : "'\($0):00'" }
        let list = "ym:s:hour=.(" + names.joined(separator: ",") + ")"
        let cut = period.dayCount == 1 ? list : "(ym:s:date!='\(period.to.iso)' OR \(list))"
        guard let filters, !filters.isEmpty else { return cut }
        return "(\(filters)) AND \(cut)"
    }

    /// `loaded` with its last day (`lastDay`) counted by its first `hours` hours: that day's values and
    /// the totals of every longer period holding it, each from the API's totals of one request without
    /// dimensions (users and rates stay the API's, never summed). Returns the requests it cost.
    package static func cutLastDay(
        _ loaded: inout HistoryLoader.Loaded, lastDay: Day, hours: Int, client: MetrikaClient
    ) async throws -> Int {
        guard loaded.daily[lastDay] != nil else { return 0 }
        let metrics = loaded.storedMetrics
        var periods = [DateRange(from: lastDay, to: lastDay)!]
        for period in [loaded.range] + loaded.periods
        where period.contains(lastDay) && period.to == lastDay && period.dayCount > 1 && !periods.contains(period) {
            periods.append(period)
        }
        for period in periods {
            let query = StatQuery(
                ids: [loaded.counter.id], metrics: metrics.map(\.apiName), date1: period.from.iso,
                date2: period.to.iso, filters: cutFilter(period, hours: hours), accuracy: "full")
            let page = try await client.fetchData(query, offset: 1, limit: 1)
            let values = metrics.indices.map { $0 < page.totals.count ? page.totals[$0] : nil }
            if period.dayCount == 1 {
                loaded.daily[lastDay] = values
            } else {
                var totals: [String: Double] = [:]
                for (metric, value) in zip(metrics, values) { if let value { totals[metric.apiName] = value } }
                loaded.periodTotals[period] = totals
            }
        }
        return periods.count
    }

    /// The note of a previous period that starts before the counter existed (its values are
    /// unknown there, a dimension report's rows all new): nil when the counter was there all along.
    package static func predatesNote(_ previous: DateRange, counter: Counter, rows: Bool) -> String? {
        let first = firstDataDay(of: counter)
        guard previous.from < first else { return nil }
        let span = "\(previous.from.iso) … \(previous.to.iso)"
        guard previous.to >= first else {
            return
                "Note: the previous period \(span) predates counter \(counter.id) (created \(first.iso)): there is nothing to compare with, so "
                + (rows ? "every row is new and its change unknown." : "every change is unknown (—).")
        }
        return
            "Note: the previous period \(span) starts before counter \(counter.id) was created (\(first.iso)): only \(first.iso) … \(previous.to.iso) of it is compared"
            + (rows ? ", so rows read new more often than they are." : "; the days before are —.")
    }

    /// Whether `range` holds the counter's today.
    package static func includesToday(_ range: DateRange, counter: Counter, now: Date) -> Bool {
        let today = today(for: counter, now: now)
        return range.from <= today && today <= range.to
    }

    /// The previous period's history: one more request at most (its days with the API's totals over
    /// it, in one answer), none when the history has it settled, none when it lies wholly before the
    /// counter's first day (then every previous value is unknown, never zero).
    package static func loadPrevious(
        _ loaded: HistoryLoader.Loaded, loader: HistoryLoader, metrics: [Metric], refresh: Bool, shift: Int? = nil
    ) async throws -> HistoryLoader.Loaded {
        let previous = previousRange(of: loaded.range, shift: shift)
        // A previous period cut by the counter's creation has no correct totals: don't ask for them.
        let whole = previous.from >= firstDataDay(of: loaded.counter)
        return try await loader.load(
            counter: loaded.counter, range: previous, metrics: metrics, grouping: nil, refresh: refresh,
            rangeTotals: whole)
    }

    /// Rows with their previous values: each row against the same days shifted back by the period's
    /// length (a day against the day N days earlier — the same weekday when N is whole weeks); the
    /// totals against the previous period's totals. A week or month row's users (non-additive) have
    /// no previous value: only the API's total over exactly those days would be right.
    package static func compare(
        _ rows: [Report.Row], with before: HistoryLoader.Loaded, current: DateRange, metrics: [Metric],
        shift: Int? = nil
    ) -> (rows: [Report.Row], totals: Report.Previous) {
        let shift = shift ?? current.dayCount
        let previous = previousRange(of: current, shift: shift)
        var compared = rows
        for index in compared.indices {
            guard let period = compared[index].period,
                let shifted = DateRange(from: period.from.adding(days: -shift), to: period.to.adding(days: -shift))
            else { continue }
            compared[index].previous = Report.Previous(
                period: shifted, values: HistoryLoader.aggregate(before, period: shifted, metrics: metrics))
        }
        return (
            compared,
            Report.Previous(
                period: previous, values: HistoryLoader.aggregate(before, period: previous, metrics: metrics))
        )
    }
}
