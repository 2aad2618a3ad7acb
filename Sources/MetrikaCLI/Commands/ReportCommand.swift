import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore

/// `metrika report`: a counter's statistics by day, week or month (from the history database,
/// fetching only what is missing or still changing), or by any dimensions (straight from the API).
enum ReportCommand: Command {
    static let name = "report"
    static let summary = "Statistics of one or more counters as a table, CSV or JSON"
    static let usage = "report --counter ID[,ID…] [--from DATE] [--to DATE | --period NAME] [--group day|week|month] [--metrics LIST] [--dimensions LIST] [options]"
    static let discussion = """
    By default: pageviews, visits, users, page depth, time on site and bounce rate by day, from
    6daysAgo to today in each counter's time zone. Dates: YYYY-MM-DD, today, yesterday, NdaysAgo,
    NweeksAgo, NmonthsAgo (the same day N months back, or that month's last day); none before
    2008-01-01. Or --period NAME instead of --from/--to: today, yesterday, thisWeek, lastWeek
    (Monday to Sunday), thisMonth, lastMonth, thisYear, lastYear, lastNdays (N days to today).
    A range that starts before the counter was created starts on its creation day (a note on
    stderr says so); days before it are never shown as zeros.

    Time-series reports (no --dimensions/--preset/--filters, --accuracy full) are built from the
    history database: only missing days and the still-changing recent days are fetched.
    Dimension reports are fetched from the API page by page and streamed to CSV/JSON.
    Goal metrics (goal<ID>reaches, goal<ID>conversionRate) are titled with the goal's name in the
    table and JSON `title` (one extra request for the goals; offline, or if it fails, "Goal <ID>").
    On a terminal, stderr shows the rows fetched so far and any retry wait, erased when done.
    --compare (time series): every value beside the period of the same length just before and the
    change, +5.2% for counts, durations and page depth, -0.9 pp for rates; each day against the day
    N days earlier; previous days before the counter existed are — (never 0). Users of a week or
    month row have no previous value; the Total row's are the API's.

    Examples:
      metrika report --counter 1001
      metrika report --counter 1001 --from 2026-10-01 --to 2026-10-31 --group week --csv
      metrika report --counter 1001,1002 --metrics visits,bounceRate --json
      metrika report --counter 1001 --dimensions trafficSource --from 30daysAgo
      metrika report --counter 1001 --period lastMonth --group week
      metrika report --counter 1001 --period lastWeek --compare
      metrika report --counter 1001 --dimensions searchPhrase --limit 100000 --csv > phrases.csv
    """
    static let options: [OptionSpec] = [
        OptionSpec("counter", short: "c", value: "ID[,ID…]", help: "Counter id(s); repeatable"),
        OptionSpec("from", value: "DATE", help: "First day (default 6daysAgo)"),
        OptionSpec("to", value: "DATE", help: "Last day (default today)"),
        OptionSpec("period", value: "NAME", help: "A named period instead of --from/--to: today, yesterday, thisWeek, lastWeek, thisMonth, lastMonth, thisYear, lastYear, lastNdays"),
        OptionSpec("group", value: "day|week|month", help: "Time-series grouping (default day)"),
        OptionSpec("metrics", short: "m", value: "LIST", help: "Metrics: short names (visits, bounceRate, goal123reaches, …) or ym:s: names; at most 20"),
        OptionSpec("dimensions", short: "d", value: "LIST", help: "Dimensions: trafficSource, searchEngine, searchPhrase, startURL, country, city, browser, os, deviceCategory or ym:s: names"),
        OptionSpec("preset", value: "NAME", help: "A Metrika report template (traffic, sources_summary, geo_country, tech_platforms, …)"),
        OptionSpec("filters", value: "EXPR", help: "API filter, e.g. \"ym:s:trafficSource=='organic'\""),
        OptionSpec("sort", value: "LIST", help: "Sort of dimension reports, e.g. -ym:s:visits"),
        OptionSpec("limit", value: "N", help: "Rows of a dimension report (default 100, at most 10000000)"),
        OptionSpec("lang", value: "ru|en", help: "Language of dimension names (default en)"),
        OptionSpec("accuracy", value: "LEVEL", help: "low, medium, high, full (default) or a share in (0,1]"),
        OptionSpec("offline", help: "Use the history database only: no network"),
        OptionSpec("refresh", help: "Refetch the whole range, ignoring the history"),
        OptionSpec("raw", help: "Print API units: seconds and percent numbers instead of mm:ss and %"),
        OptionSpec("compare", help: "Compare with the period of the same length just before: previous values and the change (+5.2%, -0.9 pp for rates)"),
        OptionSpec("unsettled-days", value: "N", help: "Recent days that may still change and are refetched (default 2: today and yesterday)"),
    ] + CommonOptions.format + CommonOptions.database + CommonOptions.token

    /// The report as the options describe it, validated before any request.
    struct Request {
        var counterIDs: [Int]
        var from: DateExpression
        var to: DateExpression
        /// `--period`, when the dates came from it.
        var period: NamedPeriod?
        var grouping: Grouping
        var metrics: [Metric]?
        var dimensions: [MetrikaModel.Dimension]
        var preset: String?
        var filters: String?
        var sort: String?
        var limit: Int
        var lang: String?
        var accuracy: String
        var offline: Bool
        var refresh: Bool
        var raw: Bool
        /// `--compare`: every value beside the previous period's and the change.
        var compare = false
        var format: OutputFormat
        var unsettledDays: Int
        /// Line ends and formula policy of CSV output.
        var csv = CSVWriter()

        /// What `--limit` accepts: up to 500 pages of 20,000 rows.
        static let limitRange = 1...10_000_000

        /// Whether the history database serves this report.
        var usesHistory: Bool { dimensions.isEmpty && preset == nil && filters == nil && accuracy == "full" }
    }

    static func parseCounterIDs(_ options: ParsedOptions) throws -> [Int] {
        let texts = options.list("counter")
        guard !texts.isEmpty else { throw UsageError("Missing --counter ID (see `metrika counters` for your counters' ids), or set a default \"counter\" in the config file (docs/auth.md)") }
        var ids: [Int] = []
        for text in texts {
            guard let id = Int(text), id > 0 else { throw UsageError("--counter '\(text)' is not a counter id (a positive whole number)") }
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    static func parseMetrics(_ options: ParsedOptions) throws -> [Metric]? {
        let texts = options.list("metrics")
        if options.has("metrics") && texts.isEmpty { throw UsageError("--metrics is empty: list metrics like visits,bounceRate") }
        guard !texts.isEmpty else { return nil }
        var metrics: [Metric] = []
        for text in texts {
            guard let metric = Metric.named(text) else {
                throw UsageError("Unknown metric '\(text)'. Use one of \(Metric.known.map(\.shortName).joined(separator: ", ")), goal<ID>reaches, goal<ID>conversionRate, or a full ym:s: name")
            }
            if !metrics.contains(where: { $0.apiName == metric.apiName }) { metrics.append(metric) }
        }
        guard metrics.count <= 20 else { throw UsageError("--metrics lists \(metrics.count) metrics; the API allows at most 20 per report") }
        return metrics
    }

    static func parse(_ options: ParsedOptions) throws -> Request {
        guard options.positionals.isEmpty else { throw UsageError("Unexpected argument '\(options.positionals[0])'") }
        let ids = try parseCounterIDs(options)
        let (from, to, period) = try NamedPeriod.dates(options, defaultFrom: "6daysAgo")
        var grouping = Grouping.day
        if let text = options.value("group") {
            guard let value = Grouping(rawValue: text.lowercased()) else { throw UsageError("--group must be day, week or month, not '\(text)'") }
            grouping = value
        }
        let metrics = try parseMetrics(options)
        var dimensions: [MetrikaModel.Dimension] = []
        for text in options.list("dimensions") {
            guard let dimension = MetrikaModel.Dimension.named(text) else {
                throw UsageError("Unknown dimension '\(text)'. Use one of \(MetrikaModel.Dimension.known.map(\.shortName).joined(separator: ", ")), or a full ym:s: name")
            }
            dimensions.append(dimension)
        }
        guard dimensions.count <= 10 else { throw UsageError("--dimensions lists \(dimensions.count); the API allows at most 10") }
        if !dimensions.isEmpty, options.has("group") {
            throw UsageError("--group applies to time-series reports; it cannot be combined with --dimensions")
        }
        let limit = try options.integer("limit", in: Request.limitRange) ?? 100
        var lang: String?
        if let text = options.value("lang") {
            guard ["ru", "en"].contains(text.lowercased()) else { throw UsageError("--lang must be ru or en, not '\(text)'") }
            lang = text.lowercased()
        }
        var accuracy = "full"
        if let text = options.value("accuracy") {
            let lower = text.lowercased()
            if ["low", "medium", "high", "full"].contains(lower) {
                accuracy = lower
            } else if let share = Double(text), share > 0, share <= 1 {
                accuracy = text
            } else {
                throw UsageError("--accuracy must be low, medium, high, full or a number in (0, 1], not '\(text)'")
            }
        }
        if options.flag("offline") && options.flag("refresh") {
            throw UsageError("--offline and --refresh contradict each other: choose one")
        }
        var request = Request(
            counterIDs: ids, from: from, to: to, period: period, grouping: grouping, metrics: metrics, dimensions: dimensions,
            preset: options.value("preset"), filters: options.value("filters"), sort: options.value("sort"), limit: limit,
            lang: lang, accuracy: accuracy, offline: options.flag("offline"), refresh: options.flag("refresh"),
            raw: options.flag("raw"), format: try OutputFormat.from(options),
            unsettledDays: try options.integer("unsettled-days", in: 1...30) ?? 2)
        // Whether stdout is a terminal is decided where the sink is made (makeSink).
        request.csv = try OutputFormat.csvWriter(options, format: request.format, toTerminal: false)
        request.compare = options.flag("compare")
        if request.compare && !request.usesHistory {
            throw UsageError("--compare works for time-series reports only (no --dimensions, --preset, --filters or --accuracy): they come from the history, where the previous period costs at most one request")
        }
        if request.offline && !request.usesHistory {
            throw UsageError("--offline works for time-series reports only: the history keeps daily totals, not --dimensions, --preset, --filters or sampled answers")
        }
        if !request.usesHistory, request.dimensions.isEmpty, request.preset == nil, request.grouping != .day {
            throw UsageError("--group \(request.grouping.rawValue) with --filters or --accuracy is not supported yet; use --group day")
        }
        return request
    }

    static func run(_ options: ParsedOptions, context: CLIContext) async throws -> Int32 {
        let request = try parse(options)
        let session = Session(context: context, options: options)
        let sink = makeSink(request.format, csv: request.csv, context: context)
        if request.usesHistory {
            try await runTimeSeries(request, session: session, sink: sink)
        } else {
            try await runDirect(request, session: session, sink: sink)
        }
        return ExitCode.ok
    }

    /// The sink of a format; all of them format into stdout's byte writer.
    static func makeSink(_ format: OutputFormat, csv: CSVWriter, context: CLIContext) -> any ReportSink {
        switch format {
        case .table:
            // The sign of a --compare change in green or red, for a person at a colour terminal only.
            let colour = context.stdoutIsTerminal && (context.environment["NO_COLOR"] ?? "").isEmpty && context.environment["TERM"] != "dumb"
            let style = TerminalStyle(enabled: colour)
            var colourChange: (@Sendable (String) -> String)?
            if colour { colourChange = { @Sendable text in style.change(text) } }
            return ReportTableSink(output: context.stdout.writer, maxWidth: context.terminalWidth, colourChange: colourChange)
        case .csv:
            var writer = csv
            writer.terminal = context.stdoutIsTerminal
            return ReportCSVSink(output: context.stdout.writer, writer: writer)
        case .json: return ReportJSONSink(output: context.stdout.writer)
        }
    }

    static func queryEcho(_ request: Request, metrics: [Metric], dimensions: [MetrikaModel.Dimension]) -> [(String, JSONValue)] {
        var query: [(String, JSONValue)] = [
            ("counters", .array(request.counterIDs.map { .number(Double($0)) })),
            ("from", .string(request.from.description)),
            ("to", .string(request.to.description)),
        ]
        if let period = request.period { query.append(("period", .string(period.description))) }
        query += [
            ("metrics", .array(metrics.map { .string($0.apiName) })),
            ("dimensions", .array(dimensions.map { .string($0.apiName) })),
            ("accuracy", .string(request.accuracy)),
        ]
        if request.usesHistory { query.append(("group", .string(request.grouping.rawValue))) }
        if request.compare { query.append(("compare", .bool(true))) }
        if let preset = request.preset { query.append(("preset", .string(preset))) }
        if let filters = request.filters { query.append(("filters", .string(filters))) }
        if let sort = request.sort { query.append(("sort", .string(sort))) }
        if !request.usesHistory { query.append(("limit", .number(Double(request.limit)))) }
        if let lang = request.lang { query.append(("lang", .string(lang))) }
        return query
    }

    // MARK: - Time series from history

    static func runTimeSeries(_ request: Request, session: Session, sink: any ReportSink) async throws {
        let context = session.context
        let store = try HistoryStore(path: databasePath(session))
        let client = request.offline ? nil : try session.client()
        let loader = HistoryLoader(store: store, client: client, now: context.now, unsettledDays: request.unsettledDays)
        let metrics = request.metrics ?? Metric.everyday
        // Load every counter before writing anything: a counter that fails (access denied, network)
        // must not leave half a JSON document or CSV on stdout.
        var loads: [HistoryLoader.Loaded] = []
        var previousLoads: [HistoryLoader.Loaded?] = []
        for id in request.counterIDs {
            let counter = try await loader.counter(id: id)
            let range = try resolveRange(request, counter: counter, context: context)
            let loaded = try await loader.load(counter: counter, range: range, metrics: metrics, grouping: request.grouping, refresh: request.refresh)
            loads.append(loaded)
            previousLoads.append(request.compare ? try await loadPrevious(loaded, loader: loader, metrics: metrics, refresh: request.refresh) : nil)
        }
        var allMissing: [(Int, [Day])] = []
        var previousMissing: [(Int, [Day])] = []
        let goalNames = await GoalsCommand.names(for: metrics, counterIDs: request.counterIDs, client: client, context: context)
        if let first = loads.first {
            try sink.begin(ReportLayout(dimensions: [], metrics: metrics.map { $0.titled(byGoalNames: goalNames) }, period: first.range, grouping: request.grouping,
                                    multipleCounters: request.counterIDs.count > 1, raw: request.raw,
                                    query: queryEcho(request, metrics: metrics, dimensions: []), compare: request.compare))
        }
        for (loaded, before) in zip(loads, previousLoads) {
            var built = HistoryLoader.rows(from: loaded, metrics: metrics)
            try sink.beginSection(counter: loaded.counter, sampling: nil)
            if let before {
                let compared = compare(built.rows, with: before, current: loaded.range, metrics: metrics)
                built.rows = compared.rows
                try sink.compareSection(compared.totals)
                if !before.missingDays.isEmpty { previousMissing.append((loaded.counter.id, before.missingDays)) }
            }
            try sink.append(built.rows)
            try sink.endSection(totals: built.totals, missingDays: loaded.missingDays)
            if !loaded.missingDays.isEmpty { allMissing.append((loaded.counter.id, loaded.missingDays)) }
        }
        try sink.end()
        for (id, days) in allMissing {
            context.note("Note: counter \(id) has no history for \(ReportTableSink.describe(days: days))\(request.offline ? "; run without --offline to fetch it" : "").")
        }
        for (id, days) in previousMissing {
            context.note("Note: counter \(id) has no history for \(ReportTableSink.describe(days: days)) of the previous period: those changes are shown as —\(request.offline ? "; run without --offline to fetch it" : "").")
        }
    }

    // MARK: - --compare

    /// The period of the same length just before the loaded one.
    static func previousRange(of range: DateRange) -> DateRange {
        DateRange(from: range.from.adding(days: -range.dayCount), to: range.from.adding(days: -1))!
    }

    /// The previous period's history: one more request at most (its days with the API's totals over
    /// it, in one answer), none when the history has it settled, none when it lies wholly before the
    /// counter's first day (then every previous value is unknown, never zero).
    static func loadPrevious(_ loaded: HistoryLoader.Loaded, loader: HistoryLoader, metrics: [Metric], refresh: Bool) async throws -> HistoryLoader.Loaded {
        let previous = previousRange(of: loaded.range)
        // A previous period cut by the counter's creation has no correct totals: don't ask for them.
        let whole = previous.from >= firstDataDay(of: loaded.counter)
        return try await loader.load(counter: loaded.counter, range: previous, metrics: metrics, grouping: nil, refresh: refresh, rangeTotals: whole)
    }

    /// Rows with their previous values: each row against the same days shifted back by the period's
    /// length (a day against the day N days earlier — the same weekday when N is whole weeks); the
    /// totals against the previous period's totals. A week or month row's users (non-additive) have
    /// no previous value: only the API's total over exactly those days would be right.
    static func compare(_ rows: [Report.Row], with before: HistoryLoader.Loaded, current: DateRange, metrics: [Metric]) -> (rows: [Report.Row], totals: Report.Previous) {
        let shift = current.dayCount
        let previous = previousRange(of: current)
        var compared = rows
        for index in compared.indices {
            guard let period = compared[index].period,
                  let shifted = DateRange(from: period.from.adding(days: -shift), to: period.to.adding(days: -shift)) else { continue }
            compared[index].previous = Report.Previous(period: shifted, values: HistoryLoader.aggregate(before, period: shifted, metrics: metrics))
        }
        return (compared, Report.Previous(period: previous, values: HistoryLoader.aggregate(before, period: previous, metrics: metrics)))
    }

    static func databasePath(_ session: Session) -> String {
        session.options.value("db") ?? HistoryStore.defaultPath(environment: session.context.environment)
    }

    /// The request's dates in a counter's time zone; a `--to` past today is cut, with a note.
    static func resolveRange(_ request: Request, counter: Counter, context: CLIContext) throws -> DateRange {
        try MetrikaCLI.resolveRange(from: request.from, to: request.to, counter: counter, now: context.now(), note: context.note)
    }

    // MARK: - Straight from the API

    static func runDirect(_ request: Request, session: Session, sink: any ReportSink) async throws {
        let context = session.context
        let client = try session.client()
        // Every counter and range is checked before the first row is written, so a foreign or unknown
        // counter fails cleanly instead of cutting a streamed document short.
        var targets: [(Counter, DateRange)] = []
        for id in request.counterIDs {
            let counter = try await client.fetchCounter(id: id)
            targets.append((counter, try resolveRange(request, counter: counter, context: context)))
        }
        // A counter can pass the check and still have its data refused (403 `access_denied` on
        // /stat/v1/data while the counters list answers 200): several counters are fetched whole
        // before the first byte is written. One counter streams, so a 100,000-row report is never held.
        let goalNames = await GoalsCommand.names(for: request.metrics ?? [], counterIDs: request.counterIDs, client: client, context: context)
        let multiple = targets.count > 1
        let recording = multiple ? RecordingSink() : nil
        for (index, (counter, range)) in targets.enumerated() {
            let report = DirectReport(request: request, counter: counter, range: range, client: client, context: context,
                                      limitGiven: session.options.has("limit"), goalNames: goalNames)
            try await report.run(into: recording ?? sink, begin: index == 0, multipleCounters: multiple)
        }
        try recording?.replay(into: sink)
        try sink.end()
    }
}
