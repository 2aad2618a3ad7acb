import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem
import MetrikaUseCases

/// `metrika report`: a counter's statistics by day, week or month (from the history database,
/// fetching only what is missing or still changing), or by any dimensions (straight from the API).
enum ReportCommand: Command {
    /// Where a narrow table's left-out "before" values are kept, in the CLI's words.
    static let beforeElsewhere = "--csv and --json keep them"
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
        --compare: every value beside the period of the same length just before and the change, +5.2%
        for counts, durations and page depth, -0.9 pp for rates; each day against the day N days
        earlier; previous days before the counter existed are — (never 0). Users of a week or month row
        have no previous value; the Total row's are the API's. With no dates it compares the last 7
        whole days (7daysAgo to yesterday); a period with today in it is refused (today's hours so far
        against a whole day: see metrika live). With --dimensions each row is set against the same row
        of the previous period (one request): new or gone when it is in one period only. On a colour
        terminal a change is green when it is good news and red when bad (a rising bounce rate is red).
        --format html: one self-contained page (no script, no network resource) that reads on a phone
        and on a desktop: per counter a summary of each metric's total and its change against the
        previous period (time series: loaded like --compare, at most one request more), a chart per
        metric (dimension reports: bars of the top 10 rows) and the table; --compare adds the previous
        values and changes to the table too. On stdout, or --output FILE.html (written atomically: a
        failed run leaves the old page) — for cron, a page a team can open.
        --counter all: the portfolio — one row per counter the token reads with the period's visits,
        pageviews, users, bounce rate, page depth and time on site, sorted by visits (--limit N: the
        first N), and a Total that sums the counts, weights bounce rate and time on site by visits,
        takes page depth as pageviews / visits and never sums users; read through the history (one
        request per counter the first time); --compare adds each change and names the counter whose
        visits fell most.

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
          metrika report --counter all --period lastMonth --compare
        """
    static let synopses: [[UsageTerm]] = [
        [
            .required(.counter), .optional(.from), .optional([.oneOf([[.required(.to)], [.required(.period)]])]),
            .optional(.group), .optional(.metrics),
            .optional(ReportFields.dimensions), .optional(.format), .optional(.output), .moreOptions
        ]
    ]
    /// The report's parameters are declared once (`ReportFields`): their options come from there,
    /// beside the command's own (output, database, token).
    /// (The counter and the dates keep the CLI's wording of them, shared with chart and mail.)
    static let options: [OptionSpec] =
        [
            CounterOptions.spec(
                value: "ID[,ID…]|all",
                help: "Counter id(s); repeatable; all: every counter, one row each (the portfolio)")
        ] + DateOptions.specs(defaultFrom: "6daysAgo")
        + ReportFields.declarations.filter { ![Parameter.counter, .from, .to, .period].contains($0.parameter) }.map(
            \.optionSpec)
        + FormatOptions.specs(html: true) + [PageOptions.outputSpec] + DatabaseOptions.specs + TokenOptions.specs

    /// The declared parameters read as declared: all but the counters and metrics, which the CLI
    /// reads with its own messages (a default counter's source, an empty `--metrics`).
    static let declaredParameters = ReportFields.declarations.filter {
        ![Parameter.counter, .metrics].contains($0.parameter)
    }

    /// The report and its output format, validated before any request (whether stdout is a terminal
    /// is decided where the sink is made, `makeSink`): the options are read here, the combinations
    /// are judged by `ReportRequest`'s initializer.
    static func parse(_ options: ParsedOptions) throws -> (
        request: ReportRequest, output: FormatOptions, page: PageOptions?
    ) {
        try options.requireNoPositionals()
        var fields = ReportFields()
        let counterWords = options[.counter]
        if counterWords.contains(where: { $0.lowercased() == ReportFields.allCountersWord }) {
            try cliWorded { try ReportFields.counter.read(&fields, counterWords) }
        } else {
            fields.counterIDs = try CounterOptions.ids(options)
        }
        fields.metrics = try MetricsOptions.metrics(options)
        _ = try HistoryOptions.parse(options)
        try options.read(declaredParameters, into: &fields)
        let page = try PageOptions.parse(options)
        let output =
            page == nil
            ? try FormatOptions.parse(options, toTerminal: false) : FormatOptions(format: .table, csv: CSVWriter())
        let request = try cliWorded { try ReportRequest(fields) }
        if request.allCounters, page != nil {
            throw UsageError(
                "--format html is not made for --counter all: use the table, --csv or --json (or one page per counter)")
        }
        return (request, output, page)
    }

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        var (request, output, page) = try parse(options)
        let context = session.context
        if request.allCounters { return try await portfolio(request, output: output, session: session) }
        let sink: any ReportSink
        // The page is written whole at the end: into memory for a file (renamed into place only when
        // the report succeeded), else to stdout.
        let memory = OutputWriter()
        if let page {
            try page.checkWritable()
            sink = ReportHTMLSink(
                output: page.path == nil ? context.stdout.writer : memory, comparisonColumns: request.compare,
                footer: "Made by metrika \(MetrikaVersion.current)", madeAt: CompactDate.stamp(context.now()),
                naming: .cli)
            // The summary's changes: the previous period comes with the history report's --compare.
            if request.usesHistory { request = request.withComparison() }
        } else {
            sink = makeSink(output.format, csv: output.csv, context: context)
        }
        if request.usesHistory {
            let loader = try await session.services.historyLoader(
                offline: request.offline, unsettledDays: request.unsettledDays, readOnly: request.offline)
            try await HistoryReport(request: request, loader: loader, activity: context).run(into: sink)
        } else {
            // Rows so far on the progress line; not when CSV or JSON streams to that same terminal.
            let showsProgress = context.progressEnabled && (output.format == .table || !context.stdoutIsTerminal)
            try await DirectReport.run(
                request, client: try await session.services.client(), activity: context, into: sink,
                showsProgress: showsProgress)
        }
        if let path = page?.path {
            try AtomicFile.write(Data(memory.bytes), to: path)
        }
        return ExitCode.ok
    }

    /// `--counter all`: one row per counter with the period's totals, sorted by visits (the first
    /// `--limit` of them), and the Total over all of them.
    static func portfolio(_ request: ReportRequest, output: FormatOptions, session: Session) async throws -> Int32 {
        let context = session.context
        let loader = try await session.services.historyLoader(
            offline: request.offline, unsettledDays: request.unsettledDays, readOnly: request.offline)
        let report = try await Portfolio(request: request, loader: loader, activity: context).run()
        let shown = 0..<min(report.rows.count, request.requestedLimit ?? report.rows.count)
        let rows = report.rows[shown]
        let out = context.stdout
        switch output.format {
        case .table:
            out.write(PortfolioListing.table(report, rows: rows).render(maxWidth: context.terminalWidth))
            out.write(PortfolioListing.footer(report, shown: shown).map { $0 + "\n" }.joined())
        case .csv:
            var csv = output.csv
            csv.terminal = context.stdoutIsTerminal
            try csv.write(PortfolioListing.csvHeader(compare: request.compare), to: out.writer)
            for row in rows { try csv.write(PortfolioListing.csvRow(row, raw: request.raw), to: out.writer) }
            try csv.write(PortfolioListing.csvTotal(report, raw: request.raw), to: out.writer)
            if let fell = report.fellMostLine { context.note(fell) }
        case .json:
            out.write(PortfolioListing.document(report, rows: rows).serialized(pretty: true) + "\n")
        }
        return ExitCode.ok
    }

    /// The sink of a format; all of them format into stdout's byte writer.
    static func makeSink(_ format: OutputFormat, csv: CSVWriter, context: CLIContext) -> any ReportSink {
        switch format {
        case .table:
            // A --compare change in green (good news) or red (bad news: a rising bounce rate), for a
            // person at a colour terminal only.
            let colour =
                context.stdoutIsTerminal && (context.environment["NO_COLOR"] ?? "").isEmpty
                && context.environment["TERM"] != "dumb"
            let style = TerminalStyle(enabled: colour)
            var colourChange: (@Sendable (String, GoodDirection) -> String)?
            if colour { colourChange = { @Sendable text, good in style.change(text, good: good) } }
            return ReportTableSink(
                output: context.stdout.writer, maxWidth: context.terminalWidth, colourChange: colourChange,
                beforeElsewhere: Self.beforeElsewhere)
        case .csv:
            var writer = csv
            writer.terminal = context.stdoutIsTerminal
            return ReportCSVSink(output: context.stdout.writer, writer: writer)
        case .json: return ReportJSONSink(output: context.stdout.writer)
        }
    }
}
