import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem
import MetrikaUseCases

/// `metrika report`: a counter's statistics by day, week or month (from the history database,
/// fetching only what is missing or still changing), or by any dimensions (straight from the API).
enum ReportCommand: Command {
    static let name = "report"
    static let summary = "Statistics of one or more counters as a table, CSV, JSON or an HTML page"
    static let synopses: [[UsageTerm]] = [[.option("counter"), .optional([.option("from")]), .optional([.oneOf([[.option("to")], [.option("period")]])]), .optional([.option("group")]), .optional([.option("metrics")]), .optional([.option("dimensions")]), .optional([.option("format")]), .optional([.option("output")]), .moreOptions]]
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
    Goal metrics (goal<ID>reaches, goal<ID>conversionRate, goal<ID>revenue) are titled with the
    goal's name in the table and JSON `title` (one extra request for the goals; offline, or if it
    fails, "Goal <ID>").
    Money: purchases, revenue, revenuePerPurchase (average order value), revenuePerVisit, in
    --currency or the counter's own currency (the API says which; remembered for a day): tables
    1 250 000.00 ₽, CSV plain numbers in revenue_rub-style columns, JSON "unit": "money" with
    "currency". Weeks and months: revenue and purchases add up; average order value is the
    period's revenue over its purchases, empty for a period without purchases.
    A shop's products: --preset top_products, top_brands, basket or basket_products (by
    productName, productBrand, productCategoryLevel1), or the metrics productImpressions (item
    views), productBasketsQuantity (added to basket), productPurchasedQuantity (items bought),
    basketValue and productRevenue (money), and productImpressionsUniq, productBasketsUniq,
    productPurchasedUniq (users: never summed over days).
    --attribution MODEL (with --dimensions or --preset, e.g. --preset purchase): the heading says
    the model the answer used.
    On a terminal, stderr shows the rows fetched so far and any retry wait, erased when done.
    A table wider than the terminal keeps its key column (date, source…) whole: --compare's
    "before" columns go first, then the metrics are split into blocks that repeat the key. Pipes
    and files get the whole table.
    --compare (time series): every value beside the period of the same length just before and the
    change, +5.2% for counts, durations and page depth, -0.9 pp for rates; each day against the day
    N days earlier; previous days before the counter existed are — (never 0). Users of a week or
    month row have no previous value; the Total row's are the API's. On a colour terminal a change
    is green when it is good news and red when bad (a rising bounce rate is red).
    --format html: one self-contained page (no script, no network resource) that reads on a phone
    and on a desktop: per counter a summary of each metric's total and its change against the
    previous period (time series: loaded like --compare, at most one request more), a chart per
    metric (dimension reports: bars of the top 10 rows) and the table; --compare adds the previous
    values and changes to the table too. On stdout, or --output FILE.html (written atomically: a
    failed run leaves the old page) — for cron, a page a team can open.

    Examples:
      metrika report --counter 1001
      metrika report --counter 1001 --from 2026-10-01 --to 2026-10-31 --group week --csv
      metrika report --counter 1001,1002 --metrics visits,bounceRate --json
      metrika report --counter 1001 --dimensions trafficSource --from 30daysAgo
      metrika report --counter 1001 --period lastMonth --group week
      metrika report --counter 1001 --period lastWeek --compare
      metrika report --counter 1001 --dimensions searchPhrase --limit 100000 --csv > phrases.csv
      metrika report --counter 1001 --period lastWeek --format html --output /var/www/metrika/week.html
      metrika report --counter 1001 --metrics purchases,revenue,revenuePerPurchase --group week
      metrika report --counter 1001 --preset purchase --attribution automatic --currency USD
      metrika report --counter 1001 --preset basket --period lastWeek --csv
    """
    static let options: [OptionSpec] = [CounterOptions.spec()] + DateOptions.specs(defaultFrom: "6daysAgo") + [
        GroupingOptions.spec(help: "Grouping of time series and of date periods (--preset traffic); default day"),
        MetricsOptions.spec(help: "Metrics: short names (visits, bounceRate, goal123reaches, …) or ym:s: names; at most 20"),
        OptionSpec("dimensions", short: "d", value: "LIST", help: "Dimensions: trafficSource, searchEngine, searchPhrase, startURL, country, city, browser, os, deviceCategory, productName, productBrand, productCategoryLevel1 or ym:s: names"),
        OptionSpec("preset", value: "NAME", help: "A Metrika report template (traffic, sources_summary, geo_country, tech_platforms, purchase, top_products, basket, …)"),
        OptionSpec("filters", value: "EXPR", help: "API filter, e.g. \"ym:s:trafficSource=='organic'\""),
        OptionSpec("sort", value: "LIST", help: "Sort of dimension reports: metrics or dimensions, - for descending, e.g. -visits"),
        OptionSpec("limit", value: "N", help: "Rows of a dimension report (default 100, at most 10000000)"),
        OptionSpec("lang", value: "ru|en", help: "Language of dimension names (default en)"),
        OptionSpec("accuracy", value: "LEVEL", help: "low, medium, high, full (default) or a share in (0,1]"),
        MoneyOptions.currencySpec, MoneyOptions.attributionSpec,
    ] + HistoryOptions.specs + [
        OptionSpec("raw", help: "Print API units: seconds and percent numbers instead of mm:ss and %"),
        OptionSpec("compare", help: "Compare with the period of the same length just before: previous values and the change (+5.2%, -0.9 pp for rates)"),
        OptionSpec("unsettled-days", value: "N", help: "Recent days that may still change and are refetched (default 2: today and yesterday)"),
    ] + FormatOptions.specs(html: true) + [PageOptions.outputSpec] + DatabaseOptions.specs + TokenOptions.specs

    /// The report and its output format, validated before any request (whether stdout is a terminal
    /// is decided where the sink is made, `makeSink`).
    static func parse(_ options: ParsedOptions) throws -> (request: ReportRequest, output: FormatOptions, page: PageOptions?) {
        try options.requireNoPositionals()
        let ids = try CounterOptions.ids(options)
        let dates = try DateOptions.parse(options, defaultFrom: "6daysAgo")
        let grouping = try GroupingOptions.grouping(options)
        let metrics = try MetricsOptions.metrics(options)
        var dimensions: [MetrikaModel.Dimension] = []
        for text in options.list("dimensions") {
            guard let dimension = MetrikaModel.Dimension.named(text) else {
                throw UsageError("Unknown dimension '\(text)'. Use one of \(MetrikaModel.Dimension.known.map(\.shortName).joined(separator: ", ")), or a full ym:s: name")
            }
            dimensions.append(dimension)
        }
        guard dimensions.count <= 10 else { throw UsageError("--dimensions lists \(dimensions.count); the API allows at most 10") }
        if !dimensions.isEmpty, options.has("group"), !dimensions.contains(where: { $0.apiName == MetrikaModel.Dimension.datePeriodPlaceholder }) {
            throw UsageError("--group applies to time-series reports (and to --dimensions ym:s:datePeriod<group>); it cannot be combined with --dimensions \(dimensions.map(\.shortName).joined(separator: ","))")
        }
        let limit = try options.integer("limit", in: ReportRequest.limitRange)
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
        let history = try HistoryOptions.parse(options)
        var request = ReportRequest(
            counterIDs: ids, from: dates.from, to: dates.to, period: dates.period, grouping: grouping, metrics: metrics, dimensions: dimensions,
            preset: options.value("preset"), filters: options.value("filters"), sort: try sortParameter(options), limit: limit ?? 100,
            limitGiven: limit != nil, lang: lang, accuracy: accuracy, offline: history.offline, refresh: history.refresh,
            raw: options.flag("raw"), compare: options.flag("compare"),
            unsettledDays: try options.integer("unsettled-days", in: 1...30) ?? 2,
            currency: try MoneyOptions.currency(options), attribution: try MoneyOptions.attribution(options))
        request.groupingGiven = options.has("group")
        let page = try PageOptions.parse(options)
        let output = page == nil ? try FormatOptions.parse(options, toTerminal: false) : FormatOptions(format: .table, csv: CSVWriter())
        try refuseDimensionOptions(request, options: options)
        if request.compare && !request.usesHistory {
            throw UsageError("--compare works for time-series reports only (no --dimensions, --preset, --filters or --accuracy): they come from the history, where the previous period costs at most one request")
        }
        if request.offline && !request.usesHistory {
            throw UsageError("--offline works for time-series reports only: the history keeps daily totals, not --dimensions, --preset, --filters or sampled answers")
        }
        try MoneyOptions.refuseCurrencyWithoutMoney(request.currency, metrics: request.tableMetrics, preset: request.preset)
        if request.attribution != nil, request.dimensions.isEmpty, request.preset == nil {
            throw UsageError("--attribution decides which source a visit or purchase is credited to: it applies to reports by source (--dimensions, --preset); daily totals are the same under every model")
        }
        if !request.usesHistory, request.dimensions.isEmpty, request.preset == nil, request.grouping != .day {
            throw UsageError("--group \(request.grouping.rawValue) with --filters or --accuracy is not supported yet; use --group day")
        }
        return (request, output, page)
    }

    /// `--limit`, `--sort` and `--lang` shape dimension rows; where they would change nothing they are
    /// refused, one line each, rather than silently ignored.
    static func refuseDimensionOptions(_ request: ReportRequest, options: ParsedOptions) throws {
        if request.usesHistory, options.has("limit") {
            throw UsageError("--limit applies to dimension reports (--dimensions or --preset); a time series has one row per \(request.grouping.rawValue): choose the days with --from/--to or --period")
        }
        if request.usesHistory, options.has("sort") {
            throw UsageError("--sort applies to dimension reports (--dimensions or --preset); a time series is always in date order")
        }
        if request.dimensions.isEmpty, request.preset == nil, options.has("lang") {
            throw UsageError("--lang sets the language of dimension names (--dimensions or --preset); this report has none")
        }
    }

    /// `--sort visits,-bounceRate`: each metric or dimension by its short or full name, `-` for
    /// descending; the API's `ym:s:` names are sent. An unknown name is refused before any request.
    static func sortParameter(_ options: ParsedOptions) throws -> String? {
        guard options.has("sort") else { return nil }
        let items = options.list("sort")
        guard !items.isEmpty else { throw UsageError("--sort is empty: name a metric or dimension, e.g. -visits") }
        return try items.map { item -> String in
            let descending = item.hasPrefix("-")
            let name = descending ? String(item.dropFirst()) : item
            guard let apiName = Metric.named(name)?.apiName ?? MetrikaModel.Dimension.named(name)?.apiName else {
                throw UsageError("--sort '\(item)' names no metric or dimension: use e.g. visits, -bounceRate, trafficSource (short or ym:s: names, - for descending)")
            }
            return (descending ? "-" : "") + apiName
        }.joined(separator: ",")
    }

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        var (request, output, page) = try parse(options)
        let context = session.context
        let sink: any ReportSink
        // The page is written whole at the end: into memory for a file (renamed into place only when
        // the report succeeded), else to stdout.
        let memory = OutputWriter()
        if let page {
            try page.checkWritable()
            sink = ReportHTMLSink(output: page.path == nil ? context.stdout.writer : memory, comparisonColumns: request.compare,
                                  footer: "Made by metrika \(MetrikaVersion.current)", madeAt: CompactDate.stamp(context.now()))
            // The summary's changes: the previous period comes with the history report's --compare.
            if request.usesHistory { request.compare = true }
        } else {
            sink = makeSink(output.format, csv: output.csv, context: context)
        }
        if request.usesHistory {
            let loader = try session.historyLoader(offline: request.offline, unsettledDays: request.unsettledDays)
            try await HistoryReport(request: request, loader: loader, activity: context).run(into: sink)
        } else {
            // Rows so far on the progress line; not when CSV or JSON streams to that same terminal.
            let showsProgress = context.progressEnabled && (output.format == .table || !context.stdoutIsTerminal)
            try await DirectReport.run(request, client: try session.client(), activity: context, into: sink, showsProgress: showsProgress)
        }
        if let path = page?.path {
            try AtomicFile.write(Data(memory.bytes), to: path)
        }
        return ExitCode.ok
    }

    /// The sink of a format; all of them format into stdout's byte writer.
    static func makeSink(_ format: OutputFormat, csv: CSVWriter, context: CLIContext) -> any ReportSink {
        switch format {
        case .table:
            // A --compare change in green (good news) or red (bad news: a rising bounce rate), for a
            // person at a colour terminal only.
            let colour = context.stdoutIsTerminal && (context.environment["NO_COLOR"] ?? "").isEmpty && context.environment["TERM"] != "dumb"
            let style = TerminalStyle(enabled: colour)
            var colourChange: (@Sendable (String, GoodDirection) -> String)?
            if colour { colourChange = { @Sendable text, good in style.change(text, good: good) } }
            return ReportTableSink(output: context.stdout.writer, maxWidth: context.terminalWidth, colourChange: colourChange)
        case .csv:
            var writer = csv
            writer.terminal = context.stdoutIsTerminal
            return ReportCSVSink(output: context.stdout.writer, writer: writer)
        case .json: return ReportJSONSink(output: context.stdout.writer)
        }
    }
}
