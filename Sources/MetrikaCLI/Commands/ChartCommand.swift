import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem
import MetrikaUseCases

/// `metrika chart`: daily (or weekly, monthly) lines of one or more counters as an SVG or PNG file,
/// drawn from the history database (fetching only what it lacks, like `report`).
enum ChartCommand: Command {
    static let name = "chart"
    static let summary = "Draw counters' statistics as an SVG or PNG line chart"
    static let synopses: [[UsageTerm]] = [
        [
            .required(.counter), .optional(.metrics), .optional(.from),
            .optional([.oneOf([[.required(.to)], [.required(.period)]])]), .optional(.group),
            .required(.output), .optional(.imageFormat), .moreOptions
        ]
    ]
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

        Days the counter's owner annotated in Metrika (chart annotations) are marked with a dashed line
        and their title; one more request per counter, none when read within the hour (they are kept in
        the history database; --offline shows the kept ones).

        The file is written atomically (a temporary file renamed over it), so a cron job that mails the
        chart never sends half of one. `--output -` writes the chart to standard output. A name
        ending neither .svg nor .png (c.txt) is refused (exit 64) unless --format says which; a name
        without an extension gets SVG. An output path that cannot be created ends with exit code 73.

        Examples:
          metrika chart --counter 1001 --output visits.svg
          metrika chart --counter 1001 --output visits.png
          metrika chart --counter 1001,1002 --metrics visits,bounceRate --from 89daysAgo --output q.svg
          metrika chart --counter 1001 --from 2016-01-01 --group month --output - > decade.svg
        """
    static let options: [OptionSpec] =
        [
            CounterOptions.spec(),
            MetricsOptions.spec(help: "Metrics (default visits): visits, pageviews, users, bounceRate, …")
        ] + DateOptions.specs(defaultFrom: "29daysAgo") + [
            GroupingOptions.spec(help: "One point per day (default), week or month"),
            Option.output.described("Where to write the chart; - for standard output", value: "FILE.svg|FILE.png").spec,
            Option.imageFormat.spec, Option.width.spec, Option.height.spec, Option.title.spec,
            MoneyOptions.currencySpec
        ] + HistoryOptions.specs + DatabaseOptions.specs + TokenOptions.specs

    /// What to chart and where, validated before any request.
    struct Request {
        var counterIDs: [Int]
        var metrics: [Metric]
        var dates: DateOptions
        var grouping: Grouping
        var width: Int
        var height: Int?
        var title: String?
        var history: HistoryOptions
        var currency: Currency?
        /// `--output`: a file, or `-` for standard output.
        var output: String
        var format: ImageFormat
    }

    static func parse(_ options: ParsedOptions) throws -> Request {
        try options.requireNoPositionals()
        let ids = try CounterOptions.ids(options)
        let metrics = DefaultMetrics.chart(chosen: try MetricsOptions.metrics(options))
        let dates = try DateOptions.parse(options, defaultFrom: "29daysAgo")
        let grouping = try GroupingOptions.grouping(options)
        let history = try HistoryOptions.parse(options)
        let currency = try MoneyOptions.currency(options)
        try MoneyOptions.refuseCurrencyWithoutMoney(currency, metrics: metrics)
        let width = try options[.width] ?? 800
        let height = try options[.height]
        guard let output = options[.output] else {
            throw UsageError("Missing --output FILE.svg or FILE.png (or --output - for standard output)")
        }
        // As report says it (exit 64), not as a file that cannot be created (73).
        if output.isEmpty { throw UsageError("--output needs a file name (or - for standard output)") }
        return Request(
            counterIDs: ids, metrics: metrics, dates: dates, grouping: grouping, width: width, height: height,
            title: options[.title], history: history, currency: currency, output: output,
            format: try imageFormat(try options[.imageFormat], output: output))
    }

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let request = try parse(options)
        let context = session.context
        let (output, format) = (request.output, request.format)
        if format == .png, output == "-", context.stdoutIsTerminal {
            throw UsageError("Not writing PNG bytes to a terminal: use --output FILE.png, or redirect standard output")
        }
        let loader = try await session.services.historyLoader(offline: request.history.offline)
        let data = try await ChartSeries.load(
            counterIDs: request.counterIDs, from: request.dates.from, to: request.dates.to, metrics: request.metrics,
            grouping: request.grouping, refresh: request.history.refresh, currency: request.currency, loader: loader,
            activity: context)
        var chart = ChartSeries.makeChart(
            data, grouping: request.grouping, title: request.title, width: request.width, height: request.height)
        chart.marks = await ChartSeries.marks(for: data, loader: loader, activity: context)
        let svg = chart.render()
        let bytes =
            format == .png
            ? try await context.rasterizer.png(fromSVG: Data(svg.utf8), scale: ChartSeries.pngScale) : Data(svg.utf8)
        if output == "-" {
            try context.stdout.writer.write(contentsOf: bytes)
        } else {
            try AtomicFile.write(bytes, to: output)
        }
        return ExitCode.ok
    }

    // MARK: - Image format

    /// The file formats a chart is written in.
    enum ImageFormat: String, Sendable, CaseIterable {
        case svg, png
    }

    /// `--format` when given, else the output's extension (`.png`, `.svg`), else SVG (a name without
    /// one, or `-`). A contradiction (`--format svg` into `x.png`) or any other extension (`.jpg`,
    /// `.txt`) is a usage error, so a file never quietly holds a format its name does not say.
    static func imageFormat(_ chosen: ImageFormat?, output: String) throws -> ImageFormat {
        let name = output == "-" ? "" : (output as NSString).lastPathComponent
        let dot = name.lastIndex(of: ".").map { name.index(after: $0) }
        let ext = dot.map { String(name[$0...]).lowercased() } ?? ""
        let byExtension = ImageFormat(rawValue: ext)
        if let chosen {
            if let byExtension, byExtension != chosen {
                throw UsageError(
                    "--format \(chosen.rawValue) contradicts the file name \(name): name it .\(chosen.rawValue) or drop --format"
                )
            }
            return chosen
        }
        if let byExtension { return byExtension }
        if ["jpg", "jpeg", "gif", "webp", "pdf", "bmp", "tif", "tiff", "avif"].contains(ext) {
            throw UsageError("metrika draws charts as SVG or PNG, not .\(ext): name the file .svg or .png")
        }
        // Any other ending (`c.txt`) would hold SVG nobody asked for: the name or --format says which.
        if !ext.isEmpty {
            let stem = String(name[..<name.index(before: dot!)])
            throw UsageError(
                "--output \(name) ends neither .svg nor .png: name it \(stem).svg or \(stem).png, or choose with --format svg|png"
            )
        }
        return .svg
    }
}

// MARK: - Options of its own

extension Option where Value == ChartCommand.ImageFormat? {
    /// `--format svg|png` of `chart` (not the table formats of `--format`).
    static var imageFormat: Option<ChartCommand.ImageFormat?> {
        .choice("format", help: "Image format (default: by the file's extension, else svg)")
    }
}

extension Option where Value == Int? {
    /// `--width PX` of a chart.
    static var width: Option<Int?> {
        .integer("width", value: "PX", help: "Width in pixels (default 800)", in: SVGLineChart.minimumWidth...10_000)
    }
    /// `--height PX` of a chart.
    static var height: Option<Int?> {
        .integer(
            "height", value: "PX", help: "Height in pixels (default 400, plus 160 per extra panel)",
            in: SVGLineChart.minimumHeight...10_000)
    }
}

extension Option where Value == String? {
    /// `--title TEXT` of a chart.
    static var title: Option<String?> {
        .text("title", value: "TEXT", help: "Title (default: the counters' names and sites)")
    }
}
