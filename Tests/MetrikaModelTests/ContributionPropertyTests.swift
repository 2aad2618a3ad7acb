import Testing

@testable import MetrikaModel

/// An exact rational (Int128 numerator and denominator, reduced; overflow traps), so the property
/// test checks that the decomposition adds up exactly, not to within a rounding error.
struct Rational: ContributionArithmetic, CustomStringConvertible {
    let numerator: Int128
    let denominator: Int128

    init(_ numerator: Int128, _ denominator: Int128) {
        precondition(denominator != 0, "a rational needs a denominator")
        let sign: Int128 = denominator < 0 ? -1 : 1
        let divisor = Rational.gcd(numerator.magnitude, denominator.magnitude)
        self.numerator = sign * numerator / Int128(divisor)
        self.denominator = sign * denominator / Int128(divisor)
    }

    init(_ value: Int) { self.init(Int128(value), 1) }

    static var zero: Rational { Rational(0) }
    var doubleValue: Double { Double(numerator) / Double(denominator) }
    var description: String { "\(numerator)/\(denominator)" }

    static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return max(x, 1)
    }

    static func + (lhs: Rational, rhs: Rational) -> Rational {
        Rational(lhs.numerator * rhs.denominator + rhs.numerator * lhs.denominator, lhs.denominator * rhs.denominator)
    }
    static func - (lhs: Rational, rhs: Rational) -> Rational { lhs + Rational(-rhs.numerator, rhs.denominator) }
    static func * (lhs: Rational, rhs: Rational) -> Rational {
        Rational(lhs.numerator * rhs.numerator, lhs.denominator * rhs.denominator)
    }
    static func / (lhs: Rational, rhs: Rational) -> Rational {
        Rational(lhs.numerator * rhs.denominator, lhs.denominator * rhs.numerator)
    }
    static func < (lhs: Rational, rhs: Rational) -> Bool {
        lhs.numerator * rhs.denominator < rhs.numerator * lhs.denominator
    }
}

/// Issue 37: over random segment data the contributions always add up — for counts and for rates,
/// in exact arithmetic and in the displayed numbers.
struct ContributionPropertyTests {
    static let cases = 3_000

    @Test func countsAddUpExactly() {
        var random = SeededRandom(seed: 37_001)
        for _ in 0..<Self.cases {
            let count = Int.random(in: 1...12, using: &random)
            // Expected values are means of four weeks (quarters); some segments are new or gone.
            let segments = (0..<count).map { index in
                SegmentCount(
                    name: "s\(index)",
                    value: Int.random(in: 0...4, using: &random) == 0
                        ? .zero : Rational(Int.random(in: 0...5_000, using: &random)),
                    expected: Int.random(in: 0...4, using: &random) == 0
                        ? .zero : Rational(Int128(Int.random(in: 0...20_000, using: &random)), 4))
            }
            let shown = Int.random(in: 0...6, using: &random)
            var total: (value: Rational, expected: Rational)?
            if Bool.random(using: &random) {
                total = (
                    Rational.sum(segments.map(\.value)) + Rational(Int.random(in: 0...300, using: &random)),
                    Rational.sum(segments.map(\.expected)) + Rational(Int.random(in: 0...300, using: &random))
                )
            }
            let result = ContributionAnalysis.counts(segments, total: total, shown: shown)
            #expect(Rational.sum(result.segments.map(\.change)) == result.change)
            #expect(Rational.sum(result.segments.compactMap(\.value)) == result.value)
            #expect(Rational.sum(result.segments.compactMap(\.expected)) == result.expected)
            #expect(result.segments.filter { !$0.isOther }.count == min(shown, count))
            // At most 1 when the segments moved one way; opposite moves can make more of a small net change.
            #expect(result.concentration >= 0)
            let changes = segments.map { $0.value - $0.expected }
            if total == nil, changes.allSatisfy({ $0 >= .zero }) || changes.allSatisfy({ $0 <= .zero }) {
                #expect(result.concentration <= 1 + 1e-9)
            }
            if result.change != .zero {
                #expect(Rational.sum(result.segments.compactMap { result.share(of: $0) }) == Rational(1))
            }
        }
    }

    @Test func ratesAddUpExactly() throws {
        var random = SeededRandom(seed: 37_002)
        var decomposed = 0
        for _ in 0..<Self.cases {
            let count = Int.random(in: 1...6, using: &random)
            func parts() -> RatioParts<Rational> {
                let visits = Int.random(in: 0...3, using: &random) == 0 ? 0 : Int.random(in: 1...12, using: &random)
                return RatioParts(
                    numerator: Rational(Int.random(in: 0...visits, using: &random)), denominator: Rational(visits))
            }
            let segments = (0..<count).map { SegmentRatio(name: "s\($0)", value: parts(), expected: parts()) }
            let baseline = Rational.sum(segments.map(\.expected.denominator))
            let period = Rational.sum(segments.map(\.value.denominator))
            let result: ChangeDecomposition<Rational>
            do {
                result = try ContributionAnalysis.ratios(
                    segments, scale: Rational(100), shown: Int.random(in: 0...4, using: &random))
            } catch {
                #expect(error == (baseline == .zero ? .zeroBaseline : .emptyPeriod))
                #expect(baseline == .zero || period == .zero)
                continue
            }
            decomposed += 1
            let mix = try #require(result.mix)
            let rate = try #require(result.rate)
            #expect(mix + rate == result.change)
            #expect(Rational.sum(result.segments.map(\.change)) == result.change)
            #expect(Rational.sum(result.segments.compactMap(\.mix)) == mix)
            #expect(Rational.sum(result.segments.compactMap(\.rate)) == rate)
            for segment in result.segments {
                #expect(segment.mix.map { $0 + (segment.rate ?? .zero) } == segment.change)
            }
            // The totals are the rates of the sums.
            let numerators = Rational.sum(segments.map(\.value.numerator))
            #expect(result.value == numerators * Rational(100) / period)
        }
        #expect(decomposed > Self.cases / 2)
    }

    @Test func shownCountsAddUpToTheShownTotal() {
        var random = SeededRandom(seed: 37_003)
        for _ in 0..<Self.cases {
            let count = Int.random(in: 1...15, using: &random)
            let unit: MetricUnit = Bool.random(using: &random) ? .count : .money
            let segments = (0..<count).map { index in
                SegmentCount<Double>(
                    name: "s\(index)",
                    value: Double(Int.random(in: 0...2_000_000, using: &random)) / (unit == .money ? 100 : 1),
                    expected: Double(Int.random(in: 0...8_000_000, using: &random)) / (unit == .money ? 400 : 4))
            }
            let result = ContributionAnalysis.counts(segments, shown: Int.random(in: 0...8, using: &random))
            let shown = ContributionRounding.shown(result, unit: unit)
            #expect(shown.changes.reduce(0, +) == shown.change)
            // The shown total is the one number text of the exact change.
            let text = ValueFormatter.format(Quantity(abs(result.change), unit: unit), grouping: false, missing: "")
            #expect(shown.signedText(shown.change, grouping: false).trimmingSign == text)
            // Each shown change is its exact change rounded down or up.
            let scale = unit == .money ? 100.0 : 1
            for (segment, units) in zip(result.segments, shown.changes) {
                #expect(abs(Double(units) - segment.change * scale) < 1 + 1e-6)
            }
        }
    }

    @Test func shownRatesAddUpBothWays() throws {
        var random = SeededRandom(seed: 37_004)
        for _ in 0..<Self.cases {
            let unit: MetricUnit = [.percent, .pagesPerVisit, .seconds].randomElement(using: &random)!
            let perVisit = unit == .percent ? 1 : unit == .pagesPerVisit ? 6 : 900
            let segments = (0..<Int.random(in: 1...12, using: &random)).map { index in
                func parts() -> RatioParts<Double> {
                    let visits =
                        Int.random(in: 0...5, using: &random) == 0 ? 0 : Int.random(in: 1...50_000, using: &random)
                    return RatioParts(
                        numerator: Double(Int.random(in: 0...(visits * perVisit), using: &random)),
                        denominator: Double(visits))
                }
                return SegmentRatio(name: "s\(index)", value: parts(), expected: parts())
            }
            guard
                let result = try? ContributionAnalysis.ratios(
                    segments, scale: unit == .percent ? 100 : 1, shown: Int.random(in: 0...6, using: &random))
            else { continue }
            let shown = ContributionRounding.shown(result, unit: unit)
            let mixes = try #require(shown.mixes)
            let rates = try #require(shown.rates)
            #expect(shown.changes.reduce(0, +) == shown.change)
            #expect(shown.mix.map { $0 + (shown.rate ?? 0) } == shown.change)
            #expect(mixes.reduce(0, +) == shown.mix && rates.reduce(0, +) == shown.rate)
            #expect(zip(mixes, rates).map { $0 + $1 } == shown.changes)
            #expect(abs((result.mix ?? 0) + (result.rate ?? 0) - result.change) < 1e-9 * max(1, abs(result.change)))
        }
    }
}

extension String {
    fileprivate var trimmingSign: String { first == "+" || first == "-" ? String(dropFirst()) : self }
}
