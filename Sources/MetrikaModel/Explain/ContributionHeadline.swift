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
        for (index, segment) in dimension.decomposition.segments.enumerated() where !segment.isOther {
            let units = dimension.shown.changes[index] * direction
            guard units > 0 else { continue }
            if best.map({ dimension.shown.changes[$0] * direction < units }) ?? true { best = index }
        }
        return best.map { (first, $0) }
    }

    /// The sentence, with `metric` the metric's words after the total (`visits`, `bounce rate`).
    package static func sentence(metric: String, _ dimensions: [ExplainedDimension]) -> String {
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
        if let share = dimension.shown.percentShare(of: units) { notes.append(share + "%") }
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
}
