import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaSystem

/// `metrika chart`: daily (or weekly, monthly) lines of one or more counters as an SVG or PNG file,
/// drawn from the history database (fetching only what it lacks, like `report`).
enum ChartCommand: Command {
    static let name = "chart"
    static let summary = "Draw counters' statistics as an SVG or PNG line chart"
    static let usage = "chart --counter ID[,ID…] [--metrics LIST] [--from DATE] [--to DATE | --period NAME] [--group day|week|month] --output FILE.svg|FILE.png [--format svg|png] [options]"
    static let discussion = """
    Default metric: visits; default range: 29daysAgo to today. Metrics with the same unit share an axis;
    different units get panels stacked one above the other. Several counters: one line each, with a
    legend; lines more than 10× apart get panels (and axes) of their own. Missing days are gaps (never
    zeros); today's still-changing value is drawn dotted. By week or month, the current one is dotted
    and labelled "so far", and a week or month cut by the range is left out (with a note).
    Dates as in `metrika report` (YYYY-MM-DD, NdaysAgo, NweeksAgo, NmonthsAgo…), or --period NAME
    (thisWeek, lastMonth, last30days…) instead of --from/--to. Dates are not before 2008-01-01; a line starts no earlier than its
    counter's creation day.

    FILE.png (or --format png) draws the same chart as a PNG at twice its size (1600×800 pixels by
    default, sharp on high-density screens) with librsvg's rsvg-convert, which must be installed
    (Debian/Ubuntu: apt-get install librsvg2-bin; macOS: brew install librsvg); without it the command
    ends with exit code 69. METRIKA_RSVG_CONVERT names the program when it is not on PATH.

    The file is written atomically (a temporary file renamed over it), so a cron job that mails the
    chart never sends half of one. `--output -` writes the chart to standard output.
    An output path that cannot be created ends with exit code 73.

    Examples:
      metrika chart --counter 1001 --output visits.svg
      metrika chart --counter 1001 --output visits.png
      metrika chart --counter 1001,1002 --metrics visits,bounceRate --from 89daysAgo --output q.svg
      metrika chart --counter 1001 --from 2016-01-01 --group month --output - > decade.svg
    """
    static let options: [OptionSpec] = [
        OptionSpec("counter", short: "c", value: "ID[,ID…]", help: "Counter id(s); repeatable"),
        OptionSpec("metrics", short: "m", value: "LIST", help: "Metrics (default visits): visits, pageviews, users, bounceRate, …"),
        OptionSpec("from", value: "DATE", help: "First day (default 29daysAgo)"),
        OptionSpec("to", value: "DATE", help: "Last day (default today)"),
        OptionSpec("period", value: "NAME", help: "A named period instead of --from/--to: today, yesterday, thisWeek, lastWeek, thisMonth, lastMonth, thisYear, lastYear, lastNdays"),
        OptionSpec("group", value: "day|week|month", help: "One point per day (default), week or month"),
        OptionSpec("output", short: "o", value: "FILE.svg|FILE.png", help: "Where to write the chart; - for standard output"),
        OptionSpec("format", value: "svg|png", help: "Image format (default: by the file's extension, else svg)"),
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
        let (from, to, _) = try NamedPeriod.dates(options, defaultFrom: "29daysAgo")
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
            throw UsageError("Missing --output FILE.svg or FILE.png (or --output - for standard output)")
        }
        let format = try imageFormat(options, output: output)
        if format == .png, output == "-", context.stdoutIsTerminal {
            throw UsageError("Not writing PNG bytes to a terminal: use --output FILE.png, or redirect standard output")
        }
        let session = Session(context: context, options: options)
        let store = try HistoryStore(path: ReportCommand.databasePath(session))
        let loader = HistoryLoader(store: store, client: request.offline ? nil : try session.client(), now: context.now, unsettledDays: 2)
        var data: [CounterSeries] = []
        for id in request.counterIDs {
            let counter = try await loader.counter(id: id)
            let range = try MetrikaCLI.resolveRange(from: request.from, to: request.to, counter: counter, now: context.now(), note: context.note)
            data.append(try await loadSeries(loader: loader, counter: counter, range: range, metrics: request.metrics,
                                             grouping: request.grouping, refresh: request.refresh))
        }
        for item in data where !item.leftOut.isEmpty {
            context.note("Note: counter \(item.counter.id): \(leftOutNote(item.leftOut, grouping: request.grouping))")
        }
        for item in data where !item.missingDays.isEmpty {
            context.note("Note: counter \(item.counter.id) has no history for \(item.missingDays.count) day(s) of the range; they are gaps in the chart\(request.offline ? " (run without --offline to fetch them)" : "").")
        }
        let chart = makeChart(data, grouping: request.grouping, title: request.title, width: request.width, height: request.height)
        let svg = chart.render()
        let bytes = format == .png ? try context.rasterizer.png(fromSVG: Data(svg.utf8), scale: pngScale) : Data(svg.utf8)
        if output == "-" {
            try context.stdout.writer.write(contentsOf: bytes)
        } else {
            try AtomicFile.write(bytes, to: output)
        }
        return ExitCode.ok
    }

    // MARK: - Image format

    /// The file formats a chart is written in.
    enum ImageFormat: String {
        case svg, png
    }

    /// PNG pixels per SVG pixel: 2× keeps lines and text sharp on high-density screens (800 → 1600 px).
    static let pngScale = 2.0

    /// `--format` when given, else the output's extension (`.png`, `.svg`), else SVG. A contradiction
    /// (`--format svg` into `x.png`) or an image extension metrika does not write is a usage error,
    /// so a file named `.png` never quietly holds SVG.
    static func imageFormat(_ options: ParsedOptions, output: String) throws -> ImageFormat {
        let name = output == "-" ? "" : (output as NSString).lastPathComponent
        let dot = name.lastIndex(of: ".").map { name.index(after: $0) }
        let ext = dot.map { String(name[$0...]).lowercased() } ?? ""
        let byExtension = ImageFormat(rawValue: ext)
        if let text = options.value("format") {
            guard let chosen = ImageFormat(rawValue: text.lowercased()) else {
                throw UsageError("--format must be svg or png, not '\(text)'")
            }
            if let byExtension, byExtension != chosen {
                throw UsageError("--format \(chosen.rawValue) contradicts the file name \(name): name it .\(chosen.rawValue) or drop --format")
            }
            return chosen
        }
        if let byExtension { return byExtension }
        if ["jpg", "jpeg", "gif", "webp", "pdf", "bmp", "tif", "tiff", "avif"].contains(ext) {
            throw UsageError("metrika draws charts as SVG or PNG, not .\(ext): name the file .svg or .png")
        }
        return .svg
    }

    // MARK: - Shared with `mail`

    /// One counter's lines over its range.
    struct CounterSeries {
        var counter: Counter
        var range: DateRange
        var series: [Series]
        var missingDays: [Day]
        /// Weeks or months cut short by the range (not the current one): left out of the lines.
        var leftOut: [DateRange] = []
    }

    /// Loads the history and turns it into one series per metric: a point per period (its first day),
    /// nil where a day of the period is missing, the period holding today marked incomplete.
    /// A week or month cut by the range (`--from` on a Wednesday) is left out: its sum over fewer days
    /// would read as a drop. The current one stays, drawn dotted and labelled "so far".
    static func loadSeries(loader: HistoryLoader, counter: Counter, range: DateRange, metrics: [Metric], grouping: Grouping, refresh: Bool) async throws -> CounterSeries {
        let loaded = try await loader.load(counter: counter, range: range, metrics: metrics, grouping: grouping, refresh: refresh, rangeTotals: false)
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
        return CounterSeries(counter: counter, range: range, series: series, missingDays: loaded.missingDays, leftOut: leftOut)
    }

    /// Whether a period is a whole day, Monday–Sunday week or calendar month.
    static func isFull(_ period: DateRange, grouping: Grouping) -> Bool {
        switch grouping {
        case .day: return true
        case .week: return period.from.weekday == 1 && period.to == period.from.adding(days: 6)
        case .month: return period.from == period.from.startOfMonth && period.to == period.from.endOfMonth
        }
    }

    /// `Left out: the partial week of 2026-11-04 (5 of 7 days).`
    static func leftOutNote(_ periods: [DateRange], grouping: Grouping) -> String {
        let unit = grouping == .month ? "month" : "week"
        let parts = periods.map { period in
            let full = grouping == .month ? DateRange(from: period.from.startOfMonth, to: period.from.endOfMonth)!.dayCount : 7
            return "\(period.from.iso) (\(period.dayCount) of \(full) days)"
        }
        return "Left out: the partial \(unit)\(periods.count == 1 ? "" : "s") of " + parts.joined(separator: ", ") + "."
    }

    /// The chart of several counters' series: the period spans all their ranges (time zones differ).
    static func makeChart(_ data: [CounterSeries], grouping: Grouping, title: String?, width: Int, height: Int?) -> SVGLineChart {
        let from = data.map(\.range.from).min()!
        let to = data.map(\.range.to).max()!
        let period = DateRange(from: from, to: to)!
        let series = data.flatMap(\.series)
        let defaultTitle = data.count == 1
            ? (data[0].counter.name.trimmingCharacters(in: .whitespaces).isEmpty ? data[0].counter.displayName : data[0].counter.name + (data[0].counter.site.isEmpty ? "" : " — " + data[0].counter.site))
            : data.map(\.counter.displayName).joined(separator: ", ")
        let by = grouping == .day ? "daily" : grouping == .week ? "weekly" : "monthly"
        let subtitle = period.from.iso + " – " + period.to.iso + ", " + by
        var chart = SVGLineChart(series: series, period: period, title: title ?? defaultTitle, subtitle: subtitle, width: width, height: 400)
        // Each extra panel (another unit, or a line more than 10× smaller) needs room of its own.
        chart.height = max(height ?? (400 + 160 * (chart.panelCount - 1)), SVGLineChart.minimumHeight)
        chart.connectsAcrossDays = grouping != .day
        chart.incompleteLabel = grouping == .day ? "today (incomplete)" : grouping == .week ? "this week so far" : "this month so far"
        let leftOut = data.flatMap(\.leftOut)
        if !leftOut.isEmpty {
            var unique: [DateRange] = []
            for period in leftOut where !unique.contains(period) { unique.append(period) }
            chart.footnote = leftOutNote(unique, grouping: grouping)
        }
        return chart
    }
}
