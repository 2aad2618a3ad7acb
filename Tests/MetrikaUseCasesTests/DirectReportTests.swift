import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaUseCases

/// Reports straight from `/stat/v1/data`: paging, the validated limit, row widths, and several
/// counters that must not leave half a document behind.
@Suite("Direct report")
struct DirectReportTests {
    let api = RuleAPI()
    let activity = RecordedActivity()

    func request(
        ids: [Int] = [1001], from: String = "2026-11-01", to: String = "2026-11-10",
        dimensions: [MetrikaModel.Dimension] = [],
        metrics: [Metric]? = [Metric.visits], limit: Int? = nil, filters: String? = nil
    ) throws -> ReportRequest {
        try ReportRequest(
            counterIDs: ids, from: .absolute(day(from)), to: .absolute(day(to)), metrics: metrics,
            dimensions: dimensions,
            filters: filters, limit: limit)
    }

    @Test func aDimensionReportAsksForTheValidatedLimitAndSaysWhatWasLeftOut() async throws {
        api.dimensionRows = 40
        let sink = CollectingSink()
        try await DirectReport.run(
            request(dimensions: [MetrikaModel.Dimension.named("trafficSource")!], limit: 5), client: api.client(),
            activity: activity, into: sink, showsProgress: false)

        let data = api.dataRequests
        try #require(data.count == 1)
        #expect(data[0].query["limit"] == "5")
        #expect(data[0].query["offset"] == "1")
        #expect(data[0].query["dimensions"] == "ym:s:trafficSource")
        #expect(data[0].query["metrics"] == "ym:s:visits")
        #expect(
            sink.rows.map { $0.dimensions.first?.name } == ["source-1", "source-2", "source-3", "source-4", "source-5"])
        #expect(sink.rows.first?.values.first?.value == 1)
        #expect(sink.ended == 1)
        #expect(
            activity.notes.contains { $0.contains("showing the first 5 of 40 rows; use --limit 40 to see them all") },
            "\(activity.notes)")
    }

    @Test func aReportCanStartAtALaterRowAndSaysHowManyTheWholeReportHas() async throws {
        api.dimensionRows = 40
        let sink = CollectingSink()
        let total = try await DirectReport.run(
            request(dimensions: [MetrikaModel.Dimension.named("trafficSource")!], limit: 5), client: api.client(),
            activity: activity,
            into: sink, showsProgress: false, firstRow: 11, notesCut: false)
        #expect(total == 40)
        #expect(api.dataRequests.first?.query["offset"] == "11")
        #expect(api.dataRequests.first?.query["limit"] == "5")
        #expect(
            sink.rows.map { $0.dimensions.first?.name } == [
                "source-11", "source-12", "source-13", "source-14", "source-15"
            ])
        #expect(activity.notes.isEmpty, "the caller says how to continue: \(activity.notes)")
    }

    @Test func aTimeSeriesWithoutALimitIsNotCutAtTheDefault() async throws {
        let sink = CollectingSink()
        // 150 days: more than the default 100 rows, which a time series must not cut.
        try await DirectReport.run(
            request(from: "2026-06-01", to: "2026-10-28", filters: "ym:s:isRobot=='No'"), client: api.client(),
            activity: activity, into: sink, showsProgress: false)
        #expect(api.dataRequests.first?.query["limit"] == "150")
        #expect(api.dataRequests.first?.query["sort"] == "ym:s:date")
        #expect(sink.rows.count == 150)
        #expect(sink.rows.first?.period == days("2026-06-01", "2026-06-01"))
        #expect(sink.layouts.first?.grouping == .day)
        #expect(activity.notes.isEmpty, "\(activity.notes)")
    }

    @Test func aGivenLimitCutsATimeSeriesToo() async throws {
        let sink = CollectingSink()
        try await DirectReport.run(
            request(limit: 3, filters: "ym:s:isRobot=='No'"), client: api.client(), activity: activity, into: sink,
            showsProgress: false)
        #expect(api.dataRequests.first?.query["limit"] == "3")
        #expect(sink.rows.map { $0.dimensions.first?.name } == ["2026-11-01", "2026-11-02", "2026-11-03"])
    }

    @Test func aRowOfTheWrongWidthIsAnUnreadableAnswer() async throws {
        api.dimensionRows = 3
        api.valuesPerRowOverride = 2
        let sink = CollectingSink()
        do {
            try await DirectReport.run(
                request(dimensions: [MetrikaModel.Dimension.named("trafficSource")!]), client: api.client(),
                activity: activity, into: sink, showsProgress: false)
            Issue.record("a row with two values for one metric must be refused")
        } catch let error as DirectReport.MisfitRows {
            #expect(error.exitCode == ExitCode.dataError)
            let message = error.message(cliNaming)
            #expect(message.contains("2 metric values for 1 dimension and 1 metric"), "\(message)")
            #expect(message.hasPrefix(APIError.unreadable("").message.prefix(30)))
            #expect(message.contains("give --metrics and --dimensions"), "\(message)")
        }
        #expect(sink.rows.isEmpty)
    }

    @Test func aCounterWhoseDataIsRefusedLeavesNothingOfTheOthers() async throws {
        api.counters[1002] = #"{"id":1002,"name":"Blog","site":"blog.example","time_zone_name":"UTC"}"#
        api.refusedData = [1002]
        api.dimensionRows = 4
        let sink = CollectingSink()
        await #expect(throws: APIError.self) {
            try await DirectReport.run(
                request(ids: [1001, 1002], dimensions: [MetrikaModel.Dimension.named("trafficSource")!]),
                client: api.client(), activity: activity, into: sink, showsProgress: false)
        }
        // The first counter's rows were fetched, but held back: nothing reached the real sink.
        #expect(api.dataRequests.map { $0.query["ids"] } == ["1001", "1002"])
        #expect(sink.layouts.isEmpty)
        #expect(sink.rows.isEmpty)
        #expect(sink.ended == 0)
    }

    @Test func progressIsShownOnlyWhenAllowed() async throws {
        api.dimensionRows = 30
        try await DirectReport.run(
            request(dimensions: [MetrikaModel.Dimension.named("trafficSource")!], limit: 10), client: api.client(),
            activity: activity, into: CollectingSink(), showsProgress: true)
        #expect(activity.progressLines == ["Counter 1001: 10 of 10 rows"])
        let quiet = RecordedActivity()
        try await DirectReport.run(
            request(dimensions: [MetrikaModel.Dimension.named("trafficSource")!], limit: 10), client: api.client(),
            activity: quiet, into: CollectingSink(), showsProgress: false)
        #expect(quiet.progressLines.isEmpty)
    }
}
