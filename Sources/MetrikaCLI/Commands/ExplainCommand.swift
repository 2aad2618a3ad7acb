import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaUseCases

/// `metrika explain`: why a metric changed — its change split over traffic sources, devices, start
/// pages, regions (the exact decomposition of `Explain`), the driver named in one sentence.
enum ExplainCommand: Command {
    static let name = "explain"
    static let summary = "Explain a change: which sources, devices, pages or regions made it"
    static let synopses: [[UsageTerm]] = [
        [
            .required(.counter), .optional(Option.explainMetric),
            .optional([.oneOf([[.required(Option.explainDate)], [.required(Option.from), .required(Option.to)]])]),
            .optional(Option.against),
            .optional(Option.explainDimensions), .optional(.format)
        ]
    ]
    static let discussion = """
        Compares a day (--date, default yesterday) or a range (--from/--to) with a baseline and splits
        the change over each dimension's segments; the segments' shown changes add up to the total.
        The first line names the driver: for a count the most concentrated dimension's largest change,
        "spread evenly" when no dimension concentrates it, "all N visits gone: tracking stopped?" when
        nothing was recorded; for a rate what explains the most of its change ("mostly mix", "across
        the board", or one segment's own rate). A rise also says what share of its visits were robots
        (ym:s:robotPercentage, asked with the first dimension; a rate's headline only when that share
        moved). A legend under the tables says what their columns mean.

        --against: alert (one day: the median of the same weekday of the weeks before that `metrika
        alert` judges by, 6 unless the config's alerts.weeks says otherwise; the default for a day),
        previous (the period of the same length just before; the default for a range) or DATE..DATE.
        A period including today is refused: it is not finished; so is a baseline before 2008.

        Metrics: counts (visits, pageviews, users, purchases, revenue, goal<ID>reaches) and rates
        (bounceRate, goal<ID>conversionRate, pageDepth, avgVisitDuration: split into mix, the shares of
        visits moving between segments, and rate, the rate moving inside them). users: the day's users
        as `metrika report` shows them (one request more); users counted in several segments are the
        Overlap row. Dimensions (at most 8, one Reporting request each): trafficSource, searchEngine,
        UTMSource, deviceCategory, startURL, region (cities), regionCountry, regionCity (regionCity and
        region are one table). The 5 largest changes of each are named, the rest are "Other".

        Settled days' segments (before yesterday) are kept in the history database
        (METRIKA_DB): explaining such a day again against the alert's baseline asks nothing.

        Examples:
          metrika explain --counter 1001
          metrika explain --counter 1001 --metric bounceRate --from 2026-11-01 --to 2026-11-07
          metrika explain --counter 1001 --date 2026-11-30 --against 2026-11-23..2026-11-23 --json
        """
    static let options: [OptionSpec] =
        [
            CounterOptions.spec(value: "ID", help: "The counter"),
            Option.explainMetric.spec, Option.explainDate.spec,
            Option.from.described("First day of a range (with --to)").spec,
            Option.to.described("Last day of a range").spec,
            Option.against.spec, Option.explainDimensions.spec
        ] + FormatOptions.specs + TokenOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let id = try CounterOptions.one(options)
        let output = try FormatOptions.parse(options, toTerminal: context.stdoutIsTerminal)
        let client = try await session.services.client()
        let request = try await Explain.request(
            counterID: id, metric: options[.explainMetric], date: options[.explainDate], from: options[.from],
            to: options[.to],
            against: options[.against], dimensions: options[.explainDimensions], client: client, now: context.now(),
            weeks: try session.services.alertSettings().weeks)
        // Settled days' segments are kept in the history database: a repeated explanation asks nothing.
        let loader = try await session.services.historyLoader(offline: false)
        let explanation = try await Explain.run(
            request, client: client, history: SegmentHistory(loader, today: request.today))
        let listing = explanation.listing
        let out = context.stdout
        // The owner's chart annotations on the explained day(s): context, never a reason to fail.
        let period = request.period
        var notes: [Annotation] = []
        switch await AnnotationText.annotations(counterID: id, on: period.from...period.to, loader: loader) {
        case .success(let read): notes = read
        case .failure(let error):
            if options[.verbose] {
                context.note("Note: counter \(id)'s chart annotations could not be read: \(error)")
            }
        }
        switch output.format {
        case .table:
            out.write(ExplanationListing.text(listing, maxWidth: context.terminalWidth))
            for note in notes { out.write(AnnotationText.line(note) + "\n") }
        case .csv:
            try output.csv.write(ExplanationListing.csvHeader, to: out.writer)
            for row in ExplanationListing.csvRows(listing) {
                try output.csv.write(row, numbersFrom: ExplanationListing.csvNumbersFrom, to: out.writer)
            }
            for row in AnnotationText.csvRows(notes, columns: ExplanationListing.csvHeader.count) {
                try output.csv.write(row, to: out.writer)
            }
        case .json:
            let document = ExplanationListing.document(listing, versioned: true)
            let noted = AnnotationText.adding(notes.map { (counterID: id, note: $0) }, to: document)
            out.write(noted.serialized(pretty: true) + "\n")
        }
        return ExitCode.ok
    }
}

extension Option where Value == String? {
    static var explainMetric: Option<String?> {
        .text("metric", short: "m", value: "METRIC", help: "The metric to explain (default visits)")
    }
    static var explainDate: Option<String?> {
        .text("date", value: "DAY", help: "The day to explain (default yesterday)")
    }
    static var against: Option<String?> {
        .text("against", value: "BASELINE", help: "alert (a day's default), previous (a range's default) or DATE..DATE")
    }
    static var explainDimensions: Option<String?> {
        .text(
            "dimensions", short: "d", value: "DIM,…",
            help: "Dimensions to split by (default trafficSource,searchEngine,UTMSource,deviceCategory,startURL,region)"
        )
    }
}
