import Foundation

/// A run of days on which one rate of the counter moves (fixture `rate_waves`): the known answer of
/// an explanation of a rate. `{"rate": "bounce", "factor": 1.5, "from": "1daysAgo", "to": "1daysAgo"}`
/// is every visit bouncing 1.5 times as often yesterday (a change across the board); with
/// `"dimension": "ym:s:trafficSource", "value": "ad"` only that segment's own rate moves.
struct RateWave: Sendable {
    let days: DayRun
    let facet: AttributeModel.Facet
    let factor: Double
    /// The one segment whose rate moves (a dimension without a parent); nil: every visit.
    let attribute: Attribute?
    let value: String?
}

extension FixtureSet {
    static func rateWaves(_ value: JSONValue?, counter id: Int, zone: TimeZone, now: Date) throws -> [RateWave] {
        guard let value else { return [] }
        guard let items = value.arrayValue else {
            throw FixtureError(file: "counters.json", reason: "rate_waves of counter \(id) must be a list")
        }
        let facets: [String: AttributeModel.Facet] = [
            "bounce": .bounce, "depth": .depth, "duration": .duration, "conversion": .conversion
        ]
        return try items.map { item in
            guard let name = item["rate"]?.stringValue, let facet = facets[name],
                let factor = item["factor"]?.doubleValue, factor >= 0,
                let run = try dayRuns(.array([item]), counter: id, zone: zone, now: now).first
            else {
                throw FixtureError(
                    file: "counters.json",
                    reason:
                        "a rate wave of counter \(id) needs rate (bounce, depth, duration, conversion), factor and from"
                )
            }
            var attribute: Attribute?
            if let dimension = item["dimension"]?.stringValue {
                guard let named = Attribute.named(dimension), named.parent == nil, named != .searchPhrase,
                    item["value"]?.stringValue != nil
                else {
                    throw FixtureError(
                        file: "counters.json",
                        reason: "a rate wave of counter \(id) names a dimension without a parent, and its value")
                }
                attribute = named
            }
            return RateWave(
                days: run, facet: facet, factor: factor, attribute: attribute, value: item["value"]?.stringValue)
        }
    }
}

/// How visits with given attribute values differ from the day's average, one number per facet
/// (`AttributeModel.Facet`, depth first). A child's modifiers (a search engine's, a city's) are
/// normalized within its parent (the parent's visits behave as the parent's modifier says, however
/// its children split them), so a report by a parent and one by its children tell the same story.
/// Top-level modifiers are raw: a report's rows share the day's counts out in proportion to them,
/// so their scale cancels.
struct ModifierTable {
    typealias Vector = SIMD8<Double>
    let needed: [Attribute]
    let attributes: AttributeModel
    private let parentPositions: [Int?]
    private var cache: [Int: Vector] = [:]
    private var norms: [Int: Vector] = [:]

    init(needed: [Attribute], attributes: AttributeModel) {
        self.needed = needed
        self.attributes = attributes
        parentPositions = needed.map { attribute in attribute.parent.flatMap { needed.firstIndex(of: $0) } }
    }

    /// The raw modifiers of one value, with that day's rate waves on it. A search phrase behaves as
    /// its source's visits do (180,000 phrases' own modifiers cost a phrase report seconds).
    static func raw(_ attribute: Attribute, _ value: Int, _ attributes: AttributeModel) -> Vector {
        var vector = Vector(repeating: 1)
        if attribute == .searchPhrase { return vector }
        for facet in 1...8 {
            guard let kind = AttributeModel.Facet(rawValue: facet) else { continue }
            vector[facet - 1] = AttributeModel.modifier(attribute, value, kind)
        }
        for wave in attributes.rateWaves where wave.attribute == attribute {
            if attributes.index(attribute, named: wave.value ?? "") == value {
                vector[wave.facet.rawValue - 1] *= wave.factor
            }
        }
        return vector
    }

    /// The modifiers of the path whose values start at `base` in `values`.
    mutating func modifiers(_ values: [Int], _ base: Int) -> Vector {
        var product = Vector(repeating: 1)
        for (position, attribute) in needed.enumerated() where attribute != .searchPhrase {
            let value = values[base + position]
            let parent = parentPositions[position].map { values[base + $0] } ?? -2
            let key = (position * 1_000_003 + (parent + 2)) * 2_000_003 + value + 1
            if let known = cache[key] {
                product *= known
                continue
            }
            var vector = ModifierTable.raw(attribute, value, attributes)
            if attribute.parent != nil, attribute != .searchPhrase {
                // One norm per parent value (a search engine's phrases share their engine's).
                let normKey = position * 1_000_003 + parent + 2
                let norm: Vector
                if let known = norms[normKey] {
                    norm = known
                } else {
                    var sum = Vector(repeating: 0)
                    for (choice, share) in attributes.usualChoices(attribute, parent: parent < -1 ? -1 : parent) {
                        sum += share * ModifierTable.raw(attribute, choice, attributes)
                    }
                    norm = sum
                    norms[normKey] = sum
                }
                vector /= norm
            }
            cache[key] = vector
            product *= vector
        }
        return product
    }
}

extension AttributeModel {
    /// The index of the value of `attribute` whose id or English name is `name`.
    func index(_ attribute: Attribute, named name: String) -> Int? {
        usualChoices(attribute, parent: -1).map(\.0).first { index in
            let (id, english) = describe(attribute, index, language: .english)
            return id == name || english == name
        }
    }
}

extension CounterFixture {
    /// The day's rate waves that name a segment (they split the day value by value, as segment waves do).
    func hasSegmentRateWaves(in days: ClosedRange<Day>) -> Bool {
        rateWaves.contains { wave in
            wave.attribute != nil && wave.days.from <= days.upperBound
                && (wave.days.to.map { $0 >= days.lowerBound } ?? true)
        }
    }

    /// How the day's rates move against the counter's usual ones, per facet: a whole-day rate wave's
    /// factor, and for each dimension whose mix (segment waves) or one segment's rate (rate waves)
    /// moved, Σ share′ × modifier′ / Σ share × modifier. A report's rows share the day's counts out
    /// by their modifiers, so a moved mix leaves each segment of that dimension its own rate, and
    /// shows in every other dimension as a rise (or fall) inside each of its segments.
    func rateMix(on day: Day) -> SIMD8<Double> {
        var mix = SIMD8<Double>(repeating: 1)
        for wave in rateWaves where wave.attribute == nil && wave.days.contains(day) {
            mix[wave.facet.rawValue - 1] *= wave.factor
        }
        var dayModel = AttributeModel(counter: self)
        dayModel.segmentWaves = segmentWaves.filter { $0.days.contains(day) }
        dayModel.rateWaves = rateWaves.filter { $0.attribute != nil && $0.days.contains(day) }
        let usualModel = AttributeModel(counter: self)
        var moved: [Attribute] = []
        for attribute in dayModel.segmentWaves.map(\.attribute) + dayModel.rateWaves.compactMap(\.attribute)
        where !moved.contains(attribute) {
            moved.append(attribute)
        }
        for attribute in moved {
            var now = SIMD8<Double>(repeating: 0)
            for (value, share) in dayModel.choices(attribute, parent: -1) {
                now += share * ModifierTable.raw(attribute, value, dayModel)
            }
            var usual = SIMD8<Double>(repeating: 0)
            for (value, share) in usualModel.usualChoices(attribute, parent: -1) {
                usual += share * ModifierTable.raw(attribute, value, usualModel)
            }
            mix *= now / usual
        }
        return mix
    }
}

extension PathSet {
    /// `total` shared out over `weights` by largest remainder, no part above its cap (what a cap
    /// turns away goes to the others); parts add up to `total` unless every part is at its cap.
    /// Linear in the rows at any size (`splitLargestRemainder`): a phrase report's 150,000 rows add
    /// up to the day as a source table's do.
    static func shareOut(_ total: Int, weights: [Double], caps: [Double]? = nil) -> [Int] {
        var parts = [Int](repeating: 0, count: weights.count)
        guard total > 0, !weights.isEmpty else { return parts }
        var open = Array(weights.indices)
        var shares = [Double](repeating: 0, count: weights.count)
        var split = [Int](repeating: 0, count: weights.count)
        var remaining = total
        for _ in 0..<16 {
            guard remaining > 0, !open.isEmpty else { break }
            let count = open.count
            for slot in 0..<count {
                shares[slot] = max(0, weights[open[slot]])
                split[slot] = 0
            }
            splitLargestRemainder(remaining, shares: shares, range: 0..<count, into: &split)
            guard let caps else {
                for slot in 0..<count { parts[open[slot]] += split[slot] }
                break
            }
            // The parts over their cap are filled to it; the rest is shared again among the others.
            var next: [Int] = []
            var over = false
            for slot in 0..<count {
                let index = open[slot]
                let room = max(0, Int(caps[index]) - parts[index])
                if split[slot] > room {
                    parts[index] += room
                    remaining -= room
                    over = true
                } else {
                    next.append(index)
                }
            }
            guard over else {
                for slot in 0..<count { parts[open[slot]] += split[slot] }
                break
            }
            open = next
        }
        return parts
    }
}

extension Attribute {
    /// How much a day's segments' users usually exceed the day's users: the visitors who came twice
    /// in the day by two values of this dimension (two sources, two start pages) count in each.
    var userOverlap: Double {
        switch self {
        case .trafficSource: return 0.04
        case .searchEngine, .utmSource: return 0.02
        case .searchPhrase: return 0.12
        case .startURL: return 0.1
        case .regionCountry: return 0.002
        case .regionCity: return 0.005
        case .browser, .deviceCategory: return 0.015
        case .operatingSystem: return 0.01
        }
    }
}
