import Foundation

extension Attribute {
    /// One more than the largest value index plus one: value `v` packs as `v + 1 < radix`.
    var radix: Int {
        switch self {
        case .trafficSource: return DimensionCatalog.trafficSources.count + 1
        case .searchEngine: return DimensionCatalog.searchEngines.count + 1
        case .searchPhrase: return SearchPhraseCatalog.capacity + 1
        case .startURL: return DimensionCatalog.startPaths.count + 1
        case .regionCountry: return DimensionCatalog.countries.count + 1
        case .regionCity: return DimensionCatalog.cities.count * 100 + 1
        case .browser: return DimensionCatalog.browsers.count + 1
        case .operatingSystem: return DimensionCatalog.operatingSystems.count + 1
        case .deviceCategory: return DimensionCatalog.deviceCategories.count + 1
        case .utmSource: return DimensionCatalog.utmSources.count + 1
        }
    }
}

/// How one counter's visits split across attribute values.
///
/// Value indexes: `-1` is the undefined value (`"name": null`) of any attribute, including "not
/// applicable" (no search engine for a direct visit). Cities are `country * 100 + city`. Phrases are
/// indexes into `SearchPhraseCatalog.all`.
struct AttributeModel: Sendable {
    let counter: CounterFixture
    /// The counter's `segment_waves` of the one day this model splits (none: the usual shares).
    var segmentWaves: [SegmentWave] = []
    /// The counter's `rate_waves` on one segment of the one day this model splits.
    var rateWaves: [RateWave] = []
    /// Share of search visits whose phrase is unknown (shown as a null-name row).
    static let undefinedPhraseShare = 0.22

    init(counter: CounterFixture) {
        self.counter = counter
    }

    var phraseCount: Int { min(counter.searchPhraseCount, SearchPhraseCatalog.capacity) }

    /// Per-counter variation of a typical share.
    private func varied(_ list: [DimensionValue], _ attribute: Attribute, salt: Int = 0) -> [(Int, Double)] {
        var result: [(Int, Double)] = []
        for (index, value) in list.enumerated() where value.share > 0 {
            var share = value.share * Seed.between(0.6...1.4, counter.id, attribute.rawValue * 1000 + salt, index)
            if attribute == .regionCountry, value.id == "84", counter.timeZone.identifier.hasPrefix("America/") {
                share *= 15
            }
            result.append((value.id == nil && value.name == nil ? -1 : index, share))
        }
        let total = result.reduce(0) { $0 + $1.1 }
        return result.map { ($0.0, $0.1 / total) }
    }

    /// The values `attribute` takes given its parent's value, with conditional shares summing to 1,
    /// before any `segment_waves` (see `choices`).
    func usualChoices(_ attribute: Attribute, parent: Int) -> [(Int, Double)] {
        switch attribute {
        case .trafficSource: return varied(DimensionCatalog.trafficSources, attribute)
        case .searchEngine:
            guard parent == DimensionCatalog.organicIndex else { return [(-1, 1)] }
            return varied(DimensionCatalog.searchEngines, attribute)
        case .searchPhrase:
            guard parent == DimensionCatalog.organicIndex else { return [(-1, 1)] }
            return phraseChoices()
        case .startURL:
            let list = DimensionCatalog.startPaths.indices.map { index in
                DimensionValue(String(index), "", nil, 1 / pow(Double(index) + 1.5, 1.1))
            }
            return varied(list, attribute)
        case .regionCountry: return varied(DimensionCatalog.countries, attribute)
        case .regionCity:
            guard parent >= 0, parent < DimensionCatalog.cities.count else { return [(-1, 1)] }
            return varied(DimensionCatalog.cities[parent], attribute, salt: parent).map { entry in
                (entry.0 < 0 ? -1 : parent * 100 + entry.0, entry.1)
            }
        case .browser: return varied(DimensionCatalog.browsers, attribute)
        case .operatingSystem: return varied(DimensionCatalog.operatingSystems, attribute)
        case .deviceCategory: return varied(DimensionCatalog.deviceCategories, attribute)
        case .utmSource:
            let shares = DimensionCatalog.utmShares(trafficSource: parent)
            guard shares.contains(where: { $0.share > 0 && $0.name != nil }) else { return [(-1, 1)] }
            return varied(shares, attribute, salt: parent)
        }
    }

    /// Zipf-like popularity with per-phrase noise, plus the undefined phrase.
    private func phraseChoices() -> [(Int, Double)] {
        let count = phraseCount
        var result: [(Int, Double)] = []
        result.reserveCapacity(count + 1)
        var total = 0.0
        for index in 0..<count {
            let weight = Seed.between(0.8...1.25, counter.id, 7_777, index) / pow(Double(index) + 3, 0.95)
            result.append((index, weight))
            total += weight
        }
        let scale = (1 - AttributeModel.undefinedPhraseShare) / total
        for index in result.indices {
            result[index].1 *= scale
        }
        result.append((-1, AttributeModel.undefinedPhraseShare))
        return result
    }

    /// How many choices `attribute` has under `parent` (for the complexity check).
    func choiceCount(_ attribute: Attribute, parent: Int) -> Int {
        switch attribute {
        case .searchEngine:
            return parent == DimensionCatalog.organicIndex ? DimensionCatalog.searchEngines.count - 1 : 1
        case .searchPhrase: return parent == DimensionCatalog.organicIndex ? phraseCount + 1 : 1
        case .utmSource: return usualChoices(.utmSource, parent: parent).count
        case .regionCity:
            guard parent >= 0, parent < DimensionCatalog.cities.count else { return 1 }
            return DimensionCatalog.cities[parent].count
        default: return choices(attribute, parent: -1).count
        }
    }

    /// The `id` and `name` of a value.
    func describe(_ attribute: Attribute, _ index: Int, language: Language) -> (id: String?, name: String?) {
        guard index >= 0 else { return (nil, nil) }
        func from(_ list: [DimensionValue], _ i: Int) -> (String?, String?) {
            guard i < list.count else { return (nil, nil) }
            return (list[i].id, list[i].name(in: language))
        }
        switch attribute {
        case .trafficSource: return from(DimensionCatalog.trafficSources, index)
        case .searchEngine: return from(DimensionCatalog.searchEngines, index)
        case .searchPhrase:
            return index < SearchPhraseCatalog.capacity ? (nil, SearchPhraseCatalog.phrase(index)) : (nil, nil)
        case .startURL:
            guard index < DimensionCatalog.startPaths.count else { return (nil, nil) }
            return (nil, DimensionCatalog.startURL(site: counter.site, index: index))
        case .regionCountry: return from(DimensionCatalog.countries, index)
        case .regionCity:
            let country = index / 100
            guard country < DimensionCatalog.cities.count else { return (nil, nil) }
            return from(DimensionCatalog.cities[country], index % 100)
        case .browser: return from(DimensionCatalog.browsers, index)
        case .operatingSystem: return from(DimensionCatalog.operatingSystems, index)
        case .deviceCategory: return from(DimensionCatalog.deviceCategories, index)
        case .utmSource:
            return index < DimensionCatalog.utmSources.count ? (nil, DimensionCatalog.utmSources[index]) : (nil, nil)
        }
    }

    /// Whether a value passes a filter term (compared with the id when there is one, else the name).
    func matches(_ term: FilterTerm, _ index: Int) -> Bool {
        let (id, name) = describe(term.attribute, index, language: .english)
        let russian = describe(term.attribute, index, language: .russian).name
        let hit =
            id == term.value || name == term.value || russian == term.value
            || (index < 0 && (term.value.isEmpty || term.value.lowercased() == "null"))
        return hit == term.equal
    }

    // MARK: - Behaviour of visits with a value

    /// What a modifier scales.
    enum Facet: Int {
        case depth = 1
        case bounce, duration, users, newShare, robots, conversion
        /// The size of an order (sources differ in what their buyers spend).
        case orderValue
    }

    /// How visits with this value differ from the counter's average (1 = no difference). Curated for
    /// the values whose difference is well known, seeded for the rest.
    static func modifier(_ attribute: Attribute, _ index: Int, _ facet: Facet) -> Double {
        switch (attribute, index, facet) {
        case (.trafficSource, 3, .bounce): return 1.45 // ad traffic bounces more
        case (.trafficSource, 3, .newShare): return 1.3
        case (.trafficSource, 5, .bounce): return 0.5 // internal traffic rarely bounces
        case (.trafficSource, 5, .depth): return 1.35
        case (.trafficSource, 1, .newShare): return 0.7 // direct visitors return
        case (.deviceCategory, 1, .bounce): return 1.2 // smartphones
        case (.deviceCategory, 1, .depth): return 0.82
        case (.deviceCategory, 1, .duration): return 0.78
        case (.deviceCategory, 0, .duration): return 1.15
        default:
            return Seed.between(0.82...1.18, attribute.rawValue * 100 + facet.rawValue, index, 4_242)
        }
    }
}
