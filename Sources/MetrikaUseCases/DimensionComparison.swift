import MetrikaAPI
import MetrikaModel
import MetrikaRender

/// `--compare` of a dimension report (`compare` with `dimensions` in `get_report`): each row with
/// its value in the previous period of the same length and the change, from one
/// `/stat/v1/data/comparison` request per 20,000 rows (the period on side a, which the API sorts
/// by; the previous period on side b), so "which phrases grew" is one call. A row whose value had
/// nothing in one of the periods says so (`Report.Presence`: new, gone) rather than showing a
/// change from or to zero. Totals are the API's for each period: nothing is summed, so users and
/// rates stay right.
extension DirectReport {
    /// The rows of one counter, compared, into `sink` (its `begin` first when `begin`). Returns the
    /// rows the API says the comparison has (the union of both periods' values).
    func runComparison(into sink: any ReportSink, begin: Bool, multipleCounters: Bool, span: DateRange?) async throws
        -> (columns: Columns?, rowsTotal: Int)
    {
        // Today in the period: its finished hours against the same hours of the previous period's last day.
        let hours = try Comparison.finishedHoursToday(range, counter: counter, now: activity.now(), online: true)
        let previous = Comparison.previousRange(of: range, shift: Comparison.shift(of: range, hours: hours))
        let sideFilters = hours.map {
            (
                a: Comparison.cutFilter(range, hours: $0, and: request.filters),
                b: Comparison.cutFilter(previous, hours: $0, and: request.filters)
            )
        }
        var columns = Columns(dimensions: requestedDimensions, metrics: request.tableMetrics)
        let query = self.query
        var pager = Pager(wanted: request.limit, pageSize: Self.pageSize, hardCap: Pager.reportHardCap)
        let skipped = max(0, firstRow - 1)
        var rowsTotal = 0
        var shown: Report.ShownRows?
        // The shown rows' previous values, for the Other row's: the previous totals less them.
        var shownBefore: Report.ShownRows?
        var previousTotals: [Quantity] = []
        var totals: [Quantity] = []
        var started = false
        while let next = pager.nextPage {
            let answer = try await client.fetchComparison(
                query, a: (range.from.iso, range.to.iso), b: (previous.from.iso, previous.to.iso),
                limit: next.limit, offset: next.offset + skipped, sideFilters: sideFilters)
            rowsTotal = answer.totalRows
            // Money still in "the counter's currency" is in the one the answer names (as DirectReport.columns).
            if !started, let currency = answer.queryCurrency.flatMap(Currency.init(code:)) {
                columns.metrics = columns.metrics.map { $0.needsCurrency ? $0.inCurrency(currency) : $0 }
            }
            guard
                pager.record(
                    rowCount: answer.rows.count, newRows: answer.rows.count,
                    claimedTotal: max(0, answer.totalRows - skipped))
            else { break }
            if !started {
                started = true
                shown = Report.ShownRows(metrics: columns.metrics)
                shownBefore = Report.ShownRows(metrics: columns.metrics)
                if begin {
                    var layout = ReportLayout(
                        dimensions: columns.dimensions,
                        metrics: columns.metrics.map { $0.titled(byGoalNames: goalNames) }, period: span ?? range,
                        grouping: nil, multipleCounters: multipleCounters, raw: request.raw,
                        query: request.queryEcho(metrics: columns.metrics, dimensions: columns.dimensions),
                        compare: true)
                    layout.attribution = request.attribution?.apiValue
                    try sink.begin(layout)
                }
                let sampling = Sampling(isSampled: answer.sampled, share: answer.sampleShare ?? 1)
                try sink.beginSection(counter: counter, sampling: sampling)
                totals = Normalizer.quantities(Self.padded(answer.totalsA, columns.metrics.count), of: columns.metrics)
                previousTotals = Normalizer.quantities(
                    Self.padded(answer.totalsB, columns.metrics.count), of: columns.metrics)
                try sink.compareSection(
                    Report.Previous(period: previous, values: previousTotals, lastDayHours: hours))
                if answer.sampled {
                    activity.note(
                        "Note: counter \(counter.id)'s numbers are estimates: Metrika sampled \(DecimalText.format((answer.sampleShare ?? 1) * 100, fractionDigits: 1))% of visits (\(activity.naming[.accuracy]) \(request.accuracy)). Use \(activity.naming[.accuracy]) full for exact numbers."
                    )
                }
            }
            var rows: [Report.Row] = []
            rows.reserveCapacity(answer.rows.count)
            for row in answer.rows {
                let current = Normalizer.quantities(Self.padded(row.a, columns.metrics.count), of: columns.metrics)
                let before = Normalizer.quantities(Self.padded(row.b, columns.metrics.count), of: columns.metrics)
                var compared = Report.Row(
                    dimensions: (0..<columns.dimensions.count).map {
                        DimensionValue(name: $0 < row.names.count ? row.names[$0] : nil)
                    },
                    values: current, previous: Report.Previous(period: previous, values: before))
                compared.presence = Self.presence(current: row.a, previous: row.b)
                shown?.add(compared)
                shownBefore?.add(Report.Row(dimensions: compared.dimensions, values: before))
                rows.append(compared)
            }
            try sink.append(rows)
        }
        if let warning = pager.warning("counter \(counter.id)'s report") {
            activity.note(warning)
        } else if notesCut, pager.received < pager.claimedTotal {
            activity.note(
                "Note: counter \(counter.id): showing the first \(pager.received) of \(pager.claimedTotal) rows; \(Self.limitHint(claimed: pager.claimedTotal, naming: activity.naming))."
            )
        }
        if let note = Comparison.predatesNote(previous, counter: counter, rows: true) { activity.note(note) }
        guard started else { return (nil, rowsTotal) }
        // The whole report's rows (those before `firstRow` too), as `more.rows_total` says them.
        if pager.warning("") == nil, var rest = shown?.leftOut(rowsTotal: pager.claimedTotal + skipped, totals: totals)
        {
            if let before = shownBefore?.leftOut(rowsTotal: pager.claimedTotal + skipped, totals: previousTotals) {
                rest.previous = Report.Previous(period: previous, values: before.values)
            }
            try sink.leftOut(rest)
        }
        try sink.endSection(totals: totals, missingDays: [])
        return (columns, rowsTotal)
    }

    /// Whether a row's value was there in each period: a side whose every value is zero or unknown
    /// had no visits with that value (the API fills a side it lacks so).
    static func presence(current: [Double?], previous: [Double?]) -> Report.Presence {
        func empty(_ values: [Double?]) -> Bool { values.allSatisfy { ($0 ?? 0) == 0 } }
        switch (empty(current), empty(previous)) {
        case (false, true): return .new
        case (true, false): return .gone
        default: return .both
        }
    }

    static func padded(_ values: [Double?], _ count: Int) -> [Double?] {
        values.count >= count
            ? Array(values.prefix(count)) : values + Array(repeating: nil, count: count - values.count)
    }
}
