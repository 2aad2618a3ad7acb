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
    static let synopses: [[UsageTerm]] = [[
        .required(.counter), .optional(.from), .optional([.oneOf([[.required(.to)], [.required(.period)]])]), .optional(.group), .optional(.metrics),
        .optional(.dimensions), .optional(.format), .optional(.output), .moreOptions,
    ]]
    static let options: [OptionSpec] = [CounterOptions.spec()] + DateOptions.specs(defaultFrom: "6daysAgo") + [
        GroupingOptions.spec(help: "Grouping of time series and of date periods (--preset traffic); default day"),
        MetricsOptions.spec(help: "Metrics: short names (visits, bounceRate, goal123reaches, …) or ym:s: names; at most 20"),
        Option.dimensions.spec, Option.preset.spec, Option.filters.spec, Option.sort.spec, Option.limit.spec, Option.lang.spec, Option.accuracy.spec,
        MoneyOptions.currencySpec, MoneyOptions.attributionSpec,
    ] + HistoryOptions.specs + [
        Option.raw.spec, Option.compare.spec, Option.unsettledDays.spec,
    ] + FormatOptions.specs(html: true) + [PageOptions.outputSpec] + DatabaseOptions.specs + TokenOptions.specs

    /// The report and its output format, validated before any request (whether stdout is a terminal
    /// is decided where the sink is made, `makeSink`): the options are read here, the combinations
    /// are judged by `ReportRequest`'s initializer.
    static func parse(_ options: ParsedOptions) throws -> (request: ReportRequest, output: FormatOptions, page: PageOptions?) {
        try options.requireNoPositionals()
        let ids = try CounterOptions.ids(options)
        let dates = try DateOptions.parse(options, defaultFrom: "6daysAgo")
        let grouping = try options[.group]
        let metrics = try MetricsOptions.metrics(options)
        let dimensions = try options[.dimensions]
        let limit = try options[.limit]
        let lang = try options[.lang]?.rawValue
        let accuracy = try options[.accuracy]?.apiValue ?? "full"
        let history = try HistoryOptions.parse(options)
        let sort = try options[.sort]
        let unsettledDays = try options[.unsettledDays] ?? 2
        let currency = try MoneyOptions.currency(options)
        let attribution = try MoneyOptions.attribution(options)
        let page = try PageOptions.parse(options)
        let output = page == nil ? try FormatOptions.parse(options, toTerminal: false) : FormatOptions(format: .table, csv: CSVWriter())
        let request = try ReportRequest(
            counterIDs: ids, from: dates.from, to: dates.to, period: dates.period, grouping: grouping, metrics: metrics, dimensions: dimensions,
            preset: options[.preset], filters: options[.filters], sort: sort.map { $0.joined(separator: ",") }, limit: limit, lang: lang,
            accuracy: accuracy, offline: history.offline, refresh: history.refresh, raw: options[.raw], compare: options[.compare],
            unsettledDays: unsettledDays, currency: currency, attribution: attribution)
        return (request, output, page)
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
            if request.usesHistory { request = request.withComparison() }
        } else {
            sink = makeSink(output.format, csv: output.csv, context: context)
        }
        if request.usesHistory {
            let loader = try await session.historyLoader(offline: request.offline, unsettledDays: request.unsettledDays, readOnly: request.offline)
            try await HistoryReport(request: request, loader: loader, activity: context).run(into: sink)
        } else {
            // Rows so far on the progress line; not when CSV or JSON streams to that same terminal.
            let showsProgress = context.progressEnabled && (output.format == .table || !context.stdoutIsTerminal)
            try await DirectReport.run(request, client: try await session.client(), activity: context, into: sink, showsProgress: showsProgress)
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

// MARK: - Options of its own

extension Option where Value == [MetrikaModel.Dimension] {
    /// `--dimensions LIST`: short or `ym:s:` names.
    static var dimensions: Option<[MetrikaModel.Dimension]> {
        .list(
            "dimensions", short: "d", value: "LIST",
            help: "Dimensions: trafficSource, searchEngine, searchPhrase, startURL, country, city, browser, os, deviceCategory, productName, productBrand, productCategoryLevel1 or ym:s: names"
        ) { text in
            try ReportTerms.dimension(text)
        }
    }
}

extension Option where Value == [String]? {
    /// `--sort visits,-bounceRate`: each metric or dimension by its short or full name, `-` for
    /// descending; the API's `ym:s:` names, nil when not given. An empty list or an unknown name is
    /// refused before any request.
    static var sort: Option<[String]?> {
        Option(OptionSpec("sort", value: "LIST", help: "Sort of dimension reports: metrics or dimensions, - for descending, e.g. -visits")) { given in
            guard given != nil else { return nil }
            return try ReportTerms.sort(ParsedOptions.split(given))
        }
    }
}

extension Option where Value == String? {
    /// `--preset NAME`: a Metrika report template.
    static var preset: Option<String?> {
        .text("preset", value: "NAME", help: "A Metrika report template (traffic, sources_summary, geo_country, tech_platforms, purchase, top_products, basket, …)")
    }
    /// `--filters EXPR`: the API's filter, as written.
    static var filters: Option<String?> { .text("filters", value: "EXPR", help: "API filter, e.g. \"ym:s:trafficSource=='organic'\"") }
}

/// `--lang`: the language of dimension names, as the API takes it.
enum DimensionLanguage: String, Sendable, CaseIterable {
    case ru, en
}

extension Option where Value == DimensionLanguage? {
    /// `--lang ru|en`, in any case.
    static var lang: Option<DimensionLanguage?> {
        .choice("lang", help: "Language of dimension names (default en)")
    }
}

/// `--accuracy`: a level (`low` … `full`) or a share of the visits in (0, 1], as the API takes it.
struct Accuracy: Sendable {
    var apiValue: String
}

extension Option where Value == Accuracy? {
    /// `--accuracy low|medium|high|full` (lower-cased) or a share in (0, 1] (as written).
    static var accuracy: Option<Accuracy?> {
        .value("accuracy", value: "LEVEL", help: "low, medium, high, full (default) or a share in (0,1]") { text in
            let lower = text.lowercased()
            if ["low", "medium", "high", "full"].contains(lower) { return Accuracy(apiValue: lower) }
            if let share = Double(text), share > 0, share <= 1 { return Accuracy(apiValue: text) }
            throw UsageError("--accuracy must be low, medium, high, full or a number in (0, 1], not '\(text)'")
        }
    }
}

extension Option where Value == Int? {
    /// `--limit N`: rows of a dimension report.
    static var limit: Option<Int?> {
        .integer("limit", help: "Rows of a dimension report (default 100, at most 10000000)", in: ReportRequest.limitRange)
    }
    /// `--unsettled-days N`: recent days refetched (report, sync).
    static var unsettledDays: Option<Int?> {
        .integer("unsettled-days", help: "Recent days that may still change and are refetched (default 2: today and yesterday)", in: 1...30)
    }
}

extension Option where Value == Bool {
    /// `--raw`: API units.
    static var raw: Option<Bool> { .flag("raw", help: "Print API units: seconds and percent numbers instead of mm:ss and %") }
    /// `--compare`: the period just before, beside each value.
    static var compare: Option<Bool> {
        .flag("compare", help: "Compare with the period of the same length just before: previous values and the change (+5.2%, -0.9 pp for rates)")
    }
}
