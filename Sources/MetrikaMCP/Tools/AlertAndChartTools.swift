import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaServices
import MetrikaSystem
import MetrikaUseCases

/// `check_alerts`: what `metrika alert --dry-run` finds, by the same `AlertCheck` — and nothing of
/// what a real run does after: no webhook, no mail, and the outcome is never recorded (`record` is
/// not called), so asking twice gives the same answer.
enum CheckAlertsTool {
    static let spec = ToolSpec(
        name: "check_alerts",
        title: "Anomalies of the last day or of today so far",
        description: """
            Finds what changed abnormally on the last finished day (or, with today: true, in the last finished hours — near midnight yesterday's last hours too) (in each counter's time zone) — visits, a shop's purchases \
            and revenue, every goal's reaches — judged against the same weekday of the previous weeks, as metrika's daily \
            alert check does: a drop, a rise (a bot wave) or a stop (broken tracking), and metrics back to normal. Read-only: it \
            never sends a webhook or mail and never marks an alert as told, so asking again gives the same answer. Values are \
            counts (revenue: money); change_percent is the change against the expected value. Quota: days already in \
            metrika's history database cost nothing; missing ones about one request per counter; each counter with a drop or \
            a rise one more per dimension explained (6), for its drivers. Without counter_ids every \
            counter the token can read is checked: the counters list brings every counter's goals, so 1,000 counters cost about \
            1,000 requests the first time and one per counter (the last day again) after; progress notifications say \
            how many counters are done. Example: {"counter_ids": [1001], "date": "2026-11-29"} or {"counter_ids": [1001], "today": true}.
            """,
        arguments: [counterIDs.argument, date.argument, today.argument],
        outputSchema: schema(
            "object",
            properties: [
                (
                    "findings",
                    schema(
                        "array",
                        "counter_id, counter_name, metric, grain (day, or hour with today), title, notice (drop, rise, stopped, back_to_normal; continues: a day within an hourly alert still open), day, value, expected, change_percent, since, provisional, drivers (what made a drop or a rise, the main one first: dimension, name, value, expected, change, share), text; with today: hours {from, to} (local hours judged) instead of since and provisional",
                        items: schema("object"))
                ),
                (
                    "failures",
                    schema("array", "Counters that could not be checked: counter_id, error", items: schema("object"))
                ),
                ("counters_checked", schema("integer")),
                (
                    "notes",
                    schema(
                        "array",
                        "The text's notes a model needs: a run that gave up on the API, a range cut to a counter's creation",
                        items: schema("string"))
                )
            ], required: ["findings", "failures", "counters_checked"]))

    static let counterIDs = TypedToolArgument<[Int]>(
        SharedArguments.counterIDs(
            required: false, description: "Counters to check (default: every counter the token can read)."))
    static let date = TypedToolArgument<String>(
        ToolArgument(
            "date", .string,
            "The day to judge, YYYY-MM-DD (default: each counter's last finished day); "
                + "a day not yet over for every counter asked is refused.",
            maxLength: 40))
    static let today = TypedToolArgument<Bool>(
        ToolArgument(
            "today", .boolean,
            "Judge the last finished hours (each counter's time zone; near midnight yesterday's last hours too) against the same hours of the same weekday "
                + "of earlier weeks instead of the last day: a stop (tracking that fell off at 14:00), a drop or a rise "
                + "in the last hours. Not with date.",
            defaultValue: .bool(false)))

    static func run(_ arguments: ToolArguments, services: any RunServices, call: any MCPCallActivity) async throws
        -> MCPToolResult
    {
        let ids = SharedArguments.ids(arguments[counterIDs])
        let today = arguments[Self.today] == true
        if today, arguments[date] != nil {
            throw ToolArgumentError("today judges today's hours and date a finished day: give one of them, not both")
        }
        let settings = try services.alertSettings()
        var loader = try await services.historyLoader(offline: false)
        let (counters, failures) = try await services.alertCounters(ids, loader: loader)
        if let text = arguments[date] {
            guard let day = Day(iso: text.trimmingCharacters(in: .whitespaces)) else {
                throw UsageError("date must be a day as YYYY-MM-DD (the day to judge), not '\(text)'")
            }
            // The check judges the day before each counter's "today": its clock is set where the next
            // day is "today" for every counter checked — as late as that day and now allow (the data
            // has had the longest to settle), never a "now" at which the asked day is not over for a
            // counter: that would judge another day than the one asked.
            guard let nextMidnight = RFC3339.parse("\(day.adding(days: 1).iso)T00:00:00Z") else {
                throw UsageError("date must be a day as YYYY-MM-DD (the day to judge), not '\(text)'")
            }
            let offsets = counters.map { Double($0.timeZoneOffsetMinutes * 60) }
            let begun = (offsets.map { nextMidnight.addingTimeInterval(-$0) }.max() ?? nextMidnight).addingTimeInterval(
                60)
            let ends =
                (offsets.map { nextMidnight.addingTimeInterval(86_400 - $0) }.min()
                ?? nextMidnight.addingTimeInterval(86_400)).addingTimeInterval(-60)
            let judgedAt = min(services.now(), ends)
            guard begun <= judgedAt else {
                throw UsageError(
                    "date \(day.iso) is not over yet for every counter asked: give an earlier day, or leave date out to judge each counter's last finished day"
                )
            }
            loader = HistoryLoader(
                store: loader.store, client: loader.client, now: { judgedAt }, unsettledDays: loader.unsettledDays,
                unkept: loader.unkept)
        }
        let activity = ToolActivity(now: loader.now, call: call)
        call.progress(0, total: Double(counters.count), message: "checking \(counters.count) counters")
        // The run of `metrika alert --dry-run`: nothing claimed, delivered or remembered. Three counters
        // at a time, as the command checks them: the server's transport holds the API's 3 requests in
        // parallel per user for every call together (`ParallelLimitTransport`), so 3 calls at once wait
        // their turn there instead of checking one counter at a time each.
        var request = AlertRun.Request(counterIDs: ids, today: today, dryRun: true, explain: !ids.isEmpty)
        request.parallelism = AlertCheck.parallelLimit
        request.noteFailures = false
        let result = try await AlertRun(loader: loader, settings: settings, activity: activity).run(
            request, counters: counters, unread: failures
        ) { _ in }
        if Task.isCancelled { throw CancellationError() }
        call.progress(Double(counters.count), total: Double(counters.count), message: nil)
        if today { return hourly(result, activity: activity) }
        let said = result.findings.all.map { finding -> Said in
            let line = AlertText.line(finding)
            let judgement = finding.judgement
            return (
                line,
                .object([
                    ("counter_id", .number(Double(finding.counter.id))),
                    ("counter_name", .string(finding.counter.name)),
                    ("metric", .string(finding.metric.apiName)), ("grain", .string("day")),
                    ("title", .string(AlertText.metricLabel(finding))),
                    ("notice", .string(notice(finding.notice))), ("day", .string(judgement.day.iso)),
                    ("value", .number(judgement.value)),
                    ("expected", .number(judgement.expected)),
                    ("change_percent", .number(rounded(judgement.changePercent))),
                    ("since", .string(judgement.since?.iso)), ("provisional", .bool(finding.provisional)),
                    ("drivers", .array(finding.drivers.map(\.json))), ("text", .string(line))
                ])
            )
        }
        let checked = "\(result.countersChecked) counter\(result.countersChecked == 1 ? "" : "s") checked"
        return answer(said, result, checked: checked, none: "No alerts", activity: activity)
    }
}

extension CheckAlertsTool {
    /// One finding as check_alerts says it: its line (the text block) and its object (`findings`).
    typealias Said = (line: String, object: JSONValue)

    /// The answer of `today: true`: the findings of `metrika alert --today --dry-run` (the hour grain),
    /// nothing claimed, delivered or remembered; the same members as a day's, the hours judged besides.
    static func hourly(_ result: AlertRun.Result, activity: ToolActivity) -> MCPToolResult {
        let said = result.findings.all.map { finding -> Said in
            let line = AlertText.line(finding)
            let judgement = finding.judgement
            let hours = judgement.hours ?? 0...23
            return (
                line,
                .object([
                    ("counter_id", .number(Double(finding.counter.id))),
                    ("counter_name", .string(finding.counter.name)),
                    ("metric", .string(finding.metric.apiName)), ("grain", .string("hour")),
                    ("title", .string(AlertText.metricLabel(finding))),
                    ("notice", .string(notice(finding.notice))), ("day", .string(finding.day.iso)),
                    (
                        "hours",
                        .object([
                            // Hours that began before midnight start at the day before's hour.
                            ("from", .string(hourText((hours.lowerBound % 24 + 24) % 24))),
                            ("to", .string(hourText(hours.upperBound + 1)))
                        ])
                    ),
                    ("value", .number(judgement.value)), ("expected", .number(judgement.expected)),
                    ("change_percent", .number(rounded(judgement.changePercent))),
                    ("drivers", .array(finding.drivers.map(\.json))), ("text", .string(line))
                ])
            )
        }
        let checked =
            "\(result.countersChecked) counter\(result.countersChecked == 1 ? "" : "s") checked against the same hours of earlier weeks"
        return answer(said, result, checked: checked, none: "No alerts today so far", activity: activity)
    }

    /// The one answer of both grains: the findings' lines, each failed counter, the give-up, the
    /// counters checked and the run's notes — in the text and (the notes) in the structured view alike.
    static func answer(_ said: [Said], _ result: AlertRun.Result, checked: String, none: String, activity: ToolActivity)
        -> MCPToolResult
    {
        var text = said.map { $0.line + "\n" }.joined()
        let failed: [JSONValue] = result.failures.map {
            .object([
                ("counter_id", .number(Double($0.counterID))),
                ("error", .string(MetrikaToolCatalogue.sentence($0.failure)))
            ])
        }
        for (id, failure) in result.failures {
            text += "Error: counter \(id): \(MetrikaToolCatalogue.sentence(failure))\n"
        }
        // A failed counter is in `failures` already; the give-up and the run's notes are notes.
        var notes: [String] = []
        if let gaveUp = result.gaveUp {
            text += "Error: \(MetrikaToolCatalogue.sentence(gaveUp))\n"
            notes.append(MetrikaToolCatalogue.sentence(gaveUp))
        }
        text += said.isEmpty ? "\(none): \(checked).\n" : "\(checked.prefix(1).uppercased() + checked.dropFirst()).\n"
        for line in activity.lines {
            text += line + "\n"
            notes.append(line)
        }
        let document = StructuredView.adding(
            notes: notes,
            to: .object([
                ("findings", .array(said.map(\.object))), ("failures", .array(failed)),
                ("counters_checked", .number(Double(result.countersChecked)))
            ]))
        // Every counter failed: the work failed (the first failure's sentence first).
        let allFailed = result.countersChecked == 0 && (!result.failures.isEmpty || result.gaveUp != nil)
        return MCPToolResult(content: [.text(text)], structuredContent: allFailed ? nil : document, isError: allFailed)
    }

    /// `drop`, `rise`, `stopped`, or `back_to_normal`: a day's notice, and an hour's; `continues`: a
    /// day's that goes on with an hourly alert still open.
    static func notice(_ notice: AlertLedger.Notice) -> String {
        switch notice {
        case .alert(let kind): return kind.rawValue
        case .backToNormal: return "back_to_normal"
        case .continues: return "continues"
        }
    }

    /// A change in percent to one decimal, as the webhook says it (nil: nothing was expected).
    static func rounded(_ percent: Double?) -> Double? { percent.map { ($0 * 10).rounded() / 10 } }

    /// `14:00`; `24:00` for the end of the day.
    static func hourText(_ hour: Int) -> String { (hour < 10 ? "0" : "") + "\(hour):00" }
}

/// `draw_chart`: the chart `metrika chart` draws (ChartSeries → SVGLineChart → rsvg-convert), as a PNG.
enum DrawChartTool {
    static let spec = ToolSpec(
        name: "draw_chart",
        title: "Line chart of a counter's statistics",
        description: """
            Draws metrika's line chart as a PNG image (1600×800 pixels): one line per metric and counter by \
            day, metrics of the same unit sharing an axis, different units in panels; missing days are gaps, today's \
            still-changing value dotted. Plus a one-line summary. Quota: from metrika's history database, like get_report's \
            time series (a repeated chart costs no request). Needs rsvg-convert (librsvg) on the server's machine. \
            Example: {"counter_ids": [1001], "metrics": ["visits"], "period": "last30days"}.
            """,
        arguments: [
            counterIDs.argument, metrics.argument,
            SharedArguments.from.argument, SharedArguments.to.argument, SharedArguments.period.argument
        ],
        outputSchema: nil)

    static let counterIDs = TypedToolArgument<[Int]>(
        SharedArguments.counterIDs(required: true, description: "Counter ids (see list_counters): one line each."))
    static let metrics = TypedToolArgument<[String]>(
        SharedArguments.metrics(
            "Metrics (default visits), at most 20: visits, pageviews, users, bounceRate, avgVisitDuration, revenue, "
                + "goal<ID>reaches…"))

    static func run(_ arguments: ToolArguments, services: any RunServices) async throws -> MCPToolResult {
        let ids = SharedArguments.ids(arguments[counterIDs])
        let dates = try SharedArguments.dates(arguments, defaultFrom: "29daysAgo")
        let metrics = DefaultMetrics.chart(chosen: try arguments[Self.metrics].map { try ReportTerms.metrics($0) })
        let loader = try await services.historyLoader(offline: false)
        let activity = ToolActivity(now: services.now)
        let data = try await ChartSeries.load(
            counterIDs: ids, from: dates.from, to: dates.to, metrics: metrics, grouping: .day, refresh: false,
            loader: loader, activity: activity)
        if Task.isCancelled { throw CancellationError() }
        let chart = ChartSeries.makeChart(data, grouping: .day, title: nil, width: 800, height: nil)
        let png = try await services.rasterizer.png(fromSVG: Data(chart.render().utf8), scale: ChartSeries.pngScale)
        let size = PNGImage.size(of: png).map { " \($0.width)×\($0.height)" } ?? ""
        let counters = data.map { "\($0.counter.id) \($0.counter.name)" }.joined(separator: ", ")
        let days = DateRange.spanning(data.map(\.range)).map { "\($0.from.iso) – \($0.to.iso)" } ?? ""
        var text =
            "Line chart\(size) PNG of \(metrics.map(\.shortName).joined(separator: ", ")) by day for \(counters), \(days)."
        let missing = data.reduce(0) { $0 + $1.missingDays.count }
        if missing > 0 { text += " \(missing) missing day\(missing == 1 ? "" : "s") are gaps." }
        for line in activity.lines { text += "\n" + line }
        return MCPToolResult(content: [.image(data: [UInt8](png), mimeType: "image/png"), .text(text)])
    }
}
