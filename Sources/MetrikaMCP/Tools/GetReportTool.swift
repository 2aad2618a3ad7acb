import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaServices
import MetrikaSystem
import MetrikaUseCases

/// `get_report`: the request `metrika report` builds from the same words, run by the same use case
/// (HistoryReport for a time series, DirectReport for dimensions) into the same sinks: the JSON
/// document of `report --json` as `structuredContent`, the table of `report` as text.
enum GetReportTool {
    /// Rows of one answer when `limit` is not given, and the most it may ask for: a default answer
    /// stays under TokenBudget.target, the largest under TokenBudget.ceiling (the JSON stops taking
    /// rows at TokenBudget.jsonBytes whatever `limit` says; `more` tells where to go on).
    static let defaultLimit = 100
    /// The default of a compared dimension report, whose rows carry each value three times (now,
    /// before, change): its default answer stays under TokenBudget.target too.
    static let defaultCompareLimit = 50
    static let maximumLimit = 500
    /// The rows of each counter's section the compact text shows when the full table and the JSON
    /// together would pass the budget (the JSON then holds every row of the answer).
    static let compactRows = 20
    /// The table's width in columns (wider tables split their metrics into blocks, as on a terminal).
    static let tableWidth = 120

    /// Where a compared table too wide for `tableWidth` keeps its "before" values (and, for a client
    /// that shows only the text, how to see them there).
    static let beforeElsewhere =
        "structuredContent.rows[].previous keeps them, or ask for fewer metrics to see them in the table"

    /// The report parameters a model may give: every declared one meant for models.
    static let reportParameters = ReportFields.declarations.filter(\.forModels)

    static let spec = ToolSpec(
        name: "get_report",
        title: "Yandex.Metrika report",
        description: """
            Statistics of one or more Yandex.Metrika counters: a time series by day, week or month, or rows by dimensions \
            (traffic source, search phrase, page, country, device…). Values are already in human units: durations \
            (avgVisitDuration) in seconds with the text table showing mm:ss, rates (bounceRate) in percent 0–100, money \
            with its currency; users are never summed over days; totals are the API's or correctly weighted. structuredContent \
            is metrika's report JSON document (docs/json.md, version 1) without its `query` echo, numbers to 4 decimals, a row's `incomplete` only when true: `columns` give each value's unit, \
            `counters[].totals` the totals, `sampled`/`sample_share` whether Metrika estimated from a sample, `missing_days` \
            days no source had (absent: none), `missing` {column: [days]} a metric the history lacks on days it has the others (offline); `more` {offset, rows_total} appears when rows were left out: call again with that offset; \
            `notes` the text's notes (a period not over yet, sampling, rows left out). \
            Quota: a time series (no dimensions, preset or filters) comes from metrika's history database, so a repeated \
            question costs no Reporting request and a new one only the days not yet stored; a dimension report costs one API \
            request per 20,000 rows; each counter's chart annotations (kept in the history: one Management request per \
            counter at most once an hour; offline the kept ones) are the `annotations` member (counter_id, date, time, title, message, group) when one falls in the period. Default: pageviews, visits, users, pageDepth, avgVisitDuration, bounceRate by day \
            for the last 7 days; \(defaultLimit) rows per answer (\(defaultCompareLimit) with compare; at most \(maximumLimit)); when the rows would not fit a model's \
            budget twice, the text shows the first \(compactRows) with the totals and structuredContent holds them all. \
            counter_ids "all" answers "how are all my sites doing": one row per counter with the period's totals, sorted by \
            visits, and a Total (users not summed); with compare each counter's change and the one that fell most. \
            Example: {"counter_ids": [1001], "period": "lastMonth", "group": "week", "metrics": ["visits", "bounceRate"]} or \
            {"counter_ids": [1001], "from": "30daysAgo", "dimensions": ["searchPhrase"], "limit": 100}.
            """,
        // The report's parameters as declared once (ReportFields), with this tool's own bounds on
        // `limit`; only `offset` is this tool's own.
        arguments: reportParameters.map { declaration in
            declaration.parameter == .limit
                ? limit.argument : ToolArgument(declared: declaration, required: declaration.parameter == .counter)
        } + [offset.argument],
        outputSchema: schema(
            "object",
            "metrika's report JSON document (docs/json.md, version 1) without `query`, plus `more` when rows were left out and `notes`.",
            properties: [
                ("version", schema("integer")),
                ("period", schema("object", "The days covered: from, to (YYYY-MM-DD)")),
                ("grouping", .object([("type", .array([.string("string"), .string("null")]))])),
                (
                    "columns",
                    schema(
                        "array",
                        "Each column: name, kind (period_start, period_end, dimension, metric, counter), unit (count, seconds, percent, ratio, money), currency, title",
                        items: schema("object"))
                ),
                (
                    "rows",
                    schema(
                        "array",
                        "One object per row, members named by columns; values in the unit of their column (null: unknown); incomplete: true for a period not over yet",
                        items: schema("object"))
                ),
                (
                    "counters",
                    schema(
                        "array",
                        "Per counter: counter_id, name, site, time_zone, sampled, sample_share, totals, missing_days (absent: none), missing (offline: a metric the history lacks → its days)",
                        items: schema("object"))
                ),
                ("sampled", schema("boolean")),
                (
                    "more",
                    schema(
                        "object", "Rows were left out: call again with offset to continue",
                        properties: [("offset", schema("integer")), ("rows_total", schema("integer"))])
                ),
                (
                    "notes",
                    schema(
                        "array",
                        "The text's notes a model needs: a period not over yet, sampling, a metric the history lacks, rows left out",
                        items: schema("string"))
                ),
                (
                    "kind",
                    schema(
                        "string",
                        "\"portfolio\" for counter_ids \"all\": rows are counters (counter_id, name, site, from, to, "
                            + "the six metrics, with compare previous and change), no counters member; total the Total "
                            + "over every counter (users null: never summed), rows_total the counters, fell_most with compare"
                    )
                ),
                ("total", schema("object", "The portfolio's Total (kind portfolio only)")),
                AnnotationMember.schemaMember
            ], required: ["version", "columns", "rows"]))

    /// `limit`: the report's parameter as declared once (ReportFields), with this tool's own bounds.
    static let limit = TypedToolArgument<Int>(
        {
            guard let declaration = reportParameters.first(where: { $0.parameter == .limit }) else {
                preconditionFailure("ReportFields declares limit")
            }
            var argument = ToolArgument(declared: declaration)
            argument.description =
                "Rows per answer (per counter), 1 to \(maximumLimit); default \(defaultLimit) "
                + "(\(defaultCompareLimit) for a dimension report with compare)."
            argument.maximum = maximumLimit
            argument.defaultValue = .number(Double(defaultLimit))
            argument.beyondBound = "ask for the next rows with offset"
            return argument
        }())
    /// `offset`: this tool's own.
    static let offset = TypedToolArgument<Int>(
        ToolArgument(
            "offset", .integer, "The 1-based row to start from: the `more.offset` of the previous answer.", minimum: 1,
            maximum: ReportRequest.limitRange.upperBound, defaultValue: .number(1)))

    /// The report request a `get_report` call means: built by `ReportRequest` from the words the CLI
    /// reads, through the same parsers. `limit` goes to the request only where the CLI takes it (a
    /// dimension report); a time series is cut by the answer's window. `lang` on a time series is
    /// dropped, not refused: a model asking in Russian sends it everywhere, and it changes nothing there.
    static func request(_ arguments: ToolArguments) throws -> ReportRequest {
        var fields = ReportFields()
        try arguments.read(reportParameters, into: &fields)
        fields.limit = nil
        if fields.dimensions.isEmpty, fields.preset == nil { fields.lang = nil }
        let plain = try ReportRequest(fields)
        guard !plain.usesHistory else { return plain }
        fields.limit = arguments[limit] ?? defaultRows(compare: fields.compare)
        return try ReportRequest(fields)
    }

    static func run(_ arguments: ToolArguments, services: any RunServices, call: any MCPCallActivity) async throws
        -> MCPToolResult
    {
        let request = try request(arguments)
        if request.allCounters { return try await portfolio(request, arguments, services: services, call: call) }
        let limit = arguments[Self.limit] ?? defaultRows(compare: request.compare && !request.usesHistory)
        let offset = arguments[Self.offset] ?? 1
        let built = ReportDocumentSink()
        let table = OutputWriter()
        let head = OutputWriter()
        let window = ReportWindow(
            [
                built, ReportTableSink(output: table, maxWidth: tableWidth, beforeElsewhere: beforeElsewhere),
                HeadSink(
                    ReportTableSink(output: head, maxWidth: tableWidth, beforeElsewhere: beforeElsewhere),
                    rows: compactRows)
            ],
            skip: request.usesHistory ? offset - 1 : 0, take: request.usesHistory ? limit : Int.max,
            jsonBytes: { built.byteCount },
            byteBudget: TokenBudget.jsonBytes,
            progress: { rows in call.progress(Double(rows), total: nil, message: "\(rows) rows") })
        let activity = ToolActivity(now: services.now)
        let rowsTotal: Int
        if request.usesHistory {
            let loader = try await services.historyLoader(offline: request.offline)
            try await HistoryReport(request: request, loader: loader, activity: activity).run(into: window)
            rowsTotal = window.rowsSeen
        } else {
            rowsTotal = try await DirectReport.run(
                request, client: try await services.client(), activity: activity, into: window, showsProgress: false,
                firstRow: offset, notesCut: false)
        }
        // Built as the structured view gives it: without what the model knows or what says nothing
        // (the query echo, `"incomplete": false`).
        var document = built.document
        var text = table.text
        let shown = window.rowsShown
        // Never two full copies past the budget: the text becomes the first rows with the totals, and
        // says how a client that shows only the text gets the others as text.
        if TokenBudget.tokens(text) + TokenBudget.tokens(document.serialized()) > TokenBudget.target,
            shown > compactRows
        {
            text =
                head.text
                + "\nThe table shows the first \(compactRows) rows of each counter; structuredContent.rows holds all \(grouped(shown)) of this answer "
                + "(or call get_report again with offset \(offset + compactRows) and limit \(compactRows) for the next rows as a table).\n"
        }
        // The notes a model needs, in the text and in the structured view alike.
        var notes = incompleteNotes(document)
        if !request.usesHistory {
            // A dimension report has no row per day to mark: its period holding today is said once.
            let today = todayNotes(document, now: services.now())
            for line in today { text += line + "\n" }
            notes += today
        }
        let next = offset + shown
        if next - 1 < rowsTotal, shown > 0 || window.cutByBytes {
            if case .object(var members) = document {
                members.append(
                    ("more", .object([("offset", .number(Double(next))), ("rows_total", .number(Double(rowsTotal)))])))
                document = .object(members)
            }
            let why = window.cutByBytes ? " (the answer reached its size bound)" : ""
            let grouping =
                request.usesHistory && (request.requestedGrouping ?? .day) == .day
                ? ", or ask for group week or month" : ""
            let paging =
                "Showing rows \(grouped(offset))–\(grouped(next - 1)) of \(grouped(rowsTotal))\(why); call get_report again with offset \(next) for the next rows\(grouping)."
            text += "\n" + paging + "\n"
            notes.append(paging)
        } else if shown == 0, offset > 1, rowsTotal > 0 {
            let none = "No rows from offset \(offset): the report has \(grouped(rowsTotal))."
            text += "\n" + none + "\n"
            notes.append(none)
        }
        for line in activity.lines {
            text += line + "\n"
            notes.append(line)
        }
        // The owner's chart annotations on the period's days (offline: the kept ones): context, absent when none.
        if let period = Self.period(document) {
            let annotations = await AnnotationMember.read(
                counters: request.counterIDs, from: period.from, to: period.to, offline: request.offline,
                services: services)
            text += AnnotationMember.text(annotations, namingCounters: request.counterIDs.count > 1)
            document = AnnotationMember.adding(annotations, to: document)
        }
        return MCPToolResult(
            content: [.text(text)], structuredContent: StructuredView.adding(notes: notes, to: document))
    }

    /// `counter_ids: "all"`: the portfolio — one row per counter with the period's totals, sorted by
    /// visits, `limit` rows from `offset`, the Total over all of them; the text is its table, the
    /// structured view its JSON document (`report --counter all --json`, docs/json.md) with `more`
    /// and `notes`. Progress notifications count the counters read.
    static func portfolio(
        _ request: ReportRequest, _ arguments: ToolArguments, services: any RunServices, call: any MCPCallActivity
    ) async throws -> MCPToolResult {
        let loader = try await services.historyLoader(offline: request.offline)
        let activity = ToolActivity(now: services.now, call: call)
        let report = try await Portfolio(request: request, loader: loader, activity: activity).run()
        if Task.isCancelled { throw CancellationError() }
        let limit = arguments[Self.limit] ?? defaultLimit
        let offset = arguments[Self.offset] ?? 1
        let total = report.rows.count
        let shown = min(offset - 1, total)..<min(total, offset - 1 + limit)
        var text = PortfolioListing.table(report, rows: report.rows[shown]).render(maxWidth: tableWidth)
        var notes = PortfolioListing.footer(report, shown: shown).filter { !$0.hasPrefix("Showing") }
        var document = PortfolioListing.document(report, rows: report.rows[shown])
        if shown.upperBound < total {
            if case .object(var members) = document {
                members.append(
                    (
                        "more",
                        .object([
                            ("offset", .number(Double(shown.upperBound + 1))), ("rows_total", .number(Double(total)))
                        ])
                    ))
                document = .object(members)
            }
            notes.insert(
                "Showing counters \(grouped(shown.lowerBound + 1))–\(grouped(shown.upperBound)) of \(grouped(total)) by visits (the Total is over all of them); call get_report again with offset \(shown.upperBound + 1) for the next counters.",
                at: 0)
        } else if shown.isEmpty, offset > 1, total > 0 {
            notes.insert("No counters from offset \(offset): the portfolio has \(grouped(total)).", at: 0)
        }
        notes += activity.lines
        text += notes.map { $0 + "\n" }.joined()
        return MCPToolResult(
            content: [.text(text)],
            structuredContent: StructuredView.adding(notes: notes, to: StructuredView.compact(document)))
    }

    /// The document's `period` (`from`, `to`), as days.
    static func period(_ document: JSONValue) -> (from: Day, to: Day)? {
        guard case .object(let members) = document,
            case .object(let period)? = members.first(where: { $0.0 == "period" })?.1,
            case .string(let from)? = period.first(where: { $0.0 == "from" })?.1,
            case .string(let to)? = period.first(where: { $0.0 == "to" })?.1,
            let first = Day(iso: from), let last = Day(iso: to)
        else { return nil }
        return (first, last)
    }

    /// The table's footnote of a period not over yet, for the structured view: its rows have
    /// `"incomplete": true` (the text's table says it under each counter's section).
    static func incompleteNotes(_ document: JSONValue) -> [String] {
        guard case .array(let rows)? = StructuredView.member("rows", of: document),
            rows.contains(where: { StructuredView.member("incomplete", of: $0) == .bool(true) })
        else { return [] }
        let what: String
        switch StructuredView.member("grouping", of: document) {
        case .string("week")?: what = "this week"
        case .string("month")?: what = "this month"
        default: what = "today"
        }
        return ["\(what) is not over yet: its numbers will still change (the rows with incomplete: true)."]
    }

    /// The note of a dimension report whose period holds today in some counter's time zone (its
    /// rows and totals are today's so far).
    static func todayNotes(_ document: JSONValue, now: Date) -> [String] {
        guard let period = StructuredView.member("period", of: document),
            case .string(let fromText)? = StructuredView.member("from", of: period),
            case .string(let toText)? = StructuredView.member("to", of: period),
            let from = Day(iso: fromText), let to = Day(iso: toText),
            case .array(let counters)? = StructuredView.member("counters", of: document)
        else { return [] }
        let holdsToday = counters.contains { counter in
            guard case .string(let name)? = StructuredView.member("time_zone", of: counter),
                let zone = TimeZone(identifier: name)
            else { return false }
            let seconds = now.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: now))
            let today = Day(ordinal: Int((seconds / 86_400).rounded(.down)))
            return from <= today && today <= to
        }
        return holdsToday ? ["today is not over yet: the numbers are today's so far and will still change."] : []
    }

    /// Rows of an answer when `limit` is not given.
    static func defaultRows(compare: Bool) -> Int { compare ? defaultCompareLimit : defaultLimit }

    /// A count as the table writes it (`150 001`).
    static func grouped(_ count: Int) -> String {
        DigitGroups.group(DecimalText.format(Double(count), fractionDigits: 0))
    }
}
