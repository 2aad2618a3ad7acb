import MetrikaModel
import Testing

@Suite struct AggregatorTests {
    /// Three days of a week. Hand-computed period values:
    /// visits 100+50+0 = 150; pageviews 250+200+0 = 450; page depth 450/150 = 3;
    /// time on site (60·100 + 120·50)/150 = 80 s; bounce rate (20·100 + 40·50)/150 = 80/3 %;
    /// users: never 80+45+0 = 125.
    let metrics = Metric.everyday // pageviews, visits, users, page depth, time on site, bounce rate
    let days: [[Double?]] = [
        [250, 100, 80, 2.5, 60, 20],
        [200, 50, 45, 4, 120, 40],
        [0, 0, 0, nil, nil, nil] // no visits: ratios are null and contribute nothing
    ]

    @Test func weightedByVisits() {
        let result = Aggregator.aggregate(metrics: metrics, rows: days)
        #expect(result == [450, 150, nil, 3, 80, 80.0 / 3.0])
    }

    @Test func usersComeOnlyFromThePeriodTotal() {
        let result = Aggregator.aggregate(metrics: metrics, rows: days, periodTotals: ["ym:s:users": 110])
        #expect(result[2] == 110)
        // Totals of other metrics do not override what days give.
        #expect(Aggregator.aggregate(metrics: metrics, rows: days, periodTotals: ["ym:s:visits": 1])[1] == 150)
    }

    @Test func aSingleDayIsItsOwnTotal() {
        #expect(Aggregator.aggregate(metrics: metrics, rows: [days[1]]) == [200, 50, 45, 4, 120, 40])
    }

    /// A single day keeps the API's digits: 26.08695652 × 23 ÷ 23 would be 26.086956519999998, and
    /// 31 ÷ 23 pageviews per visit 1.3478260869565217 for the 1.34782609 the API sent.
    @Test func aSingleDayKeepsTheAPIsDigits() {
        let day: [Double?] = [31, 23, 20, 1.34782609, 182.664, 26.08695652]
        let result = Aggregator.aggregate(metrics: metrics, rows: [day])
        #expect(result == day)
        #expect(
            result.map { $0.map(DecimalText.shortest) } == ["31", "23", "20", "1.34782609", "182.664", "26.08695652"])
    }

    @Test func pageDepthWithoutPageviewsIsWeightedByVisits() {
        // (2.5·100 + 4·50) / 150 = 450/150 = 3
        let rows = days.map { [$0[1], $0[3]] }
        #expect(Aggregator.aggregate(metrics: [.visits, .pageDepth], rows: rows) == [150, 3])
    }

    @Test func weightedMetricsNeedVisits() {
        let rows = days.map { [$0[0], $0[5], $0[3]] }
        #expect(Aggregator.aggregate(metrics: [.pageviews, .bounceRate, .pageDepth], rows: rows) == [450, nil, nil])
    }

    @Test func unknownStaysUnknown() {
        // Unknown visits on one day: the sum of visits and every weighted value are unknown.
        var rows = days
        rows[1][1] = nil
        #expect(Aggregator.aggregate(metrics: metrics, rows: rows) == [450, nil, nil, nil, nil, nil])
        // A null ratio on a day with visits: that ratio is unknown, the others stand.
        rows = days
        rows[0][5] = nil
        #expect(Aggregator.aggregate(metrics: metrics, rows: rows) == [450, 150, nil, 3, 80, nil])
    }

    @Test func noVisitsNoRatios() {
        let rows: [[Double?]] = [[0, 0, 0, nil, nil, nil], [0, 0, 0, 0, 0, 0]]
        #expect(Aggregator.aggregate(metrics: metrics, rows: rows) == [0, 0, nil, nil, nil, nil])
        #expect(Aggregator.aggregate(metrics: metrics, rows: []) == [nil, nil, nil, nil, nil, nil])
    }

    @Test func goalConversionIsVisitWeighted() throws {
        let goal = try #require(Metric.named("goal7conversionRate"))
        let reaches = try #require(Metric.named("goal7reaches"))
        // (10·200 + 2.5·600)/800 = 3500/800 = 4.375 %; reaches 20 + 15 = 35.
        let rows: [[Double?]] = [[200, 10, 20], [600, 2.5, 15]]
        #expect(Aggregator.aggregate(metrics: [.visits, goal, reaches], rows: rows) == [800, 4.375, 35])
    }
}
