import MetrikaModel
import MetrikaRender

/// A time-series report (day, week or month rows) built from the history database: each counter's
/// history is loaded — fetching only what is missing or still changing — before anything is written,
/// then played into the sink, with `--compare`'s previous period beside it when asked.
package struct HistoryReport {
    package let request: ReportRequest
    package let loader: HistoryLoader
    package let activity: any Activity

    package init(request: ReportRequest, loader: HistoryLoader, activity: any Activity) {
        self.request = request
        self.loader = loader
        self.activity = activity
    }

    package func run(into sink: any ReportSink) async throws {
        var metrics = request.tableMetrics
        // Load every counter before writing anything: a counter that fails (access denied, network)
        // must not leave half a JSON document or CSV on stdout.
        var loads: [HistoryLoader.Loaded] = []
        var previousLoads: [HistoryLoader.Loaded?] = []
        var cutHours: [Int?] = []
        var predates: [String] = []
        var currencies: [(id: Int, metrics: [Metric])] = []
        for id in request.counterIDs {
            let counter = try await loader.counter(id: id)
            // Money in --currency, or in the counter's own; one table has one currency per column.
            let priced = try await loader.inCurrency(
                request.tableMetrics, counter: counter, requested: request.currency, refresh: request.refresh)
            if let first = currencies.first, first.metrics != priced {
                let codes = [first, (id, priced)].map {
                    "\($0.id) in \($0.metrics.compactMap(\.currency).first?.code ?? "?")"
                }
                throw ParameterError(.currency, .notApplicable) {
                    "counters keep revenue in different currencies (\(codes.joined(separator: ", "))); pass \($0[.currency]) RUB, USD, EUR or YND to see them in one"
                }
            }
            currencies.append((id, priced))
            metrics = priced
            let range = try resolveRange(
                from: request.from, to: request.to, counter: counter, now: activity.now(), naming: activity.naming,
                note: activity.note)
            // Asked for, a comparison with today in it sets today's finished hours against the same
            // hours of the previous period's last day (Comparison.finishedHoursToday); the HTML page's
            // summary, which compares without being asked, shows no changes instead.
            var compares = request.compare
            var hours: Int?
            if compares, request.comparesForSummary,
                Comparison.includesToday(range, counter: counter, now: activity.now())
            {
                compares = false
            } else if compares {
                hours = try Comparison.finishedHoursToday(
                    range, counter: counter, now: activity.now(), online: loader.client != nil && !request.offline)
            }
            var loaded = try await loader.load(
                counter: counter, range: range, metrics: metrics, grouping: request.grouping, refresh: request.refresh)
            let shift = Comparison.shift(of: loaded.range, hours: hours)
            var before =
                compares
                ? try await Comparison.loadPrevious(
                    loaded, loader: loader, metrics: metrics, refresh: request.refresh, shift: shift)
                : nil
            if let hours, let client = loader.client, var previous = before {
                _ = try await Comparison.cutLastDay(&loaded, lastDay: loaded.range.to, hours: hours, client: client)
                _ = try await Comparison.cutLastDay(
                    &previous, lastDay: loaded.range.to.adding(days: -shift), hours: hours, client: client)
                before = previous
            }
            if compares,
                let note = Comparison.predatesNote(
                    Comparison.previousRange(of: loaded.range, shift: shift), counter: counter, rows: false)
            {
                predates.append(note)
            }
            loads.append(loaded)
            previousLoads.append(before)
            cutHours.append(hours)
        }
        var allMissing: [(Int, [Day])] = []
        var previousMissing: [(Int, [Day])] = []
        var metricMissing: [(Int, Metric, [Day])] = []
        let goalNames = await GoalNames.load(
            for: metrics, counterIDs: request.counterIDs, client: loader.client, activity: activity)
        // Counters in different time zones resolve `yesterday` to different days: the report spans them all.
        if let span = DateRange.spanning(loads.map(\.range)) {
            try sink.begin(
                ReportLayout(
                    dimensions: [], metrics: metrics.map { $0.titled(byGoalNames: goalNames) }, period: span,
                    grouping: request.grouping,
                    multipleCounters: request.counterIDs.count > 1, raw: request.raw,
                    query: request.queryEcho(metrics: metrics, dimensions: []), compare: request.compare))
        }
        for ((loaded, before), hours) in zip(zip(loads, previousLoads), cutHours) {
            var built = HistoryLoader.rows(from: loaded, metrics: metrics)
            try sink.beginSection(counter: loaded.counter, sampling: nil)
            if let before {
                let compared = Comparison.compare(
                    built.rows, with: before, current: loaded.range, metrics: metrics,
                    shift: Comparison.shift(of: loaded.range, hours: hours))
                built.rows = compared.rows
                var totals = compared.totals
                totals.lastDayHours = hours
                try sink.compareSection(totals)
                if !before.missingDays.isEmpty { previousMissing.append((loaded.counter.id, before.missingDays)) }
            }
            try sink.append(built.rows)
            let lacking = loaded.missingMetrics(metrics)
            if !lacking.isEmpty { try sink.missingMetrics(lacking) }
            try sink.endSection(totals: built.totals, missingDays: loaded.missingDays)
            if !loaded.missingDays.isEmpty { allMissing.append((loaded.counter.id, loaded.missingDays)) }
            for (metric, days) in lacking { metricMissing.append((loaded.counter.id, metric, days)) }
        }
        try sink.end()
        for (id, days) in allMissing {
            activity.note(
                "Note: counter \(id) has no history for \(ReportTableSink.describe(days: days))\(request.offline ? "; \(activity.naming.action(.fetchOnline))" : "")."
            )
        }
        // Said per metric: the others of those days are shown.
        for (id, metric, days) in metricMissing {
            activity.note(
                "Note: counter \(id) has no history of \(metric.shortName) for \(ReportTableSink.describe(days: days)): shown as —\(request.offline ? "; \(activity.naming.action(.fetchOnline))" : "")."
            )
        }
        for note in predates { activity.note(note) }
        for (id, days) in previousMissing {
            activity.note(
                "Note: counter \(id) has no history for \(ReportTableSink.describe(days: days)) of the previous period: those changes are shown as —\(request.offline ? "; \(activity.naming.action(.fetchOnline))" : "")."
            )
        }
    }
}
