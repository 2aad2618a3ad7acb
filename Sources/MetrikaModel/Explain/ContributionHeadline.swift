/// One examined dimension of an explanation: its words and its decomposition, exact and shown.
package struct ExplainedDimension: Sendable {
    /// What its segments are called together in a sentence: `sources`, `devices`, `regions`.
    package let plural: String
    package let decomposition: ChangeDecomposition<Double>
    package let shown: ShownDecomposition

    package init(plural: String, decomposition: ChangeDecomposition<Double>, shown: ShownDecomposition) {
        self.plural = plural
        self.decomposition = decomposition
        self.shown = shown
    }
}

/// Which dimension concentrates a change, and the one sentence that says so:
/// `-400 visits: Search engine traffic -336 (84%)` (`(100%, gone)`
/// for a segment that vanished, `new` for one that appeared), or `-400 visits: spread evenly across sources,
/// devices and regions`.
///
/// The rule: a dimension concentrates the change as much as its `concentration` says (½ Σ |change
/// share − size share|: 0 when every segment moved in proportion to its size). The most concentrated
/// dimension comes first; its driver is its named segment with the largest shown change in the
/// direction of the total. Below `evenThreshold` in every dimension the change is spread evenly.
package enum ContributionHeadline {
    /// Below this concentration in every dimension, the change is "spread evenly". One source of
    /// 42 % of the visits falling to 0 scores 0.58; a bot wave doubling the smartphones' 42 % scores
    /// 0.58 too; the same drop in every segment scores 0 (plus a little noise).
    package static let evenThreshold = 0.25

    /// The dimensions' indexes, the most concentrated first. Ties (within 1e-9, what floating point
    /// leaves of equal sums) keep the given order: search engines refine traffic sources, so a drop of
    /// search traffic concentrates both equally, and the source given first is named.
    package static func order(_ dimensions: [ExplainedDimension]) -> [Int] {
        dimensions.indices.sorted { a, b in
            let x = dimensions[a].decomposition.concentration
            let y = dimensions[b].decomposition.concentration
            return abs(x - y) > 1e-9 ? x > y : a < b
        }
    }

    /// The driver: (dimension index, segment index) of the most concentrated dimension's largest
    /// named change in the total's direction; nil when no dimension reaches `evenThreshold` or nothing
    /// changed in what is shown.
    package static func driver(_ dimensions: [ExplainedDimension]) -> (dimension: Int, segment: Int)? {
        guard let first = order(dimensions).first else { return nil }
        let dimension = dimensions[first]
        guard dimension.decomposition.concentration >= evenThreshold, dimension.shown.change != 0 else { return nil }
        let direction = dimension.shown.change > 0 ? 1 : -1
        var best: Int?
        for (index, segment) in dimension.decomposition.segments.enumerated()
        where !segment.isOther && !segment.isOverlap {
            let units = dimension.shown.changes[index] * direction
            guard units > 0 else { continue }
            if best.map({ dimension.shown.changes[$0] * direction < units }) ?? true { best = index }
        }
        return best.map { (first, $0) }
    }

    /// The sentence, with `metric` the metric's words after the total (`visits`, `bounce rate`).
    package static func sentence(metric: String, _ dimensions: [ExplainedDimension]) -> String {
        reading(metric: metric, dimensions).sentence
    }

    /// The sentence and the driver it names: a rate's (`rateReading`) or a count's.
    package static func reading(metric: String, _ dimensions: [ExplainedDimension])
        -> (sentence: String, driver: (dimension: Int, segment: Int)?)
    {
        guard let any = dimensions.first else { return ("", nil) }
        if any.shown.change != 0, any.decomposition.mix != nil {
            return rateReading(metric: metric, dimensions)
        }
        // Every segment gone: the counter recorded nothing, said as the alert says it.
        if any.decomposition.value == 0, any.decomposition.expected > 0, any.shown.change != 0 {
            let expected = any.shown.signedText(-any.shown.change).dropFirst()
            return ("all \(expected) \(metric) gone: tracking stopped?", nil)
        }
        return (countSentence(metric: metric, dimensions), driver(dimensions))
    }

    static func countSentence(metric: String, _ dimensions: [ExplainedDimension]) -> String {
        guard let any = dimensions.first else { return "" }
        let total = any.shown.signedText(any.shown.change) + " " + metric
        if any.shown.change == 0 { return total + ": no change" }
        // Nothing expected (a counter's first days, a day with no visits as the baseline): every
        // segment is new, and "spread evenly" would hide that there was nothing to compare with.
        if any.decomposition.expected == 0 {
            return total + ": nothing in the baseline to compare with, every segment is new"
        }
        guard let driver = driver(dimensions) else {
            return total + ": spread evenly across " + list(dimensions.map(\.plural))
        }
        let dimension = dimensions[driver.dimension]
        let segment = dimension.decomposition.segments[driver.segment]
        let units = dimension.shown.changes[driver.segment]
        var text = total + ": " + segment.name + " " + dimension.shown.signedText(units)
        var notes: [String] = []
        if let shares = dimension.shown.percentShares { notes.append("\(shares[driver.segment])%") }
        switch segment.status {
        case .new: notes.append("new")
        case .vanished: notes.append("gone")
        case .continuing: break
        }
        if !notes.isEmpty { text += " (" + notes.joined(separator: ", ") + ")" }
        return text
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " and " + words[words.count - 1]
    }

    // MARK: - Rates

    /// A rate explained in one dimension: how much of the headline's change its mix, one segment,
    /// or its segments' own rates together make.
    enum RateCause {
        /// The segments' shares of visits moved (`segment`: the one whose share moved most towards
        /// the change).
        case mix(segment: Int)
        /// One segment's effect carries the change.
        case segment(Int)
        /// Every sizeable segment's own rate moved the change's way.
        case acrossTheBoard
    }

    /// A share of visits a segment needs for "every segment's own rate rose" to speak of it.
    static let sizeable = 0.02

    /// A rate's sentence. Per dimension whose total is the headline's (a table with another total
    /// explains another change), the causes it offers, each with the part of the headline's change it
    /// explains: its mix effect (M / C), one segment's effect when concentrated (its share of the
    /// change at least half, and a quarter more than its share of the visits), its rate effect when
    /// every sizeable segment's own rate moved the change's way (R / C). A dimension whose mix explains
    /// the change fully (its segments' own rates unchanged: M / C ≥ 0.9) is the headline: a moved
    /// mix is a cause, and the rise it makes inside every segment of another dimension its symptom.
    /// Next, one segment carrying it (the most of the change), for the same reason. Otherwise the
    /// cause explaining the most (at least half); a tie (within 5 points) goes to mix, then to the
    /// dimension given first. None: the largest segment effect, its share said.
    static func rateReading(metric: String, _ dimensions: [ExplainedDimension])
        -> (sentence: String, driver: (dimension: Int, segment: Int)?)
    {
        let head = dimensions[0]
        let change = head.decomposition.change
        let total = head.shown.signedText(head.shown.change) + " " + metric
        var candidates: [(dimension: Int, cause: RateCause, explained: Double, rank: Int)] = []
        for (index, dimension) in dimensions.enumerated() {
            let decomposition = dimension.decomposition
            // The same total as the headline's, as shown.
            guard dimension.shown.change == head.shown.change,
                abs(decomposition.value - head.decomposition.value) < 1e-6 * max(1, abs(head.decomposition.value)),
                let mix = decomposition.mix, let rate = decomposition.rate
            else { continue }
            let segments = decomposition.segments
            if mix / change >= 0.5, let moved = mixSegment(segments, direction: change) {
                candidates.append((index, .mix(segment: moved), mix / change, 1))
            }
            if let best = segments.indices.filter({ !segments[$0].isOther }).max(by: {
                segments[$0].change / change < segments[$1].change / change
            }) {
                let share = segments[best].change / change
                if share >= 0.5, share - size(segments[best]) >= 0.25 {
                    candidates.append((index, .segment(best), share, 0))
                }
            }
            let large = segments.filter { size($0) >= Self.sizeable }
            let ownChanges = large.compactMap { segment in
                segment.value.flatMap { value in segment.expected.map { value - $0 } }
            }
            if rate / change >= 0.5, !ownChanges.isEmpty, ownChanges.allSatisfy({ $0 * change > 0 }) {
                candidates.append((index, .acrossTheBoard, rate / change, 2))
            }
        }
        // A mix explaining the change fully is its cause; then one segment carrying it (the rise it
        // makes inside every segment of another dimension is its symptom); then the rest.
        let fullMix = candidates.filter {
            if case .mix = $0.cause { return $0.explained >= 0.9 } else { return false }
        }
        let carried = candidates.filter {
            if case .segment = $0.cause { return true } else { return false }
        }
        let pool = !fullMix.isEmpty ? fullMix : !carried.isEmpty ? carried : candidates
        let chosen = pool.max { a, b in
            if abs(a.explained - b.explained) > 0.05 { return a.explained < b.explained }
            if a.rank != b.rank { return a.rank > b.rank }
            return a.dimension > b.dimension
        }
        guard let chosen else { return largestSegment(total: total, metric: metric, dimensions) }
        let dimension = dimensions[chosen.dimension]
        let segments = dimension.decomposition.segments
        switch chosen.cause {
        case .mix(let index):
            let segment = segments[index]
            let own = segment.value ?? segment.expected
            return (
                total + ": mostly mix — " + possessive(segment.name) + " share of visits "
                    + percent(segment.expectedWeight) + " → " + percent(segment.weight) + " (their " + metric + " "
                    + valueText(own, dimension.shown) + ")",
                (chosen.dimension, index)
            )
        case .segment(let index):
            return (
                total + ": " + ownRate(segments[index], dimension.shown) + " ("
                    + (dimension.shown.percentShares.map { "\($0[index])%" } ?? "") + " of the change)",
                (chosen.dimension, index)
            )
        case .acrossTheBoard:
            let large = segments.filter { size($0) >= Self.sizeable }
            let moves = large.compactMap { segment in
                segment.value.flatMap { value in segment.expected.map { abs(value - $0) } }
            }
            let digits = dimension.shown.fractionDigits
            func text(_ value: Double) -> String {
                String(
                    ContributionRounding.signedText(
                        max(1, ContributionRounding.units(value, fractionDigits: digits)), fractionDigits: digits,
                        unit: dimension.shown.unit
                    ).dropFirst())
            }
            let (low, high) = (text(moves.min() ?? 0), text(moves.max() ?? 0))
            var range = low == high ? high : low + "–" + high
            // `8.0 pp–12.1 pp` reads as `8.0–12.1 pp`.
            if dimension.shown.unit == .percent, low != high { range = String(low.dropLast(3)) + "–" + high }
            return (
                total + ": across the board — every " + singular(dimension.plural) + "'s own rate "
                    + (change > 0 ? "rose " : "fell ") + range,
                nil
            )
        }
    }

    /// A rate's segment's mean share of visits over both periods.
    static func size(_ segment: SegmentContribution<Double>) -> Double {
        let weight: Double = segment.weight ?? 0
        let expected: Double = segment.expectedWeight ?? 0
        return (weight + expected) / 2
    }

    /// The segment whose share of visits moved most towards the change (its mix effect largest in
    /// the change's direction), one whose share grew first (smartphones taking PC's visits are named,
    /// not PC losing them).
    static func mixSegment(_ segments: [SegmentContribution<Double>], direction: Double) -> Int? {
        let named = segments.indices.filter { !segments[$0].isOther && (segments[$0].mix ?? 0) * direction > 0 }
        let grew = named.filter { (segments[$0].weight ?? 0) > (segments[$0].expectedWeight ?? 0) }
        return (grew.isEmpty ? named : grew).max {
            (segments[$0].mix ?? 0) * direction < (segments[$1].mix ?? 0) * direction
        }
    }

    /// No cause explains half: the largest effect of any dimension, its share of the change said.
    static func largestSegment(total: String, metric: String, _ dimensions: [ExplainedDimension])
        -> (sentence: String, driver: (dimension: Int, segment: Int)?)
    {
        let head = dimensions[0]
        var best: (dimension: Int, segment: Int, share: Double)?
        for (index, dimension) in dimensions.enumerated() where dimension.shown.change == head.shown.change {
            for (position, segment) in dimension.decomposition.segments.enumerated() where !segment.isOther {
                let share = segment.change / head.decomposition.change
                if share > (best?.share ?? 0) { best = (index, position, share) }
            }
        }
        guard let best else { return (total + ": no one cause in " + list(dimensions.map(\.plural)), nil) }
        let dimension = dimensions[best.dimension]
        let segment = dimension.decomposition.segments[best.segment]
        let share = dimension.shown.percentShares.map { " (\($0[best.segment])% of the change)" } ?? ""
        let own = abs(segment.rate ?? 0) >= abs(segment.mix ?? 0)
        let words =
            own
            ? ownRate(segment, dimension.shown)
            : possessive(segment.name) + " share of visits " + percent(segment.expectedWeight) + " → "
                + percent(segment.weight)
        return (total + ": no one cause; the largest part " + words + share, (best.dimension, best.segment))
    }

    /// `Ad traffic's own rate 25.3% → 50.6%`.
    static func ownRate(_ segment: SegmentContribution<Double>, _ shown: ShownDecomposition) -> String {
        possessive(segment.name) + " own rate " + valueText(segment.expected, shown) + " → "
            + valueText(segment.value, shown)
    }

    static func valueText(_ value: Double?, _ shown: ShownDecomposition) -> String {
        ValueFormatter.format(Quantity(value, unit: shown.unit), grouping: true, missing: "none")
    }

    /// A share of visits as a whole percent (`25%`).
    static func percent(_ weight: Double?) -> String {
        DecimalText.format((weight ?? 0) * 100, fractionDigits: 0) + "%"
    }

    /// `Smartphones'`, `Ad traffic's`.
    static func possessive(_ name: String) -> String {
        name.hasSuffix("s") ? name + "'" : name + "'s"
    }

    /// `sources` → `source`, `cities` → `city`.
    static func singular(_ plural: String) -> String {
        if plural.hasSuffix("ies") { return String(plural.dropLast(3)) + "y" }
        return plural.hasSuffix("s") ? String(plural.dropLast()) : plural
    }
}
