/// One segment of a dimension (a traffic source, a device, a start page…) of a count metric
/// (visits, pageviews, a goal's reaches, revenue): its value in the period and in the baseline.
/// `expected` may be fractional: the alert's baseline is the mean of four earlier weekdays.
package struct SegmentCount<N: ContributionArithmetic>: Sendable {
    package let name: String
    package let value: N
    package let expected: N

    package init(name: String, value: N, expected: N) {
        self.name = name
        self.value = value
        self.expected = expected
    }
}

/// The two counts a rate is made of in one period: bounces / visits, a goal's reaches / visits,
/// pageviews / visits, seconds on the site / visits.
package struct RatioParts<N: ContributionArithmetic>: Sendable {
    package let numerator: N
    package let denominator: N

    package init(numerator: N, denominator: N) {
        self.numerator = numerator
        self.denominator = denominator
    }

    static var zero: RatioParts { RatioParts(numerator: .zero, denominator: .zero) }

    static func + (lhs: RatioParts, rhs: RatioParts) -> RatioParts {
        RatioParts(numerator: lhs.numerator + rhs.numerator, denominator: lhs.denominator + rhs.denominator)
    }

    /// The rate × `scale` (100 for a percent); nil without a denominator.
    func rate(scale: N) -> N? {
        denominator > .zero ? numerator * scale / denominator : nil
    }
}

/// One segment of a rate metric: its two counts in the period and in the baseline.
package struct SegmentRatio<N: ContributionArithmetic>: Sendable {
    package let name: String
    package let value: RatioParts<N>
    package let expected: RatioParts<N>

    package init(name: String, value: RatioParts<N>, expected: RatioParts<N>) {
        self.name = name
        self.value = value
        self.expected = expected
    }
}

/// Whether a segment exists in both periods.
package enum SegmentStatus: String, Sendable {
    case continuing
    /// Nothing in the baseline (no visits, for a rate), something in the period.
    case new
    /// Something in the baseline, nothing in the period.
    case vanished
}

/// What one segment (or the tail "Other") contributes to the total change.
package struct SegmentContribution<N: ContributionArithmetic>: Sendable {
    package let name: String
    /// How many segments the tail "Other" holds; 0 for a named segment.
    package let folded: Int
    /// The count, or the rate (nil: no visits in that period).
    package let value: N?
    package let expected: N?
    /// Its part of the total change: the segments' changes add up to the total change exactly.
    package let change: N
    /// A rate's change split: shares moving between segments (`mix`) and the rate moving inside the
    /// segment (`rate`); `mix + rate == change`. Nil for a count.
    package let mix: N?
    package let rate: N?
    package let status: SegmentStatus
    /// A rate's segment: its share of the visits (its weight, a fraction) in the period and in the
    /// baseline; nil for a count.
    package var weight: N? = nil
    package var expectedWeight: N? = nil
    /// The row is the overlap of a non-additive count (users counted in several segments): the
    /// total minus the segments' sum, not a segment.
    package var isOverlap = false

    package var isOther: Bool { folded > 0 }
}

/// A metric's change between a period and its baseline, split over the segments of one dimension.
///
/// The segments' `change`s add up to `change` exactly (in exact arithmetic; `ContributionRounding`
/// keeps the displayed numbers adding up as well). For a count a segment's change is its value minus
/// its expected value. For a rate R = Σn / Σd the change is split symmetrically (the Shapley value of
/// the two factors, weight w = d / Σd and rate r = n / d, each taken as the mean of both orders):
///
///     mix_i  = (w1_i − w0_i) × ((r0_i + r1_i) / 2 − (R0 + R1) / 2)
///     rate_i = (r1_i − r0_i) × (w0_i + w1_i) / 2
///
/// Σ(mix_i + rate_i) = Σ(w1_i r1_i − w0_i r0_i) = R1 − R0 with no residual; centring the mix on the
/// mean total rate changes no sum (Σ(w1 − w0) = 0) but gives a segment whose rate is the average no
/// mix effect however much it grew. A new segment (no baseline visits) takes its period rate as its
/// baseline rate, a vanished one its baseline rate as its period rate: all of its change is mix.
package struct ChangeDecomposition<N: ContributionArithmetic>: Sendable {
    /// The total in the period and in the baseline (a rate: the rates of the sums).
    package let value: N
    package let expected: N
    package let change: N
    /// Ranked by |change| (ties by name), the tail "Other" last when there is one.
    package let segments: [SegmentContribution<N>]
    /// A rate's change split into the mix and the rate effect (`mix + rate == change`); nil for a count.
    package let mix: N?
    package let rate: N?
    /// How unevenly the change falls on the segments: ½ Σ |change share − size share| over every
    /// segment (before the tail is folded), 0 when every segment moved in proportion to its size (a
    /// count's size: its expected value, or its value without a baseline; a rate's: its mean weight),
    /// towards 1 when a small segment made all of the change; above 1 when segments moved in opposite
    /// directions (a small net change of large moves). 0 when nothing changed.
    package let concentration: Double

    /// A segment's share of the total change (a fraction: 0.84 is 84 %); nil when the total did not
    /// change — there is nothing to share.
    package func share(of segment: SegmentContribution<N>) -> N? {
        change == .zero ? nil : segment.change / change
    }
}

/// Why a rate's change cannot be decomposed.
package enum ContributionError: Error, Equatable, Sendable {
    /// No visits (no denominator) in the baseline: there is no expected rate to compare with.
    case zeroBaseline
    /// No visits in the period: there is no rate to explain.
    case emptyPeriod
}

/// The exact decompositions of a change: pure arithmetic, no text (see `ContributionRounding`,
/// `ContributionHeadline`).
package enum ContributionAnalysis {
    /// A count metric's change over `segments`. With `total` (the API's totals), what the segments
    /// leave out (rows beyond the page, an undefined value) goes to "Other", so the segments still add
    /// up to the total. `shown` named segments are kept; the rest are folded into "Other".
    package static func counts<N>(
        _ segments: [SegmentCount<N>], total: (value: N, expected: N)? = nil, shown: Int = 5,
        otherName: String = "Other", overlapName: String? = nil
    ) -> ChangeDecomposition<N> {
        precondition(shown >= 0, "shown must not be negative")
        let value = total?.value ?? N.sum(segments.map(\.value))
        let expected = total?.expected ?? N.sum(segments.map(\.expected))
        let change = value - expected
        var all = segments.map { segment in
            SegmentContribution(
                name: segment.name, folded: 0, value: segment.value, expected: segment.expected,
                change: segment.value - segment.expected, mix: nil, rate: nil,
                status: status(expected: segment.expected, value: segment.value))
        }
        all.sort(by: ranked)
        let head = Array(all.prefix(shown))
        let tail = Array(all.dropFirst(shown))
        let restValue = value - N.sum(head.compactMap(\.value))
        let restExpected = expected - N.sum(head.compactMap(\.expected))
        var result = head
        // Floating point's leftovers (4.5e-13 of a sum taken in another order) are no segment: what the
        // listed rows leave out counts only when it is more than that.
        let tolerance = 1e-9 * max(1, abs(value.doubleValue) + abs(expected.doubleValue))
        let unlisted =
            abs((restValue - N.sum(tail.compactMap(\.value))).doubleValue) > tolerance
            || abs((restExpected - N.sum(tail.compactMap(\.expected))).doubleValue) > tolerance
        if let overlapName, unlisted {
            // A non-additive count (users): what the segments hold beyond the total is the overlap, its
            // own row; the tail is the tail.
            let tailValue = N.sum(tail.compactMap(\.value))
            let tailExpected = N.sum(tail.compactMap(\.expected))
            if !tail.isEmpty {
                result.append(
                    SegmentContribution(
                        name: otherName, folded: tail.count, value: tailValue, expected: tailExpected,
                        change: tailValue - tailExpected, mix: nil, rate: nil, status: .continuing))
            }
            var overlap = SegmentContribution(
                name: overlapName, folded: 0, value: restValue - tailValue, expected: restExpected - tailExpected,
                change: (restValue - tailValue) - (restExpected - tailExpected), mix: nil, rate: nil,
                status: .continuing)
            overlap.isOverlap = true
            result.append(overlap)
        } else if !tail.isEmpty || unlisted {
            result.append(
                SegmentContribution(
                    name: otherName, folded: max(1, tail.count), value: restValue, expected: restExpected,
                    change: restValue - restExpected, mix: nil, rate: nil, status: .continuing))
        }
        // Sizes for the concentration: expected values, or values when there is no baseline.
        let useValues = expected == .zero
        var parts = all.map {
            (change: $0.change.doubleValue, size: ((useValues ? $0.value : $0.expected) ?? .zero).doubleValue)
        }
        if unlisted, overlapName == nil {
            let missingValue = restValue - N.sum(tail.compactMap(\.value))
            let missingExpected = restExpected - N.sum(tail.compactMap(\.expected))
            parts.append(
                (
                    change: (missingValue - missingExpected).doubleValue,
                    size: (useValues ? missingValue : missingExpected).doubleValue
                ))
        }
        return ChangeDecomposition(
            value: value, expected: expected, change: change, segments: result, mix: nil, rate: nil,
            concentration: concentration(parts))
    }

    /// A rate metric's change over `segments` (their numerators and denominators add up to the
    /// totals: visits split by source do). `scale` turns a ratio into the metric (100 for a percent).
    package static func ratios<N>(
        _ segments: [SegmentRatio<N>], scale: N, shown: Int = 5, otherName: String = "Other"
    ) throws(ContributionError) -> ChangeDecomposition<N> {
        precondition(shown >= 0, "shown must not be negative")
        let period = segments.reduce(RatioParts<N>.zero) { $0 + $1.value }
        let baseline = segments.reduce(RatioParts<N>.zero) { $0 + $1.expected }
        guard let expected = baseline.rate(scale: scale) else { throw .zeroBaseline }
        guard let value = period.rate(scale: scale) else { throw .emptyPeriod }
        let meanTotal = (expected + value) / N(2)
        var all: [SegmentContribution<N>] = []
        var sizes: [Double] = []
        for segment in segments {
            let w0 = segment.expected.denominator / baseline.denominator
            let w1 = segment.value.denominator / period.denominator
            let r0 = segment.expected.rate(scale: scale)
            let r1 = segment.value.rate(scale: scale)
            // A segment without visits in one period takes the other period's rate there.
            let (mix, rate): (N, N)
            if let a = r0 ?? r1, let b = r1 ?? r0 {
                mix = (w1 - w0) * ((a + b) / N(2) - meanTotal)
                rate = (b - a) * (w0 + w1) / N(2)
            } else {
                (mix, rate) = (.zero, .zero)
            }
            sizes.append(((w0 + w1) / N(2)).doubleValue)
            let status: SegmentStatus =
                r0 == nil && r1 != nil ? .new : r0 != nil && r1 == nil ? .vanished : .continuing
            var contribution = SegmentContribution(
                name: segment.name, folded: 0, value: r1, expected: r0, change: mix + rate, mix: mix, rate: rate,
                status: status)
            contribution.weight = w1
            contribution.expectedWeight = w0
            all.append(contribution)
        }
        let order = Array(all.indices).sorted { ranked(all[$0], all[$1]) }
        let head = order.prefix(shown).map { all[$0] }
        let tailIndexes = Array(order.dropFirst(shown))
        var result = head
        if !tailIndexes.isEmpty {
            let periodTail = tailIndexes.reduce(RatioParts<N>.zero) { $0 + segments[$1].value }
            let baselineTail = tailIndexes.reduce(RatioParts<N>.zero) { $0 + segments[$1].expected }
            let mix = N.sum(tailIndexes.map { all[$0].mix ?? .zero })
            let rate = N.sum(tailIndexes.map { all[$0].rate ?? .zero })
            var other = SegmentContribution(
                name: otherName, folded: tailIndexes.count, value: periodTail.rate(scale: scale),
                expected: baselineTail.rate(scale: scale), change: mix + rate, mix: mix, rate: rate,
                status: .continuing)
            other.weight = periodTail.denominator / period.denominator
            other.expectedWeight = baselineTail.denominator / baseline.denominator
            result.append(other)
        }
        let parts = all.indices.map { (change: all[$0].change.doubleValue, size: sizes[$0]) }
        return ChangeDecomposition(
            value: value, expected: expected, change: value - expected, segments: result,
            mix: N.sum(all.map { $0.mix ?? .zero }), rate: N.sum(all.map { $0.rate ?? .zero }),
            concentration: concentration(parts))
    }

    static func status<N: ContributionArithmetic>(expected: N, value: N) -> SegmentStatus {
        if expected == .zero, value != .zero { return .new }
        if value == .zero, expected != .zero { return .vanished }
        return .continuing
    }

    /// Larger |change| first; ties by name, so the order is stable.
    static func ranked<N>(_ a: SegmentContribution<N>, _ b: SegmentContribution<N>) -> Bool {
        let x = a.change.magnitude
        let y = b.change.magnitude
        return x != y ? x > y : a.name < b.name
    }

    /// ½ Σ |change_i / Σchange − size_i / Σsize|; 0 without a change or without sizes.
    static func concentration(_ parts: [(change: Double, size: Double)]) -> Double {
        let change = parts.reduce(0) { $0 + $1.change }
        let size = parts.reduce(0) { $0 + $1.size }
        guard change != 0, size > 0, change.isFinite, size.isFinite else { return 0 }
        let sum = parts.reduce(0) { $0 + abs($1.change / change - $1.size / size) }
        return sum / 2
    }
}
