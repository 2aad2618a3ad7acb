import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender

/// Charts from the history: one series per counter and metric, and the SVG chart they make — for
/// `chart` and for the charts of `mail`.
package enum ChartSeries {
    /// PNG pixels per SVG pixel: 2× keeps lines and text sharp on high-density screens (800 → 1600 px).
    package static let pngScale = 2.0

    /// Every counter's series over the request's dates (each in its counter's time zone), with the
    /// notes a person needs: weeks or months left out, days the history lacks.
    package static func load(
        counterIDs: [Int], from: DateExpression, to: DateExpression, metrics: [Metric], grouping: Grouping,
        refresh: Bool, currency: Currency? = nil, loader: HistoryLoader, activity: any Activity
    ) async throws -> [CounterSeries] {
        var data: [CounterSeries] = []
        for id in counterIDs {
            let counter = try await loader.counter(id: id)
            let range = try resolveRange(
                from: from, to: to, counter: counter, now: activity.now(), naming: activity.naming, note: activity.note)
            // Money in --currency or the counter's own: counters in different currencies get panels of their own.
            let priced = try await loader.inCurrency(metrics, counter: counter, requested: currency, refresh: refresh)
            data.append(
                try await loadSeries(
                    loader: loader, counter: counter, range: range, metrics: priced, grouping: grouping,
                    refresh: refresh))
        }
        for item in data where !item.leftOut.isEmpty {
            activity.note("Note: counter \(item.counter.id): \(leftOutNote(item.leftOut, grouping: grouping))")
        }
        for item in data where !item.missingDays.isEmpty {
            activity.note(
                "Note: counter \(item.counter.id) has no history for \(item.missingDays.count) day(s) of the range; they are gaps in the chart\(loader.client == nil ? " (run without \(activity.naming[.offline]) to fetch them)" : "")."
            )
        }
        return data
    }

    /// One counter's lines over its range.
    package struct CounterSeries {
        package var counter: Counter
        package var range: DateRange
        package var series: [Series]
        package var missingDays: [Day]
        /// Weeks or months cut short by the range (not the current one): left out of the lines.
        package var leftOut: [DateRange] = []
    }

    /// Loads the history and turns it into one series per metric: a point per period (its first day),
    /// nil where a day of the period is missing, the period holding today marked incomplete.
    /// A week or month cut by the range (`--from` on a Wednesday) is left out: its sum over fewer days
    /// would read as a drop. The current one stays, drawn dotted and labelled "so far".
    package static func loadSeries(
        loader: HistoryLoader, counter: Counter, range: DateRange, metrics: [Metric], grouping: Grouping, refresh: Bool
    ) async throws -> CounterSeries {
        let loaded = try await loader.load(
            counter: counter, range: range, metrics: metrics, grouping: grouping, refresh: refresh, rangeTotals: false)
        let periods = loaded.periods
        let rows = HistoryLoader.rows(from: loaded, metrics: metrics).rows
        let incompleteFrom = zip(periods, rows).first { $0.1.isIncomplete }?.0.from
        let leftOut = periods.filter { !isFull($0, grouping: grouping) && !$0.contains(loaded.today) }
        let series = metrics.enumerated().map { index, metric in
            let points: [(day: Day, value: Double?)] = zip(periods, rows).compactMap { period, row in
                if leftOut.contains(period) { return nil }
                return (period.from, index < row.values.count ? row.values[index].value : nil)
            }
            return Series(counter: counter, metric: metric, points: points, incompleteFrom: incompleteFrom)
        }
        return CounterSeries(
            counter: counter, range: range, series: series, missingDays: loaded.missingDays, leftOut: leftOut)
    }

    /// Whether a period is a whole day, Monday–Sunday week or calendar month.
    package static func isFull(_ period: DateRange, grouping: Grouping) -> Bool {
        switch grouping {
        case .day: return true
        case .week: return period.from.weekday == 1 && period.to == period.from.adding(days: 6)
        case .month: return period.from == period.from.startOfMonth && period.to == period.from.endOfMonth
        }
    }

    /// `Left out: the partial week of 2026-11-04 (5 of 7 days).`
    package static func leftOutNote(_ periods: [DateRange], grouping: Grouping) -> String {
        let unit = grouping == .month ? "month" : "week"
        let parts = periods.map { period in
            let full =
                grouping == .month ? DateRange(from: period.from.startOfMonth, to: period.from.endOfMonth)!.dayCount : 7
            return "\(period.from.iso) (\(period.dayCount) of \(full) days)"
        }
        return "Left out: the partial \(unit)\(periods.count == 1 ? "" : "s") of " + parts.joined(separator: ", ") + "."
    }

    /// The counters' chart annotations in their ranges, as marks (`HistoryLoader.annotations`: at most
    /// one Management request per counter, none when read within the hour; offline, the kept ones).
    /// Context, never a reason to fail a chart: a counter whose annotations cannot be read is noted
    /// and left without marks.
    package static func marks(for data: [CounterSeries], loader: HistoryLoader, activity: any Activity) async
        -> [SVGLineChart.Mark]
    {
        var marks: [SVGLineChart.Mark] = []
        for counter in data {
            switch await loader.annotations(counterID: counter.counter.id) {
            case .success(let notes):
                for note in notes where counter.range.contains(note.day) {
                    marks.append(SVGLineChart.Mark(day: note.day, title: TerminalText.sanitize(note.title, limit: 80)))
                }
            case .failure:
                activity.note(
                    "Note: counter \(counter.counter.id)'s chart annotations could not be read; the chart marks none.")
            }
        }
        return marks
    }

    /// The chart of several counters' series: the period spans all their ranges (time zones differ).
    package static func makeChart(_ data: [CounterSeries], grouping: Grouping, title: String?, width: Int, height: Int?)
        -> SVGLineChart
    {
        let from = data.map(\.range.from).min()!
        let to = data.map(\.range.to).max()!
        let period = DateRange(from: from, to: to)!
        let series = data.flatMap(\.series)
        let defaultTitle =
            data.count == 1
            ? (data[0].counter.name.trimmingCharacters(in: .whitespaces).isEmpty
                ? data[0].counter.displayName
                : data[0].counter.name + (data[0].counter.site.isEmpty ? "" : " — " + data[0].counter.site))
            : data.map(\.counter.displayName).joined(separator: ", ")
        let by = grouping == .day ? "daily" : grouping == .week ? "weekly" : "monthly"
        let subtitle = period.from.iso + " – " + period.to.iso + ", " + by
        var chart = SVGLineChart(
            series: series, period: period, title: title ?? defaultTitle, subtitle: subtitle, width: width, height: 400)
        // Each extra panel (another unit, or a line more than 10× smaller) needs room of its own.
        chart.height = max(height ?? (400 + 160 * (chart.panelCount - 1)), SVGLineChart.minimumHeight)
        chart.connectsAcrossDays = grouping != .day
        chart.incompleteLabel =
            grouping == .day ? "today (incomplete)" : grouping == .week ? "this week so far" : "this month so far"
        let leftOut = data.flatMap(\.leftOut)
        if !leftOut.isEmpty {
            var unique: [DateRange] = []
            for period in leftOut where !unique.contains(period) { unique.append(period) }
            chart.footnote = leftOutNote(unique, grouping: grouping)
        }
        return chart
    }
}
