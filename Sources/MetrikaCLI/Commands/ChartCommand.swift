import Foundation
import MetrikaKit

/// `metrika chart`: daily (or weekly, monthly) lines of one or more counters as an SVG file, drawn
/// from the history database (fetching only what it lacks, like `report`).
enum ChartCommand: Command {
    static let name = "chart"
    static let summary = "Draw counters' statistics as an SVG line chart"
    static let usage = "chart --counter ID[,ID…] [--metrics LIST] [--from DATE] [--to DATE] [--group day|week|month] --output FILE.svg [options]"
    static let discussion = """
    Default metric: visits; default range: 29daysAgo to today. Metrics with the same unit share an axis;
    different units get panels stacked one above the other. Several counters: one line each, with a
    legend. Missing days are gaps (never zeros); today's still-changing value is drawn dotted.

    The file is written atomically (a temporary file renamed over it), so a cron job that mails the
    chart never sends half of one. `--output -` writes the SVG to standard output.
    An output path that cannot be created ends with exit code 73.

    Examples:
      metrika chart --counter 1001 --output visits.svg
      metrika chart --counter 1001,1002 --metrics visits,bounceRate --from 89daysAgo --output q.svg
      metrika chart --counter 1001 --from 2016-01-01 --group month --output - > decade.svg
    """
    static let options: [OptionSpec] = [
        OptionSpec("counter", short: "c", value: "ID[,ID…]", help: "Counter id(s); repeatable"),
        OptionSpec("metrics", short: "m", value: "LIST", help: "Metrics (default visits): visits, pageviews, users, bounceRate, …"),
        OptionSpec("from", value: "DATE", help: "First day (default 29daysAgo)"),
        OptionSpec("to", value: "DATE", help: "Last day (default today)"),
        OptionSpec("group", value: "day|week|month", help: "One point per day (default), week or month"),
        OptionSpec("output", short: "o", value: "FILE.svg", help: "Where to write the chart; - for standard output"),
        OptionSpec("width", value: "PX", help: "Width in pixels (default 800)"),
        OptionSpec("height", value: "PX", help: "Height in pixels (default 400, plus 160 per extra panel)"),
        OptionSpec("title", value: "TEXT", help: "Title (default: the counters' names and sites)"),
        OptionSpec("offline", help: "Use the history database only: no network"),
        OptionSpec("refresh", help: "Refetch the whole range, ignoring the history"),
    ] + CommonOptions.database + CommonOptions.token

    /// What to chart, validated before any request.
    struct Request {
        var counterIDs: [Int]
        var metrics: [Metric]
        var from: DateExpression
        var to: DateExpression
        var grouping: Grouping
        var width: Int
        var height: Int?
        var title: String?
        var offline: Bool
        var refresh: Bool
    }

    static func parse(_ options: ParsedOptions) throws -> Request {
        guard options.positionals.isEmpty else { throw UsageError("Unexpected argument '\(options.positionals[0])'") }
        let ids = try ReportCommand.parseCounterIDs(options)
        let metrics = try ReportCommand.parseMetrics(options) ?? [Metric.visits]
        let from = try DateExpression(parsing: options.value("from") ?? "29daysAgo", option: "from")
        let to = try DateExpression(parsing: options.value("to") ?? "today", option: "to")
        if case .absolute(let start) = from, case .absolute(let end) = to, start > end {
            throw UsageError("--from \(start.iso) is after --to \(end.iso): the range is reversed")
        }
        var grouping = Grouping.day
        if let text = options.value("group") {
            guard let value = Grouping(rawValue: text.lowercased()) else { throw UsageError("--group must be day, week or month, not '\(text)'") }
            grouping = value
        }
        if options.flag("offline") && options.flag("refresh") {
            throw UsageError("--offline and --refresh contradict each other: choose one")
        }
        return Request(
            counterIDs: ids, metrics: metrics, from: from, to: to, grouping: grouping,
            width: try options.integer("width", in: SVGLineChart.minimumWidth...10_000) ?? 800,
            height: try options.integer("height", in: SVGLineChart.minimumHeight...10_000),
            title: options.value("title"), offline: options.flag("offline"), refresh: options.flag("refresh"))
    }

    static func run(_ options: ParsedOptions, context: CLIContext) async throws -> Int32 {
        let request = try parse(options)
        guard let output = options.value("output") else {
            throw UsageError("Missing --output FILE.svg (or --output - for standard output)")
        }
        let session = Session(context: context, options: options)
        let store = try HistoryStore(path: ReportCommand.databasePath(session))
        let loader = HistoryLoader(store: store, client: request.offline ? nil : try session.client(), now: context.now, unsettledDays: 2)
        var data: [CounterSeries] = []
        for id in request.counterIDs {
            let counter = try await loader.counter(id: id)
            let range = try MetrikaCLI.resolveRange(from: request.from, to: request.to, counter: counter, now: context.now())
            data.append(try await loadSeries(loader: loader, counter: counter, range: range, metrics: request.metrics,
                                             grouping: request.grouping, refresh: request.refresh))
        }
        for item in data where !item.missingDays.isEmpty {
            context.note("Note: counter \(item.counter.id) has no history for \(item.missingDays.count) day(s) of the range; they are gaps in the chart\(request.offline ? " (run without --offline to fetch them)" : "").")
        }
        let chart = makeChart(data, grouping: request.grouping, title: request.title, width: request.width, height: request.height)
        let svg = chart.render()
        if output == "-" {
            try context.stdout.writer.write(svg)
        } else {
            try AtomicFile.write(Data(svg.utf8), to: output)
        }
        return ExitCode.ok
    }

    // MARK: - Shared with `mail`

    /// One counter's lines over its range.
    struct CounterSeries {
        var counter: Counter
        var range: DateRange
        var series: [Series]
        var missingDays: [Day]
    }

    /// Loads the history and turns it into one series per metric: a point per period (its first day),
    /// nil where a day of the period is missing, the period holding today marked incomplete.
    static func loadSeries(loader: HistoryLoader, counter: Counter, range: DateRange, metrics: [Metric], grouping: Grouping, refresh: Bool) async throws -> CounterSeries {
        let loaded = try await loader.load(counter: counter, range: range, metrics: metrics, grouping: grouping, refresh: refresh, rangeTotals: false)
        let periods = loaded.periods
        let rows = HistoryLoader.rows(from: loaded, metrics: metrics).rows
        let incompleteFrom = zip(periods, rows).first { $0.1.isIncomplete }?.0.from
        let series = metrics.enumerated().map { index, metric in
            let points: [(day: Day, value: Double?)] = zip(periods, rows).map { period, row in
                (period.from, index < row.values.count ? row.values[index].value : nil)
            }
            return Series(counter: counter, metric: metric, points: points, incompleteFrom: incompleteFrom)
        }
        return CounterSeries(counter: counter, range: range, series: series, missingDays: loaded.missingDays)
    }

    /// The chart of several counters' series: the period spans all their ranges (time zones differ).
    static func makeChart(_ data: [CounterSeries], grouping: Grouping, title: String?, width: Int, height: Int?) -> SVGLineChart {
        let from = data.map(\.range.from).min()!
        let to = data.map(\.range.to).max()!
        let period = DateRange(from: from, to: to)!
        let series = data.flatMap(\.series)
        let panels = Set(series.map(\.metric.unit)).count
        let defaultTitle = data.count == 1
            ? data[0].counter.name + (data[0].counter.site.isEmpty ? "" : " — " + data[0].counter.site)
            : data.map(\.counter.name).joined(separator: ", ")
        let by = grouping == .day ? "daily" : grouping == .week ? "weekly" : "monthly"
        let subtitle = period.from.iso + " – " + period.to.iso + ", " + by
        var chart = SVGLineChart(series: series, period: period, title: title ?? defaultTitle, subtitle: subtitle,
                                 width: width, height: height ?? (400 + 160 * max(0, panels - 1)))
        chart.connectsAcrossDays = grouping != .day
        return chart
    }
}
