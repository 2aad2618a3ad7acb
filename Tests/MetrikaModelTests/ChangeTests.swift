import Testing

@testable import MetrikaModel

/// The period-over-period change shared by `report --compare` and `mail`.
struct ChangeTests {
    @Test func countsDurationsAndDepthChangeRelatively() {
        let visits = Change(from: Quantity(1000, unit: .count), to: Quantity(1052, unit: .count))
        #expect(visits.text(missing: "") == "+5.2%")
        #expect(visits.text() == "+5.2%")
        #expect(visits.number.map { abs($0 - 5.2) < 1e-9 } == true)
        #expect(Change(from: Quantity(200, unit: .seconds), to: Quantity(150, unit: .seconds)).text() == "-25.0%")
        // Page depth is relative like counts: 2.00 → 2.50 pages is +25%, not +0.5.
        #expect(
            Change(from: Quantity(2, unit: .pagesPerVisit), to: Quantity(2.5, unit: .pagesPerVisit)).text() == "+25.0%")
    }

    @Test func ratesChangeInPercentagePoints() {
        let bounce = Change(from: Quantity(20.0, unit: .percent), to: Quantity(19.1, unit: .percent))
        #expect(bounce.text() == "-0.9 pp")
        #expect(bounce.number.map { abs($0 + 0.9) < 1e-9 } == true)
        #expect(Change(from: Quantity(20, unit: .percent), to: Quantity(22, unit: .percent)).text() == "+2.0 pp")
        // From 0% a rate still has a change in points.
        #expect(Change(from: Quantity(0, unit: .percent), to: Quantity(3, unit: .percent)).text() == "+3.0 pp")
    }

    @Test func zeroPreviousHasNoPercent() {
        let change = Change(from: Quantity(0, unit: .count), to: Quantity(7, unit: .count))
        #expect(change == .fromZero)
        #expect(change.number == nil)
        #expect(!change.text().contains("%"))
        #expect(Change(from: Quantity(0, unit: .count), to: Quantity(0, unit: .count)).text() == "0.0%")
    }

    @Test func missingIsADashNeverZero() {
        for (before, now) in [(nil, 5.0), (5.0, nil), (nil, nil)] as [(Double?, Double?)] {
            let change = Change(from: Quantity(before, unit: .count), to: Quantity(now, unit: .count))
            #expect(change == .missing)
            #expect(change.text() == "—")
            #expect(change.number == nil)
        }
        #expect(Change(from: Quantity(nil, unit: .percent), to: Quantity(3, unit: .percent)).text(missing: "") == "")
    }

    @Test func aChangeThatRoundsToZeroHasNoSign() {
        #expect(Change(from: Quantity(100_000, unit: .count), to: Quantity(100_001, unit: .count)).text() == "0.0%")
        #expect(Change(from: Quantity(100_001, unit: .count), to: Quantity(100_000, unit: .count)).text() == "0.0%")
        #expect(Change(from: Quantity(20.02, unit: .percent), to: Quantity(20, unit: .percent)).text() == "0.0 pp")
    }
}
