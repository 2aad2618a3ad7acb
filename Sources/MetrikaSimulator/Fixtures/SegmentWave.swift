import Foundation

/// A run of days on which the visits of one value of one dimension are multiplied (fixture
/// `segment_waves`): the known driver of a change. `{"dimension": "ym:s:trafficSource", "value":
/// "organic", "factor": 0, "from": "1daysAgo", "to": "1daysAgo"}` is search traffic falling to 0
/// yesterday; `"factor": 3, "robots": true` on `ym:s:deviceCategory` `mobile` is a bot wave on
/// smartphones (the visits it adds are robots'). The counter's daily visits change by exactly what
/// the value's visits do, and every report splits that day with the value's share changed, so the
/// segments still add up to the day.
struct SegmentWave: Sendable {
    let days: DayRun
    /// A dimension without a parent: traffic source, start URL, country, browser, OS, device.
    let attribute: Attribute
    /// The value's `id` (`organic`, `mobile`, `225`) or its English name.
    let value: String
    let factor: Double
    /// The visits the wave adds are robots' (only when `factor` > 1).
    let robots: Bool
}

extension FixtureSet {
    static func segmentWaves(_ value: JSONValue?, counter id: Int, zone: TimeZone, now: Date) throws -> [SegmentWave] {
        guard let value else { return [] }
        guard let items = value.arrayValue else {
            throw FixtureError(file: "counters.json", reason: "segment_waves of counter \(id) must be a list")
        }
        return try items.map { item in
            guard let name = item["dimension"]?.stringValue, let attribute = Attribute.named(name),
                attribute.parent == nil,
                attribute != .searchPhrase
            else {
                throw FixtureError(
                    file: "counters.json",
                    reason:
                        "a segment wave of counter \(id) needs a dimension without a parent (source, start URL, country, browser, OS, device)"
                )
            }
            guard let valueName = item["value"]?.stringValue, let factor = item["factor"]?.doubleValue, factor >= 0,
                let run = try dayRuns(.array([item]), counter: id, zone: zone, now: now).first
            else {
                throw FixtureError(
                    file: "counters.json", reason: "a segment wave of counter \(id) needs value, factor and from")
            }
            let wave = SegmentWave(
                days: run, attribute: attribute, value: valueName, factor: factor,
                robots: item["robots"]?.boolValue ?? false)
            return wave
        }
    }
}

extension CounterFixture {
    /// Whether a segment wave falls on a day of `days`.
    func hasSegmentWaves(in days: ClosedRange<Day>) -> Bool {
        segmentWaves.contains { wave in
            wave.days.from <= days.upperBound && (wave.days.to.map { $0 >= days.lowerBound } ?? true)
        }
    }

    /// How the segment waves of `day` change its visits: the factor of the whole day (1 + Σ share ×
    /// (factor − 1)) and the part of the day's visits that bot waves added.
    func segmentWaveEffect(on day: Day) -> (scale: Double, robots: Double) {
        let waves = segmentWaves.filter { $0.days.contains(day) }
        guard !waves.isEmpty else { return (1, 0) }
        let model = AttributeModel(counter: self)
        var scale = 1.0
        var robots = 0.0
        for wave in waves {
            guard let index = model.index(of: wave) else { continue }
            let share = model.usualChoices(wave.attribute, parent: -1).first { $0.0 == index }?.1 ?? 0
            scale += share * (wave.factor - 1)
            if wave.robots, wave.factor > 1 { robots += share * (wave.factor - 1) }
        }
        scale = max(0, scale)
        return (scale, scale > 0 ? robots / scale : 0)
    }
}

extension AttributeModel {
    /// The value index a wave names; nil when the dimension has no such value.
    func index(of wave: SegmentWave) -> Int? {
        usualChoices(wave.attribute, parent: -1).map(\.0).first { index in
            let (id, name) = describe(wave.attribute, index, language: .english)
            return id == wave.value || name == wave.value
        }
    }

    /// The values `attribute` takes given its parent's value, with conditional shares summing to 1:
    /// the usual shares, with the values of this day's `segmentWaves` multiplied (a value at 0 is no
    /// row at all, as in the real API).
    func choices(_ attribute: Attribute, parent: Int) -> [(Int, Double)] {
        let usual = usualChoices(attribute, parent: parent)
        let waves = segmentWaves.filter { $0.attribute == attribute }
        guard !waves.isEmpty else { return usual }
        var changed = usual
        for wave in waves {
            guard let index = index(of: wave) else { continue }
            changed = changed.map { $0.0 == index ? ($0.0, $0.1 * wave.factor) : $0 }
        }
        changed = changed.filter { $0.1 > 0 }
        let total = changed.reduce(0) { $0 + $1.1 }
        guard total > 0 else { return usual }
        return changed.map { ($0.0, $0.1 / total) }
    }
}

extension ReportEngine {
    /// A bucket with a segment wave on one of its days, split day by day (each day with its own
    /// shares) and merged by value: the rows still add up to the bucket's visits exactly.
    func splitByDay(
        _ bucket: ClosedRange<Day>, index: Int, counter: CounterFixture, clock: CounterClock, needed: [Attribute],
        requested: [Attribute], goalIndexes: [Int?]
    ) -> [ReportRow] {
        let start = max(bucket.lowerBound, counter.createDay)
        let end = min(bucket.upperBound, clock.today)
        guard start <= end else { return [] }
        var rows: [ReportRow] = []
        var rowByValues: [[Int]: Int] = [:]
        for day in start...end {
            let population = model.period(counter, from: day, through: day, clock: clock)
            guard population.visits > 0 else { continue }
            let dayRows = splitDay(
                population, day: day, index: index, counter: counter,
                paths: dayPaths(day, counter: counter, needed: needed),
                requested: requested, goalIndexes: goalIndexes)
            for row in dayRows {
                if let existing = rowByValues[row.values] {
                    rows[existing].figures.add(row.figures)
                } else {
                    rowByValues[row.values] = rows.count
                    rows.append(row)
                }
            }
        }
        return rows
    }

    /// The value combinations of `needed` on `day`, with that day's segment waves.
    func dayPaths(_ day: Day, counter: CounterFixture, needed: [Attribute]) -> (PathSet, AttributeModel) {
        var attributes = AttributeModel(counter: counter)
        attributes.segmentWaves = counter.segmentWaves.filter { $0.days.contains(day) }
        attributes.rateWaves = counter.rateWaves.filter { $0.attribute != nil && $0.days.contains(day) }
        return (PathSet(needed: needed, model: attributes), attributes)
    }

    /// `population` (a day, or one hour of it) split over `paths` (`dayPaths` of its day). With a bot
    /// wave's dimension in the report, its rows hold the robots it added and the other rows the usual
    /// share of robots (the population's share without the wave's).
    func splitDay(
        _ population: PeriodFigures, day: Day, index: Int, counter: CounterFixture, paths: (PathSet, AttributeModel),
        requested: [Attribute], goalIndexes: [Int?]
    ) -> [ReportRow] {
        let (paths, attributes) = paths
        let bots: [(position: Int, value: Int, added: Double)] = attributes.segmentWaves.compactMap { wave in
            guard wave.robots, wave.factor > 1, let position = requested.firstIndex(of: wave.attribute),
                let value = attributes.index(of: wave)
            else { return nil }
            return (position, value, 1 - 1 / wave.factor)
        }
        let rows = split(
            population, bucket: index, paths: paths, attributes: attributes, requested: requested,
            goalIndexes: goalIndexes)
        guard !bots.isEmpty else { return rows }
        let added = counter.segmentWaveEffect(on: day).robots
        let share = Double(population.robotVisits) / Double(population.visits)
        let usual = share > 0 && added < 1 ? max(0, (share - added) / (1 - added)) / share : 1
        return rows.map { row in
            var row = row
            let visits = row.figures.visits
            let usualRobots = (row.figures.robotVisits * usual).rounded()
            row.figures.robotVisits = usualRobots
            for bot in bots where row.values[bot.position] == bot.value {
                row.figures.robotVisits = min(visits, (visits * bot.added + usualRobots * (1 - bot.added)).rounded())
            }
            return row
        }
    }
}
