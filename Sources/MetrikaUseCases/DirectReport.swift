import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender

/// One counter's report straight from `/stat/v1/data`: pages through the one `Pager` (the next page
/// is requested while the current one is written), names the columns from the answer or the request,
/// checks every row's width, normalizes the values and hands them to the sink.
package struct DirectReport {
    package let request: ReportRequest
    package let counter: Counter
    package let range: DateRange
    package let client: MetrikaClient
    package let activity: any Activity
    /// Goal names for the titles of goal metrics (empty: `Goal <ID> reaches`).
    package var goalNames: [Int: String] = [:]
    /// Whether the rows so far may be shown on the progress line (not when CSV or JSON streams to
    /// the same terminal: the streamed text and the line would interleave).
    package var showsProgress = true
    /// The 1-based row of the answer to start from (the API's `offset`): a page after the first
    /// (the MCP server's `get_report` continues a cut answer from here). 1 for the CLI.
    package var firstRow = 1
    /// Whether a report cut by its limit says so in a note naming `--limit` (the CLI); the MCP server
    /// says how to continue in its own words.
    package var notesCut = true

    package init(
        request: ReportRequest, counter: Counter, range: DateRange, client: MetrikaClient, activity: any Activity,
        goalNames: [Int: String] = [:], showsProgress: Bool = true
    ) {
        self.request = request
        self.counter = counter
        self.range = range
        self.client = client
        self.activity = activity
        self.goalNames = goalNames
        self.showsProgress = showsProgress
    }

    /// Rows per request: large enough to keep requests few, small enough that a 100,000-row report
    /// never sits in memory whole.
    package static let pageSize = 20_000

    /// The columns of the report: what the answer says it answered (a preset's expansion), else
    /// what the request asked for.
    package struct Columns: Equatable {
        package var dimensions: [MetrikaModel.Dimension]
        package var metrics: [Metric]
    }

    package var requestedDimensions: [MetrikaModel.Dimension] {
        request.dimensions.isEmpty && request.preset == nil ? [MetrikaModel.Dimension.date] : request.dimensions
    }

    package var isTimeSeries: Bool { requestedDimensions == [MetrikaModel.Dimension.date] }

    package var query: StatQuery {
        let dimensions = requestedDimensions
        return StatQuery(
            ids: [counter.id], metrics: request.tableMetrics.map(\.apiName),
            dimensions: dimensions.map(\.apiName), date1: range.from.iso, date2: range.to.iso, filters: request.filters,
            sort: request.sort ?? (isTimeSeries ? MetrikaModel.Dimension.date.apiName : nil),
            accuracy: request.accuracy, preset: request.preset, lang: request.lang, group: request.apiGroup,
            currency: request.currency?.code, attribution: request.attribution?.apiValue)
    }

    /// Fetches the report into `sink`; calls `sink.begin` first when `begin` is true (the first counter).
    /// Returns the columns the answer had (nil when it had no page). `span`: the days the whole report
    /// covers (several counters in different time zones resolve relative dates to different days);
    /// this counter's own range when nil.
    /// `rowsTotal`: the rows the API says the whole report has (from row 1).
    @discardableResult
    package func run(into sink: any ReportSink, begin: Bool, multipleCounters: Bool, span: DateRange? = nil)
        async throws -> (columns: Columns?, rowsTotal: Int)
    {
        let query = self.query
        // A time series has one row per day: the default 100-row limit must not cut a long range.
        let rowLimit =
            isTimeSeries && request.requestedLimit == nil ? max(request.limit, range.dayCount) : request.limit
        var pager = Pager(wanted: rowLimit, pageSize: Self.pageSize, hardCap: Pager.reportHardCap)
        let today = MetrikaUseCases.today(for: counter, now: activity.now())
        var columns: Columns?
        var totals: [Quantity] = []
        // The rows shown, summed as they pass: what the rows --limit leaves out add up to.
        var shown: Report.ShownRows?
        var seenStarts = Set<Int>()
        // The next page's answer is fetched while this page is written, and read only after it:
        // at most one page of rows and one answer are held (reading it ahead held two pages).
        var prefetched: Task<StatDataAnswer, any Error>?
        defer { prefetched?.cancel() }
        let skipped = max(0, firstRow - 1)
        var rowsTotal = 0
        while let next = pager.nextPage {
            let page: StatDataPage
            if let ahead = prefetched {
                page = try client.read(await ahead.value)
            } else {
                page = try await client.fetchData(query, offset: next.offset + skipped, limit: next.limit)
            }
            prefetched = nil
            let isNew = page.firstRowKey.map { seenStarts.insert($0).inserted } ?? true
            rowsTotal = page.totalRows
            guard
                pager.record(
                    rowCount: page.rowCount, newRows: isNew ? page.rowCount : 0,
                    claimedTotal: max(0, page.totalRows - skipped))
            else { break }
            if let following = pager.nextPage {
                prefetched = Task { [client] in
                    try await client.fetchDataAnswer(query, offset: following.offset + skipped, limit: following.limit)
                }
            }
            if columns == nil {
                let named = try Self.columns(of: page, request: request, requested: requestedDimensions)
                columns = named
                if begin, request.requestedGrouping != nil, !named.dimensions.contains(where: \.isDatePeriod) {
                    let n = activity.naming
                    activity.note(
                        "Note: \(n[.group]) \(request.grouping.rawValue) has no effect here: the report has no date period (\(named.dimensions.map(\.shortName).joined(separator: ", "))); \(n[.preset]) traffic or \(n[.dimensions]) ym:s:datePeriod<group> is by period."
                    )
                }
                if begin {
                    // `ym:s:<attribution>TrafficSource` named by the model the answer used (or the one asked for).
                    let model = page.queryAttribution.flatMap { $0.isEmpty ? nil : $0 } ?? request.attribution?.apiValue
                    var layout = ReportLayout(
                        dimensions: Self.resolvingAttribution(named.dimensions, model: model),
                        metrics: named.metrics.map { $0.titled(byGoalNames: goalNames) }, period: span ?? range,
                        grouping: isTimeSeries ? .day : nil,
                        multipleCounters: multipleCounters, raw: request.raw,
                        query: request.queryEcho(metrics: named.metrics, dimensions: named.dimensions))
                    // The model the answer says it used (it may differ from the one asked for).
                    if let asked = request.attribution {
                        layout.attribution = Self.attributionName(answered: page.queryAttribution, asked: asked)
                    } else if named.dimensions.contains(where: { $0.apiName.contains("<attribution>") }),
                        let answered = page.queryAttribution, !answered.isEmpty
                    {
                        // A report by source depends on the model even when none was asked: say which one answered.
                        layout.attribution =
                            TerminalText.sanitize(answered.lowercased(), limit: 60) + " (the API's default)"
                    }
                    try sink.begin(layout)
                }
                try sink.beginSection(counter: counter, sampling: page.sampling)
                totals = Normalizer.quantities(page.totals, of: named.metrics)
                if page.sampled {
                    activity.note(
                        "Note: counter \(counter.id)'s numbers are estimates: Metrika sampled \(DecimalText.format(page.sampling.share * 100, fractionDigits: 1))% of visits (\(activity.naming[.accuracy]) \(request.accuracy)). Use \(activity.naming[.accuracy]) full for exact numbers."
                    )
                }
            }
            guard let columns else { break }
            if shown == nil { shown = Report.ShownRows(metrics: columns.metrics) }
            try append(page, columns: columns, today: today, to: sink, shown: &shown)
            if showsProgress && page.totalRows > page.rowCount {
                activity.progress(
                    "Counter \(counter.id): \(pager.received) of \(min(page.totalRows, rowLimit)) rows",
                    force: pager.nextPage == nil)
            }
        }
        activity.endProgress()
        if let warning = pager.warning("counter \(counter.id)'s report") {
            activity.note(warning)
        } else if notesCut, pager.received < pager.claimedTotal {
            activity.note(
                "Note: counter \(counter.id): showing the first \(pager.received) of \(pager.claimedTotal) rows; \(Self.limitHint(claimed: pager.claimedTotal, naming: activity.naming))."
            )
        }
        if columns != nil {
            // The Total is over every row the report has: the table, CSV, JSON and HTML say how many
            // were left out and what they add up to (stderr's note alone went unseen).
            // The whole report's rows, the skipped ones before `firstRow` too: the totals hold them
            // all, so Other is every row not on this page and Total says as many as `more.rows_total`.
            if pager.warning("") == nil,
                let rest = shown?.leftOut(rowsTotal: pager.claimedTotal + skipped, totals: totals)
            {
                try sink.leftOut(rest)
            }
            try sink.endSection(totals: totals, missingDays: [])
        }
        return (columns, rowsTotal)
    }

    /// The model for the heading: the asked one when the answer echoes it in its own spelling
    /// (`CROSS_DEVICE_LAST_SIGNIFICANT`), else what the answer says it used, else the asked one.
    package static func attributionName(answered: String?, asked: Attribution) -> String {
        guard let answered, !answered.isEmpty else { return asked.apiValue }
        func key(_ text: String) -> String { String(text.lowercased().filter { $0 != "_" }) }
        return key(answered) == key(asked.apiValue)
            ? asked.apiValue : TerminalText.sanitize(answered.lowercased(), limit: 60)
    }

    /// Dimensions with `<attribution>` in their API name (`ym:s:<attribution>TrafficSource`, the
    /// e-commerce presets) under `model`, in the API's explicit form: `ym:s:automaticTrafficSource`,
    /// `ym:s:crossDeviceLastSignificantTrafficSource`, `ym:s:lastSignTrafficSource` (the answer's
    /// `LastSign`). Unchanged when the model is unknown (no echo, none asked) or not a plain name.
    package static func resolvingAttribution(_ dimensions: [MetrikaModel.Dimension], model: String?) -> [MetrikaModel
        .Dimension]
    {
        let placeholder = "<attribution>"
        guard let model, let name = explicitModelName(model) else { return dimensions }
        return dimensions.map { dimension in
            guard dimension.apiName.contains(placeholder) else { return dimension }
            return MetrikaModel.Dimension(
                apiName: dimension.apiName.replacing(placeholder, with: name), shortName: dimension.shortName,
                columnName: dimension.columnName, title: dimension.title)
        }
    }

    /// A model as it goes into a dimension's name: `cross_device_first` (or `CROSS_DEVICE_FIRST`) →
    /// `crossDeviceFirst`, `LastSign` → `lastSign`; nil for anything but letters, digits and `_`.
    static func explicitModelName(_ model: String) -> String? {
        guard !model.isEmpty, model.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            return nil
        }
        let parts = model.split(separator: "_").map(String.init)
        guard let first = parts.first else { return nil }
        if parts.count == 1 && first != first.uppercased() {
            return first.prefix(1).lowercased() + first.dropFirst()
        }
        return first.lowercased()
            + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
    }

    /// "use --limit N" with an N the parser accepts.
    package static func limitHint(claimed: Int, naming: ParameterNaming) -> String {
        let most = ReportRequest.limitRange.upperBound
        return claimed <= most
            ? "use \(naming[.limit]) \(claimed) to see them all"
            : "use \(naming[.limit]) \(most) (the most metrika fetches) or \(naming[.filters]) to narrow the report"
    }

    /// The columns of the answer: a preset's expansion comes from the `query` echo; an answer without
    /// one (real answers with only `data` exist) falls back to what the request asked for. A row of
    /// another width is an unreadable answer (exit 65), never a table with values in the wrong columns.
    package static func columns(of page: StatDataPage, request: ReportRequest, requested: [MetrikaModel.Dimension])
        throws -> Columns
    {
        var dimensions = requested
        var metrics = request.tableMetrics
        if request.preset != nil, page.hasQueryEcho {
            let echoed = page.queryMetrics.compactMap { Metric.named($0) }
            if !echoed.isEmpty || request.metrics == nil { metrics = echoed }
            if request.dimensions.isEmpty {
                dimensions = page.queryDimensions.compactMap { MetrikaModel.Dimension.named($0) }
            }
        }
        // Money still in "the counter's currency" is in the one the answer names.
        if let currency = page.queryCurrency.flatMap(Currency.init(code:)) {
            metrics = metrics.map { $0.needsCurrency ? $0.inCurrency(currency) : $0 }
        }
        try checkWidths(page, dimensions: dimensions.count, metrics: metrics.count)
        // `ym:s:datePeriod<group>` is the period the request's `group=` filled in: titled by it
        // ("Week of", CSV `week`), never by the placeholder.
        let period = MetrikaModel.Dimension.datePeriod(request.grouping.rawValue)
        dimensions = dimensions.map { $0.apiName == MetrikaModel.Dimension.datePeriodPlaceholder ? period ?? $0 : $0 }
        return Columns(dimensions: dimensions, metrics: metrics)
    }

    package static func checkWidths(_ page: StatDataPage, dimensions: Int, metrics: Int) throws {
        guard let misfit = page.firstMisfit(dimensions: dimensions, metrics: metrics) else { return }
        throw MisfitRows(
            misfit: (misfit.dimensions, misfit.metrics), columns: (dimensions, metrics), hasQueryEcho: page.hasQueryEcho
        )
    }

    /// Rows wider or narrower than their columns: the API's unreadable answer (exit 65), whose hint
    /// names the request's metrics and dimensions as the entry point spells them.
    package struct MisfitRows: WordedFailure {
        package var misfit: (dimensions: Int, metrics: Int)
        package var columns: (dimensions: Int, metrics: Int)
        package var hasQueryEcho: Bool

        package var exitCode: Int32 { APIError.unreadable("").exitCode }

        package func message(_ naming: ParameterNaming) -> String {
            func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
            let echo =
                hasQueryEcho
                ? ""
                : " (the answer has no query echo naming its columns; give \(naming[.metrics]) and \(naming[.dimensions]))"
            return APIError.unreadable(
                "a report row has \(count(misfit.dimensions, "dimension value")) and \(count(misfit.metrics, "metric value")) for \(count(columns.dimensions, "dimension")) and \(count(columns.metrics, "metric"))\(echo)"
            ).message(naming)
        }
    }

    /// Rows handed to the sink at a time: a CSV or JSON sink writes and drops them, so a page's
    /// rows are never all held as `Report.Row`s at once (the page's flat storage is; see
    /// docs/performance.md).
    package static let batchSize = 1_024

    /// The page's rows, normalized, into `sink` in batches of `batchSize`; every row checked against
    /// the columns first.
    package func append(_ page: StatDataPage, columns: Columns, today: Day, to sink: any ReportSink) throws {
        var shown: Report.ShownRows?
        try append(page, columns: columns, today: today, to: sink, shown: &shown)
    }

    /// The same, adding each row to `shown` when given.
    func append(
        _ page: StatDataPage, columns: Columns, today: Day, to sink: any ReportSink, shown: inout Report.ShownRows?
    ) throws {
        try Self.checkWidths(page, dimensions: columns.dimensions.count, metrics: columns.metrics.count)
        var rows: [Report.Row] = []
        rows.reserveCapacity(min(page.rowCount, Self.batchSize))
        let isTimeSeries = self.isTimeSeries
        try page.forEachRow { dimensionValues, values in
            var period: DateRange?
            var incomplete = false
            if isTimeSeries, let day = dimensionValues.first?.name.flatMap(Day.init(iso:)) {
                period = DateRange(from: day, to: day)
                incomplete = day == today
            }
            let row = Report.Row(
                dimensions: dimensionValues, values: Normalizer.quantities(values, of: columns.metrics),
                isIncomplete: incomplete, period: period)
            shown?.add(row)
            rows.append(row)
            if rows.count == Self.batchSize {
                try sink.append(rows)
                rows.removeAll(keepingCapacity: true)
            }
        }
        if !rows.isEmpty { try sink.append(rows) }
    }
}

extension DirectReport {
    /// A whole report straight from the API: every counter and range is checked before the first row
    /// is written, so a foreign or unknown counter fails cleanly instead of cutting a streamed document
    /// short. A counter can pass the check and still have its data refused (403 `access_denied` on
    /// /stat/v1/data while the counters list answers 200): several counters are fetched whole before
    /// the first byte is written. One counter streams, so a 100,000-row report is never held.
    /// `firstRow`, `notesCut`: see the properties of those names. Returns the most rows any counter's
    /// whole report has (from row 1), as the API says.
    @discardableResult
    package static func run(
        _ request: ReportRequest, client: MetrikaClient, activity: any Activity, into sink: any ReportSink,
        showsProgress: Bool,
        firstRow: Int = 1, notesCut: Bool = true
    ) async throws -> Int {
        var targets: [(Counter, DateRange)] = []
        for id in request.counterIDs {
            let counter = try await client.fetchCounter(id: id)
            targets.append(
                (
                    counter,
                    try resolveRange(
                        from: request.from, to: request.to, counter: counter, now: activity.now(),
                        naming: activity.naming, note: activity.note)
                ))
        }
        let goalNames = await GoalNames.load(
            for: request.metrics ?? [], counterIDs: request.counterIDs, client: client, activity: activity)
        if let attribution = request.attribution, let old = attribution.replaced {
            activity.note(
                "Note: since June 2026 the API answers the attribution model \(old) with \(attribution.apiValue); asking for that."
            )
        }
        let multiple = targets.count > 1
        let span = DateRange.spanning(targets.map(\.1))
        let recording = multiple ? RecordingSink() : nil
        var first: (id: Int, columns: Columns)?
        var rowsTotal = 0
        for (index, (counter, range)) in targets.enumerated() {
            var report = DirectReport(
                request: request, counter: counter, range: range, client: client, activity: activity,
                goalNames: goalNames, showsProgress: showsProgress)
            report.firstRow = firstRow
            report.notesCut = notesCut
            let (columns, total) =
                request.compare
                ? try await report.runComparison(
                    into: recording ?? sink, begin: index == 0, multipleCounters: multiple, span: span)
                : try await report.run(
                    into: recording ?? sink, begin: index == 0, multipleCounters: multiple, span: span)
            rowsTotal = max(rowsTotal, total)
            // Money in each counter's own currency: one column cannot hold roubles and dollars
            // (checked before the recorded rows are written, so nothing is printed).
            if let columns, let earlier = first,
                earlier.columns.metrics.map(\.currency) != columns.metrics.map(\.currency)
            {
                let code = { (metrics: [Metric]) in metrics.compactMap(\.currency).first?.code ?? "?" }
                let sentence =
                    "counters keep revenue in different currencies (\(earlier.id) in \(code(earlier.columns.metrics)), \(counter.id) in \(code(columns.metrics)))"
                throw ParameterError(.currency, .notApplicable) {
                    "\(sentence); pass \($0[.currency]) RUB, USD, EUR or YND to see them in one"
                }
            }
            if first == nil, let columns { first = (counter.id, columns) }
        }
        try recording?.replay(into: sink)
        try sink.end()
        return rowsTotal
    }
}
