import MetrikaModel
import Testing

/// Money is summed as an exact decimal: a week or month of kopeck amounts totals a whole number of
/// kopecks, never `1743341.0099999998` (issue 32, item 8).
@Suite struct MoneySumTests {
    /// The text of `kopecks` as the JSON sink writes an exact amount: `1743341.01`, `12.5`, `7`.
    private func text(kopecks: Int64) -> String {
        DecimalText.shortest(Double(kopecks) / 100)
    }

    @Test func randomWeeksAndMonthsOfKopecksSumExactly() {
        var random = SeededRandom(seed: 32)
        let revenue = Metric.revenue.inCurrency(.rub)
        var noisyBefore = 0
        for trial in 0..<2_000 {
            let days = trial % 2 == 0 ? 7 : 31
            let kopecks = (0..<days).map { _ in Int64.random(in: 0..<40_000_000_00, using: &random) }
            let amounts = kopecks.map { Double($0) / 100 }
            let exact = kopecks.reduce(0, +)
            let summed = Aggregator.aggregate(metrics: [revenue], rows: amounts.map { [$0] })[0]
            #expect(summed.map(DecimalText.shortest) == text(kopecks: exact), "trial \(trial): \(amounts)")
            #expect(MoneySum.total(amounts) == Double(exact) / 100)
            if amounts.reduce(0, +) != Double(exact) / 100 { noisyBefore += 1 }
        }
        // The property is not vacuous: adding the doubles would have been wrong in many trials.
        #expect(noisyBefore > 100)
    }

    @Test func negativeAmountsAndRefundsStayExact() {
        var sum = MoneySum()
        sum.add(1743341.01)
        sum.subtract(0.1)
        sum.subtract(0.2)
        #expect(DecimalText.shortest(sum.value) == "1743340.71")
        #expect(MoneySum.total([0.1, 0.2]) == 0.3)
        #expect(MoneySum.total([]) == 0)
    }

    @Test func amountsBeyondTheIntegersFallBackToDoubles() {
        #expect(MoneySum.total([1e300, 1]) == 1e300)
        #expect(MoneySum.total([.infinity, 1]) == .infinity)
        // Whole kopecks past 2^53 millionths are still exact in hundredths.
        #expect(MoneySum.total([50_000_000_000.01, 50_000_000_000.02]) == 100_000_000_000.03)
    }

    @Test func aMonthOfRevenueAndItsAverageOrderValue() throws {
        let revenue = Metric.revenue.inCurrency(.rub)
        let rows: [[Double?]] = [[0.1, 1], [0.2, 1], [0.4, 1]]
        let values = Aggregator.aggregate(metrics: [revenue, .purchases], rows: rows)
        #expect(values[0] == 0.7)
    }
}
