import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaStore
@testable import MetrikaSystem
@testable import MetrikaUseCases

/// The mail's window — the last N days or a named period — and the sections composed over it.
@Suite("Mail composer")
struct MailComposerTests {
    /// SVG in, a few fixed bytes out: no rsvg-convert needed.
    struct FakeRasterizer: ChartRasterizer {
        func png(fromSVG svg: Data, scale: Double) throws -> Data { Data([0x89, 0x50, 0x4E, 0x47]) }
    }

    /// 2026-11-29 is a Sunday.
    @Test(arguments: [
        (MailComposer.Window.last(days: 7), "2026-11-22", "2026-11-28"),
        (.last(days: 28), "2026-11-01", "2026-11-28"),
        (.period(.lastWeek), "2026-11-16", "2026-11-22"),
        (.period(.lastMonth), "2026-10-01", "2026-10-31"),
        (.period(.thisWeek), "2026-11-23", "2026-11-29")
    ])
    func windowsResolveForACountersToday(window: MailComposer.Window, from: String, to: String) throws {
        #expect(try MailComposer.current(window, today: day("2026-11-29"), counterID: 1) == days(from, to))
    }

    @Test func aWindowBefore2008IsAUsageError() {
        #expect(throws: ParameterError.self) {
            try MailComposer.current(.last(days: 30), today: day("2008-01-15"), counterID: 1)
        }
        #expect(throws: ParameterError.self) {
            try MailComposer.current(.period(.lastYear), today: day("2008-06-01"), counterID: 1)
        }
    }

    @Test func aNamedPeriodsSectionComparesWithTheWeekBefore() async throws {
        let database = try TemporaryDatabase()
        let api = RuleAPI()
        let activity = RecordedActivity()
        let loader = HistoryLoader(
            store: try await HistoryStore.open(path: database.path), client: api.client(), now: { testNow },
            unsettledDays: 2)
        let composer = MailComposer(loader: loader, rasterizer: FakeRasterizer(), activity: activity)
        let request = MailComposer.Request(
            counterIDs: [1001], window: .period(.lastWeek), metrics: [Metric.visits],
            sender: try MIMEAddress("m@example.com"), recipients: [try MIMEAddress("a@example.com")], subject: nil)
        let sections = try await composer.sections(request)
        try #require(sections.count == 1)
        #expect(sections[0].current == days("2026-11-16", "2026-11-22"))
        #expect(sections[0].previous == days("2026-11-09", "2026-11-15"))
        #expect(sections[0].rows.count == 7)
        let week = days("2026-11-16", "2026-11-22").days.reduce(0) { $0 + RuleAPI.value(0, $1) }
        #expect(sections[0].totals.first?.value == week)
        let before = days("2026-11-09", "2026-11-15").days.reduce(0) { $0 + RuleAPI.value(0, $1) }
        #expect(sections[0].previousTotals.first?.value == before)
        // The two windows were asked for, nothing else.
        #expect(
            Set(api.dataRequests.map { "\($0.query["date1"]!)…\($0.query["date2"]!)" }) == [
                "2026-11-16…2026-11-22", "2026-11-09…2026-11-15"
            ])

        let message = try await composer.compose(request)
        #expect(message.subject == "Metrika: Shop, 2026-11-16 – 2026-11-22")
    }

    /// Remembers what it was asked to draw.
    final class RecordingRasterizer: ChartRasterizer, @unchecked Sendable {
        var calls: [(svg: String, scale: Double)] = []
        func png(fromSVG svg: Data, scale: Double) throws -> Data {
            calls.append((String(decoding: svg, as: UTF8.self), scale))
            return Data([0x89, 0x50, 0x4E, 0x47])
        }
    }

    /// The HTML part is the shared report page: a summary before the table, one 2× PNG per chart
    /// metric drawn 360 px wide, each `<img>` pointing at its inline part with the chart's message as
    /// alt text, computed from the same totals as the summary.
    @Test func theHTMLPartShowsEachChartWithItsMessageAsAltText() async throws {
        let database = try TemporaryDatabase()
        let api = RuleAPI()
        let loader = HistoryLoader(
            store: try await HistoryStore.open(path: database.path), client: api.client(), now: { testNow },
            unsettledDays: 2)
        let rasterizer = RecordingRasterizer()
        let composer = MailComposer(loader: loader, rasterizer: rasterizer, activity: RecordedActivity())
        let metrics = [Metric.visits, Metric.pageviews]
        let request = MailComposer.Request(
            counterIDs: [1001], window: .period(.lastWeek), metrics: metrics,
            sender: try MIMEAddress("m@example.com"), recipients: [try MIMEAddress("a@example.com")], subject: nil)
        let sections = try await composer.sections(request)
        let report = MailReport.htmlSection(try #require(sections.first), metrics: metrics)
        let charts = [report.lineCharts(metrics: request.chartMetrics)]
        let images = try await MailComposer.inlineImages(
            sections, charts: charts, seedTag: "t", rasterizer: rasterizer, activity: RecordedActivity())
        #expect(
            rasterizer.calls.count == 2
                && rasterizer.calls.allSatisfy { $0.scale == 2 && $0.svg.contains("width=\"360\"") })
        #expect(images.map(\.mediaType) == ["image/png", "image/png"])
        let html = MailReport.htmlText([report], charts: charts, images: images)
        for (index, metric) in metrics.enumerated() {
            let section = sections[0]
            let value = ValueFormatter.format(section.totals[index], grouping: true, missing: "—")
            let sentence = HTMLText.changeSentence(
                title: metric.title, value: value,
                change: Change(from: section.previousTotals[index], to: section.totals[index]))
            #expect(
                html.contains("<img src=\"cid:\(images[index].contentID ?? "-")\" alt=\"\(sentence)\" width=\"360\""),
                "\(sentence)")
        }
        let summary = try #require(html.range(of: ">Summary"))
        let table = try #require(html.range(of: ">By day<"))
        #expect(summary.lowerBound < table.lowerBound)
        #expect(!html.contains("<style") && !html.contains("<script"))
    }

    // MARK: - Long windows and Gmail's clip

    /// The text of a message's `text/<subtype>` part, and its attachments.
    static func text(_ part: MIMEPart, subtype: String) -> String? {
        switch part.content {
        case .text(let text, let kind): return kind == subtype ? text : nil
        case .binary: return nil
        case .multipart(_, let parts): return parts.lazy.compactMap { text($0, subtype: subtype) }.first
        }
    }

    static func attachments(_ part: MIMEPart) -> [(name: String, data: Data)] {
        switch part.content {
        case .text: return []
        case .binary(let data, _): return part.disposition == .attachment ? [(part.filename ?? "", data)] : []
        case .multipart(_, let parts): return parts.flatMap { attachments($0) }
        }
    }

    static func request(_ ids: [Int], _ window: MailComposer.Window, metrics: [Metric]? = nil) throws
        -> MailComposer.Request
    {
        MailComposer.Request(
            counterIDs: ids, window: window, metrics: metrics, sender: try MIMEAddress("m@example.com"),
            recipients: [try MIMEAddress("a@example.com")], subject: nil)
    }

    @Test(arguments: [
        (7, Grouping.day), (35, .day), (36, .week), (90, .week), (182, .week), (183, .month), (366, .month)
    ])
    func theTableIsGroupedByTheWindowsLength(days: Int, grouping: Grouping) {
        #expect(MailComposer.tableGrouping(days: days) == grouping)
    }

    /// A quarter's mail has a row per week — the rows `metrika report --group week --offline` prints
    /// for the same days from the history the mail filled: users of each week from the API's total
    /// for that week (never a sum of days), the first and last week cut to the window — in the text
    /// part as in the HTML; the charts stay daily.
    @Test func aQuartersMailHasTheWeeklyRowsOfReportGroupWeek() async throws {
        let database = try TemporaryDatabase()
        let api = RuleAPI()
        let loader = HistoryLoader(
            store: try await HistoryStore.open(path: database.path), client: api.client(), now: { testNow },
            unsettledDays: 2)
        let composer = MailComposer(loader: loader, rasterizer: FakeRasterizer(), activity: RecordedActivity())
        // The everyday metrics, visits first: RuleAPI answers by a metric's place in the query, and the
        // chart's load (visits, pageviews) refetches yesterday, which must not swap the two.
        let metrics = [Metric.visits, .pageviews, .users, .pageDepth, .avgVisitDuration, .bounceRate]
        let message = try await composer.compose(try Self.request([1001], .last(days: 90), metrics: metrics))
        let text = try #require(Self.text(message.body, subtype: "plain"))
        let html = try #require(Self.text(message.body, subtype: "html"))

        let window = try MailComposer.current(.last(days: 90), today: day("2026-11-29"), counterID: 1001)
        #expect(window == days("2026-08-31", "2026-11-28"))
        let offline = HistoryLoader(
            store: try await HistoryStore.open(path: database.path), client: nil, now: { testNow }, unsettledDays: 2)
        let report = try ReportRequest(
            counterIDs: [1001], from: .absolute(window.from), to: .absolute(window.to), grouping: .week,
            metrics: metrics, offline: true)
        let memory = OutputWriter()
        try await HistoryReport(request: report, loader: offline, activity: RecordedActivity()).run(
            into: ReportTableSink(output: memory, maxWidth: nil))
        let table = memory.text
        #expect(table.contains("Week of") && table.split(separator: "\n").count > 13)
        #expect(
            text.hasPrefix(table),
            "the mail's table differs from report --group week:\n\(text.prefix(2000))\n---\n\(table)")
        // Users of the first week (31 Aug – 6 Sep) are the API's week total, not the sum of its days.
        #expect(table.contains("2026-08-31") && table.contains(" 100 831 "), "\(table)")
        #expect(!table.contains("—"), "every week's users known offline: \(table)")
        // The last week is cut to the window: 23–28 Nov, six days.
        #expect(
            html.contains(
                ">23–28\u{00A0}Nov<br><span style=\"font-size:12px;color:#5F5F5F\">6\u{00A0}days</span></th>"),
            "\(html.prefix(500))")
        #expect(html.contains(">By week<") && !html.contains(">By day<"))
        #expect(html.contains("The charts are by day"))
    }

    /// The HTML part stays under Gmail's clip (102 KB; metrika keeps 100 000 bytes) for many counters
    /// and long windows, with every counter's summary and chart; a counter whose table gave way says
    /// where it is, and has it attached as CSV. Tables give way from the last counter up, then (40
    /// counters) summary cards become one line, from the last counter up too.
    @Test(arguments: [
        (3, MailComposer.Window.last(days: 90)), (20, .last(days: 30)), (40, .last(days: 30)), (6, .last(days: 366)),
        (2, .period(.lastYear))
    ])
    func theHTMLPartStaysUnderGmailsClipWithEveryCounter(counters: Int, window: MailComposer.Window) async throws {
        let database = try TemporaryDatabase()
        let ids = (1...counters).map { 2000 + $0 }
        var bodies: [Int: String] = [:]
        for id in ids {
            bodies[id] = #"{"id":\#(id),"name":"Site \#(id)","site":"site-\#(id).example","time_zone_name":"UTC"}"#
        }
        let api = RuleAPI(counters: bodies)
        let loader = HistoryLoader(
            store: try await HistoryStore.open(path: database.path), client: api.client(), now: { testNow },
            unsettledDays: 2)
        let composer = MailComposer(loader: loader, rasterizer: FakeRasterizer(), activity: RecordedActivity())
        let message = try await composer.compose(try Self.request(ids, window))
        let html = try #require(Self.text(message.body, subtype: "html"))
        #expect(html.utf8.count <= 100_000, "\(counters) counters: \(html.utf8.count) bytes of HTML")
        let files = Self.attachments(message.body)
        var leftOut: [Bool] = []
        var compact: [Bool] = []
        for (index, id) in ids.enumerated() {
            let heading = ">Site \(id)</h1>"
            #expect(html.contains(heading), "counter \(id) is missing")
            #expect(html.contains("alt=\"Visits "), "charts")
            let start = try #require(html.range(of: heading))
            let end =
                index + 1 < ids.count
                ? try #require(html.range(of: ">Site \(ids[index + 1])</h1>")).lowerBound : html.endIndex
            // The text as a reader sees it: the note's no-wrap spans (file names, options, dates) left out.
            let part = html[start.upperBound..<end].replacingOccurrences(
                of: "<span style=\"white-space:nowrap\">", with: ""
            ).replacingOccurrences(of: "</span>", with: "")
            let hasTable = part.contains("<table")
            leftOut.append(!hasTable)
            #expect(part.contains("<img src=\"cid:"), "counter \(id) has no chart")
            #expect(part.contains(">Visits</div>") || part.contains("Visits <b>"), "counter \(id) has no summary")
            compact.append(part.contains("Visits <b>"))
            if !hasTable {
                let csv = try #require(
                    files.first { $0.name.hasPrefix("metrika-\(id)-") && $0.name.hasSuffix(".csv") }, "no CSV for \(id)"
                )
                #expect(
                    part.contains(csv.name) && part.contains("metrika report --counter \(id) --from "),
                    "\(part.suffix(600))")
                #expect(String(decoding: csv.data, as: UTF8.self).split(separator: "\n").count >= 4)
                // The attached CSV is what the line's `metrika report … --csv` writes (offline, from the
                // history the mail filled).
                let line = try #require(part.range(of: "metrika report --counter \(id) --from ")).upperBound
                let words = part[line...].split(separator: " ").prefix(5).map(String.init)
                try #require(words.count == 5 && words[1] == "--to" && words[3] == "--group", "\(words)")
                let grouping: Grouping = try #require(
                    Grouping(rawValue: words[4].trimmingCharacters(in: CharacterSet(charactersIn: "."))))
                let report = try ReportRequest(
                    counterIDs: [id], from: .absolute(day(words[0])), to: .absolute(day(words[2])),
                    grouping: grouping, offline: true)
                let memory = OutputWriter()
                let offline = HistoryLoader(
                    store: try await HistoryStore.open(path: database.path), client: nil, now: { testNow },
                    unsettledDays: 2)
                try await HistoryReport(request: report, loader: offline, activity: RecordedActivity()).run(
                    into: ReportCSVSink(output: memory))
                #expect(csv.data == Data(memory.text.utf8), "counter \(id): the CSV attached differs from report --csv")
            }
        }
        // A counter keeps its table unless every counter after it has lost its own.
        #expect(leftOut == leftOut.sorted { !$0 && $1 }, "\(leftOut)")
        #expect(compact == compact.sorted { !$0 && $1 }, "\(compact)")
        #expect(
            !compact.contains(true) || !leftOut.contains(false),
            "summaries are shortened only once every table gave way")
        #expect(counters < 40 ? !compact.contains(true) : compact.contains(true) && compact.first == false)
        if counters < 40 { #expect(leftOut.first == false, "the first counter keeps its table") }
    }

    /// When even summaries and charts alone would be clipped, nothing is sent: one line says how
    /// large it would be and what to do.
    @Test func tooManyCountersForOneMailIsAUsageError() async throws {
        let database = try TemporaryDatabase()
        let ids = (1...80).map { 3000 + $0 }
        var bodies: [Int: String] = [:]
        for id in ids {
            bodies[id] = #"{"id":\#(id),"name":"Site \#(id)","site":"site.example","time_zone_name":"UTC"}"#
        }
        let api = RuleAPI(counters: bodies)
        let loader = HistoryLoader(
            store: try await HistoryStore.open(path: database.path), client: api.client(), now: { testNow },
            unsettledDays: 2)
        let composer = MailComposer(loader: loader, rasterizer: FakeRasterizer(), activity: RecordedActivity())
        await #expect { try await composer.compose(try Self.request(ids, .last(days: 7))) } throws: { error in
            let message = (error as? ParameterError)?.message(cliNaming) ?? ""
            return message.contains("80 counters") && message.contains("split --counter over several mails")
        }
    }

    /// A left-out table's `metrika report` line reproduces it: chosen metrics and their currency too
    /// (it printed the six defaults in the counter's currency while the CSV held revenue in dollars).
    @Test func theReportLineOfALeftOutTableNamesItsMetricsAndCurrency() {
        let range = DateRange(from: Day(iso: "2026-09-01")!, to: Day(iso: "2026-11-28")!)!
        var section = MailComposer.Section(
            counter: Counter(id: 1001, name: "Shop", site: "s.example"), current: range, previous: range,
            metrics: Metric.everyday, grouping: .week, rows: [], dailyRows: [], totals: [], previousTotals: [],
            missingDays: [], svg: Data())
        #expect(
            MailReport.reportCommand(section)
                == "metrika report --counter 1001 --from 2026-09-01 --to 2026-11-28 --group week")
        section.metrics = [.visits, .purchases, Metric.revenue.inCurrency(Currency(code: "USD")!)]
        #expect(
            MailReport.reportCommand(section)
                == "metrika report --counter 1001 --from 2026-09-01 --to 2026-11-28 --group week --metrics visits,purchases,revenue --currency USD"
        )
    }
}
