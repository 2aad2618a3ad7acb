import Testing

@testable import MetrikaModel

/// The exact decomposition of a change over a dimension's segments (issue 37).
struct ContributionTests {
    static func sources() -> ChangeDecomposition<Double> {
        ContributionAnalysis.counts([
            SegmentCount(name: "Direct traffic", value: 460, expected: 500),
            SegmentCount(name: "Search engine traffic", value: 664, expected: 1000),
            SegmentCount(name: "Link traffic", value: 276, expected: 300)
        ])
    }

    @Test func countsRankByChangeAndAddUp() {
        let sources = Self.sources()
        #expect(sources.change == -400)
        #expect(sources.segments.map(\.name) == ["Search engine traffic", "Direct traffic", "Link traffic"])
        #expect(sources.segments.map(\.change) == [-336, -40, -24])
        #expect(sources.share(of: sources.segments[0]) == 0.84)
        #expect(sources.mix == nil)
    }

    @Test func theHeadlineNamesTheConcentratedDimension() {
        let sources = Self.sources()
        let devices = ContributionAnalysis.counts([
            SegmentCount(name: "PC", value: 778, expected: 1000),
            SegmentCount(name: "Smartphones", value: 622, expected: 800)
        ])
        let explained = [
            ExplainedDimension(
                plural: "devices", decomposition: devices, shown: ContributionRounding.shown(devices, unit: .count)),
            ExplainedDimension(
                plural: "sources", decomposition: sources, shown: ContributionRounding.shown(sources, unit: .count))
        ]
        #expect(devices.concentration < 0.01)
        #expect(ContributionHeadline.order(explained) == [1, 0])
        #expect(
            ContributionHeadline.sentence(metric: "visits", explained)
                == "-400 visits: Search engine traffic -336 (84%)")
        let even = [explained[0]]
        #expect(ContributionHeadline.sentence(metric: "visits", even) == "-400 visits: spread evenly across devices")
        #expect(ContributionHeadline.list(["sources", "devices", "regions"]) == "sources, devices and regions")
    }

    @Test func theTailIsOtherAndKeepsTheSumWithTheAPITotals() {
        let segments = (1...8).map {
            SegmentCount<Double>(name: "s\($0)", value: Double($0 * 10), expected: Double($0 * 12))
        }
        // The API's totals hold 50 and 40 more than the rows fetched (rows beyond the page).
        let result = ContributionAnalysis.counts(segments, total: (value: 410, expected: 472), shown: 3)
        #expect(result.segments.count == 4)
        let other = result.segments[3]
        #expect(other.isOther && other.folded == 5 && other.name == "Other")
        #expect(other.value == 410 - 80 - 70 - 60 && other.expected == 472 - 96 - 84 - 72)
        #expect(result.segments.reduce(0) { $0 + $1.change } == result.change)
    }

    @Test func newAndVanishedSegmentsAreFlagged() {
        let result = ContributionAnalysis.counts([
            SegmentCount(name: "Search engine traffic", value: 0, expected: 420),
            SegmentCount(name: "Messenger traffic", value: 12, expected: 0),
            SegmentCount(name: "Direct traffic", value: 300, expected: 300)
        ])
        #expect(result.segments.map(\.status) == [.vanished, .new, .continuing])
    }

    @Test func aZeroBaselineIsPlain() throws {
        // A count from nothing: the change is the value, shares are still defined.
        let counts = ContributionAnalysis.counts([SegmentCount<Double>(name: "PC", value: 7, expected: 0)])
        #expect(counts.change == 7 && counts.share(of: counts.segments[0]) == 1)
        // Nothing changed: no share to give, no division by zero.
        let flat = ContributionAnalysis.counts([SegmentCount<Double>(name: "PC", value: 0, expected: 0)])
        #expect(flat.share(of: flat.segments[0]) == nil && flat.concentration == 0)
        // A rate without a baseline visit, or without a visit in the period, is refused with the reason.
        let noBaseline = [
            SegmentRatio<Double>(name: "PC", value: RatioParts(numerator: 1, denominator: 4), expected: .zero)
        ]
        #expect(throws: ContributionError.zeroBaseline) { try ContributionAnalysis.ratios(noBaseline, scale: 100) }
        let empty = [SegmentRatio<Double>(name: "PC", value: .zero, expected: RatioParts(numerator: 1, denominator: 4))]
        #expect(throws: ContributionError.emptyPeriod) { try ContributionAnalysis.ratios(empty, scale: 100) }
    }

    @Test func nothingInTheBaselineIsSaidNotSpreadEvenly() {
        // A counter's first day, or a day without visits as the baseline: every segment is new.
        let counts = ContributionAnalysis.counts([
            SegmentCount<Double>(name: "PC", value: 700, expected: 0),
            SegmentCount<Double>(name: "Smartphones", value: 300, expected: 0)
        ])
        let explained = [
            ExplainedDimension(
                plural: "devices", decomposition: counts, shown: ContributionRounding.shown(counts, unit: .count))
        ]
        #expect(
            ContributionHeadline.sentence(metric: "visits", explained)
                == "+1 000 visits: nothing in the baseline to compare with, every segment is new")
    }

    @Test func floatingPointLeftoversAreNoOtherRow() {
        // Totals summed in another order than the rows: 4.5e-13 apart, which is no unlisted segment.
        let segments = [
            SegmentCount<Double>(name: "PC", value: 0.1 + 0.2, expected: 0.3),
            SegmentCount<Double>(name: "TV", value: 1, expected: 2)
        ]
        let result = ContributionAnalysis.counts(segments, total: (value: 1.3, expected: 2.3), shown: 5)
        #expect(result.segments.map(\.name) == ["TV", "PC"], "\(result.segments.map(\.name))")
        // A real remainder still is one.
        let cut = ContributionAnalysis.counts(segments, total: (value: 1.4, expected: 2.3), shown: 5)
        #expect(cut.segments.last?.isOther == true)
    }

    @Test func aRateSplitsIntoMixAndRate() throws {
        // Bounce rate: smartphones bounce more and grew from a third to two thirds of the visits, at
        // unchanged rates: all mix. Then the same shares with PC's rate up: all rate.
        let shift = try ContributionAnalysis.ratios(
            [
                SegmentRatio(
                    name: "PC", value: RatioParts(numerator: 20, denominator: 100),
                    expected: RatioParts(numerator: 40, denominator: 200)),
                SegmentRatio(
                    name: "Smartphones", value: RatioParts(numerator: 100, denominator: 200),
                    expected: RatioParts(numerator: 50, denominator: 100))
            ], scale: 100)
        #expect(abs(shift.expected - 30) < 1e-9 && abs(shift.value - 40) < 1e-9)
        #expect(abs((shift.mix ?? .nan) - 10) < 1e-9 && abs(shift.rate ?? .nan) < 1e-9)
        let rate = try ContributionAnalysis.ratios(
            [
                SegmentRatio(
                    name: "PC", value: RatioParts(numerator: 60, denominator: 200),
                    expected: RatioParts(numerator: 40, denominator: 200)),
                SegmentRatio(
                    name: "Smartphones", value: RatioParts(numerator: 50, denominator: 100),
                    expected: RatioParts(numerator: 50, denominator: 100))
            ], scale: 100)
        #expect(abs(rate.mix ?? .nan) < 1e-9)
        #expect(rate.segments.first?.name == "PC")
        let shown = ContributionRounding.shown(rate, unit: .percent)
        #expect(shown.signedText(shown.change) == "+6.7 pp")
        #expect(shown.changes == [67, 0] && shown.mix == 0 && shown.rate == 67)
    }

    @Test func aNewSegmentOfARateIsAllMix() throws {
        let result = try ContributionAnalysis.ratios(
            [
                SegmentRatio(
                    name: "PC", value: RatioParts(numerator: 20, denominator: 100),
                    expected: RatioParts(numerator: 20, denominator: 100)),
                SegmentRatio(name: "TV", value: RatioParts(numerator: 100, denominator: 100), expected: .zero)
            ], scale: 100)
        let tv = try #require(result.segments.first { $0.name == "TV" })
        #expect(tv.status == .new && tv.rate == 0 && tv.expected == nil && tv.value == 100)
        #expect(abs(result.change - 40) < 1e-9)
    }

    @Test func apportioningMeetsAnyTotal() {
        #expect(ContributionRounding.apportion([1.4, 1.4, 1.2], total: 4) == [2, 1, 1])
        #expect(ContributionRounding.apportion([-1.5, -2.5], total: -4) == [-1, -3])
        #expect(ContributionRounding.apportion([0.5, 0.5], total: -2).reduce(0, +) == -2)
        #expect(ContributionRounding.units(2.385, fractionDigits: 2) == 239)
        #expect(ContributionRounding.units(-0.04, fractionDigits: 1) == 0)
        #expect(ContributionRounding.signedText(-1336, fractionDigits: 0, unit: .count) == "-1 336")
        #expect(ContributionRounding.signedText(12, fractionDigits: 0, unit: .seconds) == "+0:12")
        #expect(ContributionRounding.signedText(25, fractionDigits: 2, unit: .pagesPerVisit) == "+0.25")
    }
}
