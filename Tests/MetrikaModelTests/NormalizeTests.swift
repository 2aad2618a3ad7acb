import Testing

@testable import MetrikaModel

struct NormalizeTests {
    @Test(arguments: [
        (0.0, "00:00"), (59.4, "00:59"), (59.5, "01:00"), (60, "01:00"), (182.664, "03:03"),
        (3599.4, "59:59"), (3599.5, "1:00:00"), (3600, "1:00:00"), (86399, "23:59:59"), (90061, "25:01:01")
    ])
    func durations(seconds: Double, text: String) {
        #expect(ValueFormatter.format(Quantity(seconds, unit: .seconds), grouping: false, missing: "") == text)
    }

    @Test(arguments: [
        (0.0, "0.0%"), (17.7786, "17.8%"), (100, "100.0%"), (17.75, "17.8%"), (17.74, "17.7%"), (0.05, "0.1%")
    ])
    func percentsStayPercents(value: Double, text: String) {
        let quantity = Normalizer.quantity(value, of: .bounceRate)
        #expect(quantity.unit == .percent)
        #expect(ValueFormatter.format(quantity, grouping: false, missing: "") == text)
    }

    @Test func fractionsBecomePercentsExactlyOnce() {
        let quantity = Normalizer.quantity(0.1778, of: .bounceRate, percentScale: .fraction)
        #expect(ValueFormatter.format(quantity, grouping: false, missing: "") == "17.8%")
        // A percent that arrives as a percent is never multiplied again.
        #expect(
            ValueFormatter.format(Normalizer.quantity(17.78, of: .bounceRate), grouping: false, missing: "") == "17.8%")
    }

    @Test func nullsAreMissingNotZero() {
        for metric in Metric.everyday {
            let quantity = Normalizer.quantity(nil, of: metric)
            #expect(ValueFormatter.format(quantity, grouping: true, missing: "—") == "—")
            #expect(ValueFormatter.format(quantity, grouping: false, missing: "") == "")
            #expect(ValueFormatter.raw(quantity.value) == "")
        }
    }

    @Test(arguments: [
        (0.0, false, "0"), (41.0, false, "41"), (12345.0, true, "12 345"), (1234567.5, true, "1 234 568"),
        (999.5, true, "1 000"), (1e21, true, "1 000 000 000 000 000 000 000")
    ])
    func counts(value: Double, grouping: Bool, text: String) {
        #expect(ValueFormatter.format(Quantity(value, unit: .count), grouping: grouping, missing: "") == text)
    }

    @Test(arguments: [(2.385, "2.39"), (2.384, "2.38"), (2.0, "2.00"), (0.005, "0.01"), (9.995, "10.00")])
    func pageDepthTwoDecimalsHalfUpOnTheDecimalValue(value: Double, text: String) {
        #expect(ValueFormatter.format(Quantity(value, unit: .pagesPerVisit), grouping: false, missing: "") == text)
    }

    @Test(arguments: [
        (182.664, "182.664"), (41.0, "41"), (17.7786, "17.7786"), (1e308, "1" + String(repeating: "0", count: 308)),
        (0.0001, "0.0001"), (-3.5, "-3.5"), (1.2345678901234568e29, "123456789012345680000000000000")
    ])
    func rawIsTheShortestExactDecimal(value: Double, text: String) {
        #expect(ValueFormatter.raw(value) == text)
    }

    @Test func dayArithmetic() throws {
        let day = try #require(Day(iso: "2024-02-28"))
        #expect(day.adding(days: 1).iso == "2024-02-29")
        #expect(day.adding(days: 2).iso == "2024-03-01")
        #expect(Day(iso: "2023-02-29") == nil)
        #expect(Day(iso: "2026-13-01") == nil)
        #expect(Day(iso: "26-11-01") == nil)
        #expect(Day(iso: "1970-01-01")?.ordinal == 0)
        #expect(Day(iso: "2026-11-29")?.weekday == 7) // a Sunday
        #expect(Day(iso: "2026-11-29")?.startOfWeek.iso == "2026-11-23")
        #expect(Day(iso: "2026-11-29")?.endOfMonth.iso == "2026-11-30")
    }

    @Test func weeksAndMonthsAreClippedToTheRange() throws {
        let range = try #require(DateRange(from: Day(iso: "2026-10-29")!, to: Day(iso: "2026-11-10")!))
        #expect(
            range.periods(.week).map(\.description) == [
                "2026-10-29…2026-11-01", "2026-11-02…2026-11-08", "2026-11-09…2026-11-10"
            ])
        #expect(range.periods(.month).map(\.description) == ["2026-10-29…2026-10-31", "2026-11-01…2026-11-10"])
        #expect(range.periods(.day).count == 13)
    }

    @Test func metricNames() {
        #expect(Metric.named("bounceRate")?.unit == .percent)
        #expect(Metric.named("ym:s:avgVisitDurationSeconds")?.unit == .seconds)
        #expect(Metric.named("goal42conversionRate")?.apiName == "ym:s:goal42conversionRate")
        #expect(Metric.named("goal42reaches")?.columnName == "goal42_reaches")
        #expect(Metric.named("ym:s:somethingNew")?.columnName == "something_new")
        #expect(Metric.named("bogus") == nil)
    }
}
