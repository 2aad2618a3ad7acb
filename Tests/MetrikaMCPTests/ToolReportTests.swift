import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaSimulator
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases
import Testing

@testable import MetrikaMCP

/// `get_report`, `list_counters` and `list_goals` against the simulator in this process (one for the
/// suite) and a history database per test.
@Suite struct ToolReportTests {
    static let now = RFC3339.parse("2026-11-30T09:00:00Z")!
    static let simulator = Result { try ToolSimulator(now: now) }
    /// 2,601 counters (Fixtures/many).
    static let many = Result { try ToolSimulator(fixtures: "many", now: now) }
    /// The compare tests' own simulator: their requests stay out of the other tests' request counts.
    static let comparing = Result { try ToolSimulator(now: now) }

    let folder: TemporaryFolder
    let services: TestServices
    let catalogue: MetrikaToolCatalogue

    init() throws {
        folder = try TemporaryFolder()
        services = TestServices(try Self.simulator.get(), database: folder.path + "/history.sqlite", now: Self.now)
        catalogue = MetrikaToolCatalogue(services: services)
    }

    func call(_ tool: String, _ given: [(String, JSONValue)], progress: RecordedProgress = RecordedProgress())
        async throws -> MCPToolResult
    {
        try await catalogue.call(tool, arguments: given, activity: progress)
    }

    /// A call through the compare tests' own simulator.
    func compared(_ tool: String, _ given: [(String, JSONValue)]) async throws -> MCPToolResult {
        let services = TestServices(try Self.comparing.get(), database: folder.path + "/compared.sqlite", now: Self.now)
        return try await MetrikaToolCatalogue(services: services).call(
            tool, arguments: given, activity: RecordedProgress())
    }

    /// What `metrika report --json` prints for the request: the same use case into the same sink.
    func cliDocument(_ request: ReportRequest, database: String) async throws -> JSONValue {
        let out = OutputWriter()
        let services = TestServices(try Self.simulator.get(), database: database, now: Self.now)
        if request.usesHistory {
            try await HistoryReport(
                request: request, loader: try services.historyLoader(offline: false),
                activity: ToolActivity(now: services.now)
            ).run(into: ReportJSONSink(output: out))
        } else {
            try await DirectReport.run(
                request, client: try services.client(), activity: ToolActivity(now: services.now),
                into: ReportJSONSink(output: out), showsProgress: false)
        }
        return try BoundedJSONParser.parse(out.bytes).value
    }

    @Test func aTimeSeriesIsTheDocumentOfReportJSONAndTheTableOfReport() async throws {
        let result = try await call(
            "get_report",
            [
                ("counter_ids", ints([1001])), ("from", .string("2026-10-01")), ("to", .string("2026-10-31")),
                ("metrics", strings(["visits", "bounceRate", "avgVisitDuration", "revenue"]))
            ])
        #expect(!result.isError, "\(result.text)")
        let structured = try #require(result.structuredContent)
        let request = try ReportRequest(
            counterIDs: [1001], from: .absolute(Day(iso: "2026-10-01")!), to: .absolute(Day(iso: "2026-10-31")!),
            metrics: try ReportTerms.metrics(["visits", "bounceRate", "avgVisitDuration", "revenue"]))
        let cli = try await cliDocument(request, database: folder.path + "/cli.sqlite")
        // The CLI's document as the structured view gives it: no query echo, numbers to 4 decimals.
        #expect(cli["query"] != nil && cli["rows"]?.items.first?["incomplete"] == .bool(false))
        let view = StructuredView.compact(StructuredView.report(cli))
        #expect(structured.serialized(pretty: true) == view.serialized(pretty: true))
        #expect(structured["more"] == nil)
        #expect(structured["rows"]?.items.count == 31)
        let units = structured["columns"]?.items.compactMap { $0["unit"]?.text }
        #expect(units == ["count", "percent", "seconds", "money"])
        // The table: durations as mm:ss, rates with %, money with its sign, a total.
        let text = result.text
        #expect(text.contains("Total"))
        #expect(text.contains("%"))
        #expect(text.contains("₽"))
        #expect(text.range(of: #"\b\d+:\d\d\b"#, options: .regularExpression) != nil)
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= GetReportTool.tableWidth })
    }

    @Test func aRepeatedTimeSeriesCostsNoRequest() async throws {
        let simulator = try Self.simulator.get()
        let given: [(String, JSONValue)] = [
            ("counter_ids", ints([1003])), ("from", .string("2026-09-01")), ("to", .string("2026-09-30")),
            ("group", .string("week"))
        ]
        let first = try await call("get_report", given)
        #expect(try simulator.requestCount(pathPrefix: "/stat/v1/data", counter: 1003) > 0)
        let before = try simulator.requestCount(pathPrefix: "/stat/v1/data", counter: 1003)
        let again = try await call("get_report", given)
        #expect(try simulator.requestCount(pathPrefix: "/stat/v1/data", counter: 1003) == before)
        #expect(again.structuredContent == first.structuredContent)
        let offline = try await call("get_report", given + [("offline", .bool(true))])
        #expect(offline.structuredContent == first.structuredContent)
        #expect(first.structuredContent?["grouping"] == .string("week"))
    }

    @Test func aDimensionReportIsCutToItsPageAndContinuedByOffset() async throws {
        let base: [(String, JSONValue)] = [
            ("counter_ids", ints([1004])), ("from", .string("2026-11-01")), ("to", .string("2026-11-07")),
            ("dimensions", strings(["searchPhrase"])), ("metrics", strings(["visits"]))
        ]
        let progress = RecordedProgress()
        let first = try await call("get_report", base, progress: progress)
        #expect(!first.isError, "\(first.text)")
        let page = try #require(first.structuredContent)
        #expect(page["rows"]?.items.count == 100)
        let more = try #require(page["more"])
        #expect(more["offset"] == .number(101))
        let total = try #require(more["rows_total"]?.number)
        #expect(total >= 100_000)
        #expect(
            first.text.contains(
                "Showing rows 1–100 of \(GetReportTool.grouped(Int(total))); call get_report again with offset 101"))
        // As `report --json --limit` says it: the whole report's row count and what the rest add up
        // to, in the counter's section; the table's Other and Total lines (review: they were dropped).
        let section = try #require(page["counters"]?.items.first)
        #expect(section["rows_total"]?.number == total)
        #expect(section["other"]?["rows"]?.number == total - 100)
        #expect(first.text.contains("Other (") && first.text.contains("Total ("))
        #expect(progress.reports.withLock { $0 }.last == 100)
        // The next page starts where the first stopped: none of its phrases again, none left out
        // (the API's order is by visits, descending).
        let second = try await call("get_report", base + [("offset", .number(101))])
        #expect(second.structuredContent?["more"]?["offset"] == .number(201))
        // Issue 48: page 2's Other and Total count the whole report's rows, as `more.rows_total` does
        // (they said 99 800 and 99 900 of 100 000): Other is every row not on this page.
        let secondSection = try #require(second.structuredContent?["counters"]?.items.first)
        #expect(secondSection["rows_total"]?.number == total)
        #expect(secondSection["other"]?["rows"]?.number == total - 100)
        #expect(second.structuredContent?["more"]?["rows_total"]?.number == total)
        #expect(
            second.text.contains("Total (\(GetReportTool.grouped(Int(total))) rows)")
                && second.text.contains("Other (\(GetReportTool.grouped(Int(total) - 100)) rows)"), "\(second.text)")
        let rows = { (result: MCPToolResult) in result.structuredContent?["rows"]?.items ?? [] }
        #expect(rows(second).count == 100)
        let bridge = try await call("get_report", base + [("offset", .number(100)), ("limit", .number(2))])
        #expect(rows(bridge).count == 2)
        #expect(rows(bridge).first == rows(first).last)
        #expect(rows(bridge).last == rows(second).first)
        // The last page has no `more`.
        let last = try await call("get_report", base + [("offset", .number(total - 9))])
        #expect(last.structuredContent?["rows"]?.items.count == 10)
        #expect(last.structuredContent?["more"] == nil)
        // Bounded: an answer far below 1 MB.
        let bytes = (first.structuredContent?.serialized().utf8.count ?? 0) + first.text.utf8.count
        #expect(bytes < 300_000)
    }

    @Test func theLargestPageStaysWithinTheTokenCeiling() async throws {
        let result = try await call(
            "get_report",
            [
                ("counter_ids", ints([1004])), ("from", .string("2026-11-02")), ("to", .string("2026-11-02")),
                ("dimensions", strings(["searchPhrase"])), ("limit", .number(Double(GetReportTool.maximumLimit))),
                (
                    "metrics",
                    strings([
                        "visits", "pageviews", "users", "newUsers", "pageDepth", "avgVisitDuration", "bounceRate",
                        "percentNewVisitors", "robotPercentage"
                    ])
                )
            ])
        #expect(!result.isError, "\(result.text)")
        #expect(TokenBudget.tokens(result) <= TokenBudget.ceiling)
        // The rows the JSON could hold; the rest are reached by offset.
        let shown = result.structuredContent?["rows"]?.items.count ?? 0
        #expect(shown > 100 && shown <= GetReportTool.maximumLimit)
        #expect(result.structuredContent?["more"]?["offset"] == .number(Double(shown + 1)))
    }

    @Test func rowsBeyondTheByteBoundAreLeftForTheNextPage() throws {
        let json = OutputWriter()
        let table = OutputWriter()
        let window = ReportWindow(
            [ReportJSONSink(output: json), ReportTableSink(output: table, maxWidth: 120)], skip: 0, take: 1000,
            json: json, byteBudget: 2_000, progress: { _ in })
        let counter = Counter(id: 1, name: "A", site: "a.example")
        try window.begin(
            ReportLayout(
                dimensions: [MetrikaModel.Dimension.named("searchPhrase")!], metrics: [Metric.visits],
                period: try #require(DateRange(from: Day(iso: "2026-11-01")!, to: Day(iso: "2026-11-01")!)),
                grouping: nil, multipleCounters: false, raw: false))
        try window.beginSection(counter: counter, sampling: nil)
        try window.append(
            (1...200).map {
                Report.Row(
                    dimensions: [DimensionValue(name: "phrase \($0)")], values: [Quantity(Double($0), unit: .count)])
            })
        try window.endSection(totals: [Quantity(1, unit: .count)], missingDays: [])
        try window.end()
        #expect(window.cutByBytes)
        #expect(window.rowsSeen == 200)
        #expect(window.rowsShown > 0 && window.rowsShown < 200)
        let document = try BoundedJSONParser.parse(json.bytes).value
        #expect(document["rows"]?.items.count == window.rowsShown)
        #expect(json.byteCount < 2_000 + 600, "a row or two and the document's end beyond the bound")
    }

    /// get_report's document, built once, is `report --json`'s text of the same events as the
    /// structured view reads it, and its byte count is that text's length after every batch.
    @Test(arguments: [false, true])
    func theBuiltDocumentIsTheStructuredViewOfTheCLIText(timeSeries: Bool) throws {
        let json = OutputWriter()
        let cli = ReportJSONSink(output: json)
        let built = ReportDocumentSink()
        let sinks: [any ReportSink] = [cli, built]
        let days = (1...5).map { Day(iso: "2026-11-0\($0)")! }
        let period = try #require(DateRange(from: days[0], to: days[4]))
        let layout =
            timeSeries
            ? ReportLayout(
                dimensions: [], metrics: [Metric.visits, Metric.bounceRate], period: period, grouping: .day,
                multipleCounters: true, raw: false)
            : ReportLayout(
                dimensions: [MetrikaModel.Dimension.named("searchPhrase")!],
                metrics: [Metric.visits, Metric.bounceRate], period: period,
                grouping: nil, multipleCounters: false, raw: false)
        for sink in sinks { try sink.begin(layout) }
        #expect(built.byteCount == json.byteCount)
        let counters = [
            Counter(id: 1, name: "A \"quoted\"", site: "a.example"), Counter(id: 2, name: "Б", site: "b.example")
        ]
        for (index, counter) in counters.enumerated() {
            let sampling = index == 1 ? Sampling(isSampled: true, share: 0.25) : nil
            for sink in sinks { try sink.beginSection(counter: counter, sampling: sampling) }
            for batch in 0..<2 {
                let rows = days.enumerated().map { offset, day in
                    Report.Row(
                        dimensions: [DimensionValue(name: offset == 2 ? nil : "phrase \(batch)-\(offset)\n")],
                        values: [
                            Quantity(Double(offset * 7 + batch), unit: .count),
                            Quantity(offset == 1 ? nil : 12.345, unit: .percent)
                        ],
                        isIncomplete: timeSeries && offset == 4,
                        period: timeSeries ? DateRange(from: day, to: day) : nil)
                }
                for sink in sinks { try sink.append(rows) }
                #expect(built.byteCount == json.byteCount, "counter \(counter.id), batch \(batch)")
            }
            let missing = index == 0 ? [days[3]] : []
            for sink in sinks {
                try sink.endSection(
                    totals: [Quantity(70, unit: .count), Quantity(40, unit: .percent)], missingDays: missing)
            }
        }
        for sink in sinks { try sink.end() }
        let view = StructuredView.report(try BoundedJSONParser.parse(json.bytes).value)
        #expect(built.document.serialized(pretty: true) == view.serialized(pretty: true))
        #expect(built.document["query"] == nil && built.document["sampled"] == .bool(true))
    }

    @Test func aTimeSeriesIsPagedByTheAnswerNotTheAPI() async throws {
        let base: [(String, JSONValue)] = [
            ("counter_ids", ints([1001])), ("from", .string("2026-01-01")), ("to", .string("2026-10-31")),
            ("metrics", strings(["visits"]))
        ]
        let first = try await call("get_report", base + [("limit", .number(100))])
        let rows = first.structuredContent?["rows"]?.items ?? []
        #expect(rows.count == 100)
        #expect(first.structuredContent?["more"]?["offset"] == .number(101))
        #expect(first.structuredContent?["more"]?["rows_total"] == .number(304))
        let whole = try await call("get_report", base + [("limit", .number(400))])
        let next = try await call("get_report", base + [("limit", .number(100)), ("offset", .number(101))])
        #expect(next.structuredContent?["rows"]?.items.first == whole.structuredContent?["rows"]?.items[100])
        // The totals are the whole range's, whatever page is shown.
        #expect(first.structuredContent?["counters"] == whole.structuredContent?["counters"])
    }

    /// `lang` is declared once (ReportFields.lang): get_report takes it with no argument written
    /// for it, sends it to the API, and refuses a bad one naming `lang`.
    @Test func langReachesTheAPIFromItsOneDeclaration() async throws {
        let argument = try #require(GetReportTool.spec.arguments.first { $0.name == "lang" })
        #expect(argument.kind == .string && argument.choices == ["ru", "en"])
        let result = try await call(
            "get_report",
            [("counter_ids", ints([1005])), ("dimensions", strings(["trafficSource"])), ("lang", .string("ru"))])
        #expect(!result.isError, "\(result.text)")
        // This call's report (the suite's other tests ask 1005 too, on the same simulator).
        let queries = try Self.simulator.get().requestQueries(pathPrefix: "/stat/v1/data", counter: 1005).filter {
            $0.contains("dimensions=ym:s:trafficSource&")
        }
        #expect(!queries.isEmpty)
        #expect(queries.allSatisfy { $0.contains("lang=ru") }, "\(queries)")
        // The structured view leaves the query echo out: the model's own arguments (StructuredView).
        #expect(result.structuredContent?["query"] == nil)
        // A value outside the choices: refused by the schema's check, naming the argument.
        let german = try await call(
            "get_report",
            [("counter_ids", ints([1005])), ("dimensions", strings(["trafficSource"])), ("lang", .string("de"))])
        #expect(german.isError)
        #expect(german.text == "lang is 'de', which it does not take; send one of ru, en")
        // Where it changes nothing (a time series) it is ignored, not refused (issue 48): no call more.
        let series = try await call("get_report", [("counter_ids", ints([1005])), ("lang", .string("ru"))])
        #expect(!series.isError, "\(series.text)")
        #expect(series.structuredContent?["rows"]?.items.isEmpty == false)
    }

    /// Issue 48: a dimension report over a period holding today says it is not over yet, in the text
    /// and in the structured view's notes (time series had it; 17:00–23:00 read as zero without it).
    @Test func aDimensionReportHoldingTodaySaysItIsNotOverYet() async throws {
        let result = try await call(
            "get_report",
            [
                ("counter_ids", ints([1001])), ("period", .string("today")), ("dimensions", strings(["hour"])),
                ("metrics", strings(["visits"])), ("limit", .number(24))
            ])
        #expect(!result.isError, "\(result.text)")
        let note = "today is not over yet: the numbers are today's so far and will still change."
        #expect(result.text.contains(note), "\(result.text)")
        let notes = result.structuredContent?["notes"]?.items.compactMap(\.text) ?? []
        #expect(notes.contains(note), "\(notes)")
        let yesterday = try await call(
            "get_report",
            [
                ("counter_ids", ints([1001])), ("period", .string("yesterday")), ("dimensions", strings(["hour"])),
                ("metrics", strings(["visits"])), ("limit", .number(24))
            ])
        #expect(!yesterday.text.contains("not over yet"), "\(yesterday.text)")
    }

    /// Issue 48: numbers too large for a whole number are out of range, said so (they were "a number;
    /// send a whole number" and "a number; send a list"); list_metrics' description has no literal
    /// backslashes; one counter is "1 counter".
    @Test func hugeNumbersAreOutOfRangeAndOneCounterIsOne() async throws {
        let limit = try await call(
            "get_report",
            [("counter_ids", ints([1001])), ("dimensions", strings(["trafficSource"])), ("limit", .number(1e30))])
        #expect(limit.isError)
        #expect(
            limit.text.hasPrefix("limit is a whole number of more than 15 digits, out of range; send at most "),
            "\(limit.text)")
        // 99999999999999999999 as a client's JSON parser reads it.
        let ids = try await call("get_report", [("counter_ids", .array([.number(1e20)]))])
        #expect(ids.isError)
        #expect(
            ids.text.hasPrefix("counter_ids holds a whole number of more than 15 digits, out of range"), "\(ids.text)")
        #expect(!ListMetricsTool.spec.description.contains("\\"), "\(ListMetricsTool.spec.description)")
        let one = try await call("list_counters", [("search", .string("Ромашка"))])
        #expect(one.text.contains("1 counter in all."), "\(one.text)")
    }

    /// Issue 48 target 6: list_annotations reads the owner's chart annotations (1005's on 2026-11-29).
    @Test func listAnnotationsSaysTheOwnersNotes() async throws {
        let result = try await call("list_annotations", [("counter_id", .number(1005))])
        #expect(!result.isError, "\(result.text)")
        #expect(
            result.text
                == "annotation on Sun 2026-11-29 10:00: \"Новый шаблон сайта\" — Вёрстка и меню переделаны (group A)\n",
            "\(result.text)")
        let first = result.structuredContent?["annotations"]?.items.first
        #expect(first?["date"]?.text == "2026-11-29" && first?["group"]?.text == "A", "\(String(describing: first))")
        let none = try await call("list_annotations", [("counter_id", .number(1001))])
        #expect(none.text == "Counter 1001 has no chart annotations.\n")
    }

    /// Issue 48 target 6: get_report's answer over a period holding an annotated day has an `annotations`
    /// member and the line in its text; a period without one (or a counter without any) has neither.
    @Test func getReportCarriesThePeriodsAnnotations() async throws {
        let marked = try await call(
            "get_report",
            [
                ("counter_ids", ints([1005])), ("from", .string("2026-11-27")), ("to", .string("2026-11-29")),
                // lang=ru as langReachesTheAPIFromItsOneDeclaration expects of every 1005 request it sees.
                ("metrics", strings(["visits"])), ("lang", .string("ru"))
            ])
        #expect(!marked.isError, "\(marked.text)")
        #expect(marked.text.contains("annotation on Sun 2026-11-29: \"Новый шаблон сайта\"\n"), "\(marked.text)")
        let first = marked.structuredContent?["annotations"]?.items.first
        #expect(first?["date"]?.text == "2026-11-29" && first?["title"]?.text == "Новый шаблон сайта")
        let before = try await call(
            "get_report",
            [
                ("counter_ids", ints([1005])), ("from", .string("2026-11-20")), ("to", .string("2026-11-22")),
                // lang=ru as langReachesTheAPIFromItsOneDeclaration expects of every 1005 request it sees.
                ("metrics", strings(["visits"])), ("lang", .string("ru"))
            ])
        #expect(!before.isError && !before.text.contains("annotation"), "\(before.text)")
        #expect(before.structuredContent?["annotations"] == nil)
    }

    /// Issue 48 target 7: compare with today is today's finished hours (00:00–12:00 at 12:00 Moscow)
    /// against the same hours of the same weekday a week before, said in the table's title and in
    /// `previous.last_day_hours`; a dimension report compares the same hours.
    @Test func compareWithTodayIsTodaysFinishedHoursLikeForLike() async throws {
        let common: [(String, JSONValue)] = [
            ("counter_ids", ints([1001])), ("period", .string("today")), ("compare", .bool(true)),
            ("metrics", strings(["visits"]))
        ]
        for extra in [[], [("dimensions", strings(["trafficSource"]))]] {
            let result = try await compared("get_report", common + extra)
            #expect(!result.isError, "\(result.text)")
            #expect(result.text.contains("today 00:00–12:00 vs Mon 2026-11-23 00:00–12:00"), "\(result.text)")
            let previous = result.structuredContent?["counters"]?.items.first?["previous"]
            #expect(previous?["last_day_hours"]?.text == "00:00–12:00", "\(String(describing: previous))")
            #expect(previous?["from"]?.text == "2026-11-23")
        }
    }

    /// A week that ends today: its earlier days whole, its last day by today's finished hours against
    /// the same hours of the previous week's last day, in a time series and a dimension report alike;
    /// both agree on the compared totals.
    @Test func aWeekEndingTodayComparesItsLastDayByFinishedHours() async throws {
        let common: [(String, JSONValue)] = [
            ("counter_ids", ints([1001])), ("from", .string("2026-11-24")), ("to", .string("today")),
            ("compare", .bool(true)), ("metrics", strings(["visits"]))
        ]
        var totals: [[Double?]] = []
        for extra in [[], [("dimensions", strings(["trafficSource"]))]] {
            let result = try await compared("get_report", common + extra)
            #expect(!result.isError, "\(result.text)")
            #expect(
                result.text.contains("2026-11-24 … today 00:00–12:00 vs 2026-11-17 … Mon 2026-11-23 00:00–12:00"),
                "\(result.text)")
            let counter = result.structuredContent?["counters"]?.items.first
            let previous = counter?["previous"]
            #expect(previous?["last_day_hours"]?.text == "00:00–12:00", "\(String(describing: previous))")
            #expect(previous?["from"]?.text == "2026-11-17" && previous?["to"]?.text == "2026-11-23")
            totals.append([counter?["totals"]?["visits"]?.number, previous?["totals"]?["visits"]?.number])
        }
        #expect(totals.count == 2 && totals[0] == totals[1] && totals[0].allSatisfy { $0 != nil }, "\(totals)")
    }

    /// A refusal names the tool's arguments, never the CLI's options or commands (issue 36).
    @Test func refusalsNameArgumentsNotFlags() async throws {
        let grouped = try await call(
            "get_report",
            [
                ("counter_ids", ints([1001])), ("group", .string("week")),
                ("filters", .string("ym:s:trafficSource=='organic'"))
            ])
        #expect(grouped.isError)
        #expect(grouped.text == "group week with filters or accuracy is not supported yet; use group day")
        let future = try await call(
            "get_report",
            [("counter_ids", ints([1001])), ("from", .string("2030-01-01")), ("to", .string("2030-01-02"))])
        #expect(future.isError && future.text.hasPrefix("from 2030-01-01 is in the future for counter 1001 (today is "))
        let reversed = try await call(
            "get_report",
            [("counter_ids", ints([1001])), ("from", .string("2026-11-22")), ("to", .string("2026-11-20"))])
        #expect(reversed.text == "from 2026-11-22 is after to 2026-11-20: the range is reversed")
        let period = try await call("get_report", [("counter_ids", ints([1001])), ("period", .string("last99999days"))])
        #expect(
            period.text
                == "period 'last99999days': N of lastNdays must be from 1 to 36500 (a hundred years), e.g. last7days, last30days"
        )
        let sort = try await call("get_report", [("counter_ids", ints([1001])), ("sort", strings(["-visits"]))])
        #expect(
            sort.text
                == "sort applies to dimension reports (dimensions or preset); a time series is always in date order")
        for refusal in [grouped, future, reversed, period, sort] {
            #expect(!refusal.text.contains("--") && !refusal.text.contains("metrika "), "\(refusal.text)")
        }
    }

    @Test func failuresOfTheWorkAreErrorResultsWithTheCLISentence() async throws {
        // A counter the token cannot read: the API's refusal, in the tools' words (MCPFailureWords).
        let foreign = try await call(
            "get_report",
            [("counter_ids", ints([9999])), ("from", .string("2026-10-01")), ("to", .string("2026-10-02"))])
        #expect(foreign.isError)
        var expected = ""
        do { _ = try await services.client().fetchCounter(id: 9999) } catch {
            expected = MetrikaToolCatalogue.sentence(error)
        }
        #expect(!expected.isEmpty)
        #expect(foreign.text == expected)
        #expect(foreign.structuredContent == nil)
        // A bad date: DateExpression's sentence.
        let badDate = try await call("get_report", [("counter_ids", ints([1001])), ("from", .string("2026-13-45"))])
        #expect(badDate.isError)
        // Named as the argument (`from`), never as the CLI's option.
        #expect(
            badDate.text
                == "from '2026-13-45' is not a date: use YYYY-MM-DD (a real date), today, yesterday, NdaysAgo, NweeksAgo or NmonthsAgo (e.g. 6daysAgo, 2weeksAgo, 3monthsAgo)"
        )
        // An unknown metric, 21 metrics, a contradiction: ReportTerms' and ReportRequest's sentences.
        let metric = try await call("get_report", [("counter_ids", ints([1001])), ("metrics", strings(["visitz"]))])
        #expect(metric.isError && metric.text.hasPrefix("Unknown metric 'visitz'. Use one of"))
        let both = try await call(
            "get_report", [("counter_ids", ints([1001])), ("period", .string("lastWeek")), ("from", .string("today"))])
        // Worded with the arguments' names, never the CLI's options (issue 36).
        #expect(both.text == "period and from contradict each other: give a named period or dates, not both")
        let compare = try await call(
            "get_report",
            [("counter_ids", ints([1001])), ("preset", .string("sources_summary")), ("compare", .bool(true))])
        #expect(
            compare.isError
                && compare.text
                    == "compare works for time series and dimensions reports, not preset: name the dimensions and metrics to compare"
        )
        // Offline with nothing stored.
        let offline = try await call(
            "get_report",
            [
                ("counter_ids", ints([1001])), ("from", .string("2026-10-01")), ("to", .string("2026-10-02")),
                ("offline", .bool(true))
            ])
        #expect(offline.isError)
        var offlineSentence = ""
        let request = try ReportRequest(
            counterIDs: [1001], from: .absolute(Day(iso: "2026-10-01")!), to: .absolute(Day(iso: "2026-10-02")!),
            offline: true)
        do {
            try await HistoryReport(
                request: request, loader: try services.historyLoader(offline: true),
                activity: ToolActivity(now: services.now)
            ).run(into: ReportJSONSink(output: OutputWriter()))
        } catch let failure as any MetrikaFailure { offlineSentence = ParameterNaming.mcp.message(of: failure) }
        #expect(!offlineSentence.isEmpty)
        #expect(offline.text == offlineSentence)
    }

    @Test func aCancelledCallEndsWithCancellationNotAResult() async throws {
        let catalogue = self.catalogue
        let task = Task {
            try await catalogue.call(
                "get_report",
                arguments: [
                    ("counter_ids", ints([1004])), ("from", .string("2026-11-01")), ("to", .string("2026-11-07")),
                    ("dimensions", strings(["searchPhrase"])), ("limit", .number(Double(GetReportTool.maximumLimit)))
                ], activity: RecordedProgress())
        }
        task.cancel()
        let outcome = await task.result
        #expect(throws: CancellationError.self) { try outcome.get() }
    }

    @Test func theTokenNeverAppearsInAnAnswer() async throws {
        var leaky = services
        leaky.token = "revoked-token"
        let result = try await MetrikaToolCatalogue(services: leaky).call(
            "list_counters", arguments: [], activity: RecordedProgress())
        #expect(result.isError)
        #expect(!result.text.contains("revoked-token"))
        #expect(!result.text.isEmpty)
    }

    /// `compare` with `dimensions` (issue 39 item 5): each row with its value in the previous period
    /// and the change, from one comparison request; rows of one period only say new or gone. In the
    /// simulator counter 1002's 2026-10-05 has phrases 10-04 had not; 1003's 2026-10-01 lost some.
    @Test(arguments: [(1002, "2026-10-05", "2026-10-04", "new"), (1003, "2026-10-01", "2026-09-30", "gone")])
    func aDimensionReportComparesEachRowWithThePreviousPeriod(
        counter: Int, day: String, previous: String, presence expected: String
    ) async throws {
        let metrics = strings(["visits", "users"])
        let arguments: [(String, JSONValue)] = [
            ("counter_ids", ints([counter])), ("from", .string(day)), ("to", .string(day)),
            ("dimensions", strings(["searchPhrase"])), ("metrics", metrics), ("compare", .bool(true)),
            ("limit", .number(500))
        ]
        // Counted by this test's day: another test of the suite compares 1003's last week meanwhile.
        let before = try Self.comparing.get().requestCount(
            pathPrefix: "/stat/v1/data/comparison", counter: counter, containing: day)
        let result = try await compared("get_report", arguments)
        #expect(!result.isError, "\(result.text)")
        #expect(
            try Self.comparing.get().requestCount(
                pathPrefix: "/stat/v1/data/comparison", counter: counter, containing: day) - before
                == 1, "one comparison request")
        let structured = try #require(result.structuredContent)
        #expect(structured["counters"]?.items.first?["previous"] != nil, "the previous period's totals")
        #expect(structured["more"] == nil)
        let rows = structured["rows"]?.items ?? []
        try #require(!rows.isEmpty)
        // The previous day's own report, to check each row's "before" against.
        let previousDay = try await compared(
            "get_report",
            [
                ("counter_ids", ints([counter])), ("from", .string(previous)), ("to", .string(previous)),
                ("dimensions", strings(["searchPhrase"])), ("metrics", metrics), ("limit", .number(500))
            ])
        var previousVisits: [String: Double] = [:]
        for row in previousDay.structuredContent?["rows"]?.items ?? [] {
            if let visits = row["visits"]?.number { previousVisits[row["search_phrase"]?.text ?? "(not set)"] = visits }
        }
        var presences: [String: Int] = [:]
        for row in rows {
            let phrase = row["search_phrase"]?.text ?? "(not set)"
            let presence = try #require(row["presence"]?.text)
            presences[presence, default: 0] += 1
            let visits = row["visits"]?.number ?? 0
            let earlier = row["previous"]?["visits"]?.number ?? 0
            #expect(earlier == previousVisits[phrase] ?? 0, "\(phrase)")
            switch presence {
            case "new": #expect(earlier == 0 && visits > 0, "\(phrase)")
            case "gone": #expect(visits == 0 && earlier > 0, "\(phrase)")
            default:
                #expect(visits > 0 && earlier > 0, "\(phrase)")
                let change = try #require(row["change"]?["visits"]?.number)
                // The structured view's 4 decimals (StructuredView.compact).
                #expect(abs(change - (visits - earlier) / earlier * 100) <= 0.00005 + 1e-9)
            }
        }
        #expect(presences["both", default: 0] > 0 && presences[expected, default: 0] > 0, "\(presences)")
        // Every phrase of the previous day is a row: those of one day only are said so, not lost.
        let phrases = Set(rows.map { $0["search_phrase"]?.text ?? "(not set)" })
        let missing = Set(previousVisits.keys).subtracting(phrases)
        #expect(missing.isEmpty, "\(missing)")
        // Sorted by the period's visits, as the report without compare.
        let visits = rows.map { $0["visits"]?.number ?? 0 }
        #expect(visits == visits.sorted(by: >))
        // Totals: the API's for each period, users never summed.
        let section = try #require(structured["counters"]?.items.first)
        #expect(section["previous"]?["from"]?.text == previous)
        #expect(
            section["previous"]?["totals"]?["users"]?.number
                == previousDay.structuredContent?["counters"]?.items.first?["totals"]?["users"]?.number)
        // The table says it too (the previous day in its title; new and gone: ReportGoldenTests).
        #expect(result.text.contains("against \(previous) … \(previous)"), "\(result.text)")
        #expect(ToolWordsTests.cliWords(result.text).isEmpty, "\(result.text)")
    }

    /// A compared dimension report of two counters keeps each counter's previous totals; a cut answer
    /// continues by offset with the rows after it; the largest page stays within the token ceiling.
    @Test func aComparedReportOfTwoCountersIsPagedWithinTheBudget() async throws {
        let arguments: [(String, JSONValue)] = [
            ("counter_ids", ints([1001, 1003])), ("period", .string("lastWeek")),
            ("dimensions", strings(["searchPhrase"])), ("metrics", strings(["visits"])), ("compare", .bool(true))
        ]
        let first = try await compared("get_report", arguments + [("limit", .number(5))])
        #expect(!first.isError, "\(first.text)")
        let structured = try #require(first.structuredContent)
        let sections = structured["counters"]?.items ?? []
        #expect(
            sections.count == 2 && sections.allSatisfy { $0["previous"]?["totals"]?["visits"]?.number != nil },
            "\(sections)")
        let more = try #require(structured["more"])
        #expect(more["offset"]?.number == 6)
        let next = try await compared("get_report", arguments + [("limit", .number(5)), ("offset", .number(6))])
        let whole = try await compared("get_report", arguments + [("limit", .number(10))])
        func phrases(_ result: MCPToolResult, counter: Double) -> [String] {
            (result.structuredContent?["rows"]?.items ?? []).filter { $0["counter_id"]?.number == counter }.map {
                $0["search_phrase"]?.text ?? "(not set)"
            }
        }
        #expect(phrases(first, counter: 1001) + phrases(next, counter: 1001) == phrases(whole, counter: 1001))
        // The largest page: 500 rows of a month's phrases, compared.
        let largest = try await compared(
            "get_report",
            [
                ("counter_ids", ints([1001])), ("period", .string("lastMonth")),
                ("dimensions", strings(["searchPhrase"])),
                ("compare", .bool(true)), ("limit", .number(500))
            ])
        #expect(!largest.isError, "\(largest.text)")
        #expect(TokenBudget.tokens(largest) <= TokenBudget.ceiling, "\(TokenBudget.tokens(largest))")
        #expect(largest.structuredContent?["more"] != nil)
    }

    /// `hour` (`ym:s:hour`) is a dimension get_report takes by its short name and list_metrics lists
    /// (issue 39 item 4), beside the date periods.
    @Test func hourIsADimensionByItsShortName() async throws {
        let result = try await call(
            "get_report",
            [
                ("counter_ids", ints([1001])), ("period", .string("yesterday")), ("dimensions", strings(["hour"])),
                ("metrics", strings(["visits"])), ("limit", .number(24))
            ])
        #expect(!result.isError, "\(result.text)")
        let rows = result.structuredContent?["rows"]?.items ?? []
        #expect(rows.count == 24)
        #expect(Set(rows.compactMap { $0["hour"]?.text }) == Set((0..<24).map { ($0 < 10 ? "0" : "") + "\($0):00" }))
        #expect(result.structuredContent?["columns"]?.items.first?["api_name"]?.text == "ym:s:hour")
        let catalogue = ListMetricsTool.run()
        let names = (catalogue.structuredContent?["dimensions"]?.items ?? []).compactMap { $0["name"]?.text }
        #expect(names.contains("hour") && names.contains("datePeriodweek"), "\(names)")
    }

    @Test func listCountersIsWhatCountersKnowsWithServerTextAsData() async throws {
        let result = try await call("list_counters", [])
        let counters = result.structuredContent?["counters"]?.items ?? []
        let ids = counters.compactMap { $0["id"]?.number }.map(Int.init)
        let listed = try await services.client().fetchCounterList().counters
        #expect(ids == listed.map(\.id))
        let script = try #require(counters.first { $0["id"] == .number(1002) })
        #expect(
            script["name"] == .string("<script>alert(\"x\") </script> & Co")
                || script["name"]?.text?.hasPrefix("<script>") == true)
        #expect(script["time_zone"] == .string("Asia/Yekaterinburg"))
        #expect(script["permission"] == .string("edit"))
        #expect(script["currency"] == .null)
        // The members of `metrika counters --json`, in its order, plus the currency (one renderer: CounterListing).
        guard case .object(let members) = script else {
            Issue.record("not an object: \(script)")
            return
        }
        #expect(
            members.map(\.0) == ["id", "name", "site", "status", "permission", "owner_login", "time_zone", "currency"])
        let searched = try await call("list_counters", [("search", .string("Ромашка"))])
        #expect(searched.structuredContent?["counters"]?.items.compactMap { $0["id"]?.number } == [1001])
    }

    @Test func aLongCounterListIsPagedWithItsCount() async throws {
        let services = TestServices(try Self.many.get(), database: folder.path + "/many.sqlite", now: Self.now)
        let catalogue = MetrikaToolCatalogue(services: services)
        let result = try await catalogue.call("list_counters", arguments: [], activity: RecordedProgress())
        #expect(result.structuredContent?["counters"]?.items.count == ListCountersTool.defaultLimit)
        #expect(result.structuredContent?["total"] == .number(2_601))
        let next = ListCountersTool.defaultLimit + 1
        #expect(result.structuredContent?["more"]?["offset"] == .number(Double(next)))
        #expect(result.structuredContent?["more"]?["rows_total"] == .number(2_601))
        #expect(
            result.text.contains(
                "Showing counters 1–\(next - 1) of 2 601; call list_counters again with offset \(next) for the next, or narrow the list with search."
            ))
        let second = try await catalogue.call(
            "list_counters", arguments: [("offset", .number(Double(next))), ("limit", .number(2))],
            activity: RecordedProgress())
        let firstIDs = result.structuredContent?["counters"]?.items.compactMap { $0["id"]?.number } ?? []
        let secondIDs = second.structuredContent?["counters"]?.items.compactMap { $0["id"]?.number } ?? []
        #expect(secondIDs.count == 2 && !firstIDs.contains(secondIDs[0]))
        let last = try await catalogue.call(
            "list_counters", arguments: [("offset", .number(2_601))], activity: RecordedProgress())
        #expect(last.structuredContent?["counters"]?.items.count == 1 && last.structuredContent?["more"] == nil)
        #expect(last.text.contains("2 601 counters in all."))
    }

    @Test func listGoalsIsWhatGoalsShows() async throws {
        let result = try await call("list_goals", [("counter_id", .number(1001))])
        let goals = result.structuredContent?["goals"]?.items ?? []
        #expect(goals.compactMap { $0["id"]?.number } == [4001, 4002])
        #expect(goals.first?["name"] == .string("Оформление заказа"))
        #expect(result.text.contains("Оформление заказа"))
        let foreign = try await call("list_goals", [("counter_id", .number(9999))])
        #expect(foreign.isError)
    }
}
