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
        (.period(.thisWeek), "2026-11-23", "2026-11-29"),
    ])
    func windowsResolveForACountersToday(window: MailComposer.Window, from: String, to: String) throws {
        #expect(try MailComposer.current(window, today: day("2026-11-29"), counterID: 1) == days(from, to))
    }

    @Test func aWindowBefore2008IsAUsageError() {
        #expect(throws: UsageError.self) { try MailComposer.current(.last(days: 30), today: day("2008-01-15"), counterID: 1) }
        #expect(throws: UsageError.self) { try MailComposer.current(.period(.lastYear), today: day("2008-06-01"), counterID: 1) }
    }

    @Test func aNamedPeriodsSectionComparesWithTheWeekBefore() async throws {
        let database = try TemporaryDatabase()
        let api = RuleAPI()
        let activity = RecordedActivity()
        let loader = HistoryLoader(store: try HistoryStore(path: database.path), client: api.client(), now: { testNow }, unsettledDays: 2)
        let composer = MailComposer(loader: loader, rasterizer: FakeRasterizer(), activity: activity)
        let request = MailComposer.Request(counterIDs: [1001], window: .period(.lastWeek), metrics: [Metric.visits],
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
        #expect(Set(api.dataRequests.map { "\($0.query["date1"]!)…\($0.query["date2"]!)" }) == ["2026-11-16…2026-11-22", "2026-11-09…2026-11-15"])

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
        let loader = HistoryLoader(store: try HistoryStore(path: database.path), client: api.client(), now: { testNow }, unsettledDays: 2)
        let rasterizer = RecordingRasterizer()
        let composer = MailComposer(loader: loader, rasterizer: rasterizer, activity: RecordedActivity())
        let metrics = [Metric.visits, Metric.pageviews]
        let request = MailComposer.Request(counterIDs: [1001], window: .period(.lastWeek), metrics: metrics,
                                           sender: try MIMEAddress("m@example.com"), recipients: [try MIMEAddress("a@example.com")], subject: nil)
        let sections = try await composer.sections(request)
        let report = MailComposer.htmlSection(try #require(sections.first), metrics: metrics)
        let charts = [report.lineCharts(metrics: request.chartMetrics)]
        let images = try MailComposer.inlineImages(sections, charts: charts, seedTag: "t", rasterizer: rasterizer, activity: RecordedActivity())
        #expect(rasterizer.calls.count == 2 && rasterizer.calls.allSatisfy { $0.scale == 2 && $0.svg.contains("width=\"360\"") })
        #expect(images.map(\.mediaType) == ["image/png", "image/png"])
        let html = MailComposer.htmlText([report], charts: charts, images: images)
        for (index, metric) in metrics.enumerated() {
            let section = sections[0]
            let value = ValueFormatter.format(section.totals[index], grouping: true, missing: "—")
            let sentence = HTMLText.changeSentence(title: metric.title, value: value, change: Change(from: section.previousTotals[index], to: section.totals[index]))
            #expect(html.contains("<img src=\"cid:\(images[index].contentID ?? "-")\" alt=\"\(sentence)\" width=\"360\""), "\(sentence)")
        }
        let summary = try #require(html.range(of: ">Summary"))
        let table = try #require(html.range(of: ">By day<"))
        #expect(summary.lowerBound < table.lowerBound)
        #expect(!html.contains("<style") && !html.contains("<script"))
    }
}
