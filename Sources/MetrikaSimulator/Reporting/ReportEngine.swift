import Foundation

/// The additive counts behind one report row (doubles, because sampled estimates are scaled).
struct RowFigures: Sendable {
    var visits = 0.0
    var pageviews = 0.0
    var bounces = 0.0
    var durationSeconds = 0.0
    var users = 0.0
    var newUsers = 0.0
    var robotVisits = 0.0
    /// Reaches of each goal in `ParsedStatQuery.goalIDs` order.
    var goalReaches: [Double]
    var purchases = 0.0
    /// Revenue in roubles × 100.
    var revenueKopecks = 0.0
    /// Product events (product reports only): see `ProductDay`.
    var product = ProductFigures()

    init(goalCount: Int) {
        goalReaches = Array(repeating: 0, count: goalCount)
    }

    mutating func add(_ other: RowFigures) {
        visits += other.visits
        pageviews += other.pageviews
        bounces += other.bounces
        durationSeconds += other.durationSeconds
        users += other.users
        newUsers += other.newUsers
        robotVisits += other.robotVisits
        for index in goalReaches.indices { goalReaches[index] += other.goalReaches[index] }
        purchases += other.purchases
        revenueKopecks += other.revenueKopecks
        product.add(other.product)
    }

    /// The value of `metric`; ratios of a row without visits are undefined (nil).
    func value(of metric: MetricKind, goalSlots: [Int: Int]) -> Double? {
        func ratio(_ part: Double, _ whole: Double, _ scale: Double = 1) -> Double? {
            whole > 0 ? part / whole * scale : nil
        }
        switch metric {
        case .visits: return visits
        case .pageviews: return pageviews
        case .users: return users
        case .newUsers: return newUsers
        case .bounceRate: return ratio(bounces, visits, 100)
        case .pageDepth: return ratio(pageviews, visits)
        case .avgVisitDurationSeconds: return ratio(durationSeconds, visits)
        case .percentNewVisitors: return ratio(newUsers, visits, 100)
        case .robotPercentage: return ratio(robotVisits, visits, 100)
        case .goalReaches(let id): return goalSlots[id].map { goalReaches[$0] }
        case .goalConversionRate(let id): return goalSlots[id].flatMap { ratio(goalReaches[$0], visits, 100) }
        case .purchases: return purchases
        case .revenue(let code): return MetricKind.converted(revenueKopecks, into: code)
        // No purchases, no average order value: null, as for other ratios without a base.
        case .revenuePerPurchase(let code):
            return ratio(revenueKopecks, purchases).flatMap { MetricKind.converted($0, into: code) }
        case .revenuePerVisit(let code):
            return ratio(revenueKopecks, visits).flatMap { MetricKind.converted($0, into: code) }
        case .goalRevenue(let id, let code, let price):
            return goalSlots[id].map { MetricKind.converted(goalReaches[$0] * price, into: code) }
        case .productImpressions: return product.impressions
        case .productImpressionsUniq: return product.viewers
        case .productBasketsQuantity: return product.baskets
        case .productBasketsUniq: return product.basketUsers
        case .productBasketsPrice(let code): return MetricKind.converted(product.basketKopecks, into: code)
        case .productPurchasedQuantity: return product.purchased
        case .productPurchasedPrice(let code): return MetricKind.converted(product.revenueKopecks, into: code)
        case .productPurchasedUniq: return product.buyers
        }
    }

    /// The estimate a sample of `share` gives: every count read from the sample and scaled back up.
    func sampled(_ share: Double) -> RowFigures {
        func estimate(_ x: Double) -> Double { (x * share).rounded() / share }
        var result = self
        result.visits = estimate(visits)
        result.pageviews = estimate(pageviews)
        result.bounces = estimate(bounces)
        result.durationSeconds = estimate(durationSeconds)
        result.users = estimate(users)
        result.newUsers = estimate(newUsers)
        result.robotVisits = estimate(robotVisits)
        result.goalReaches = goalReaches.map(estimate)
        result.purchases = estimate(purchases)
        result.revenueKopecks = estimate(revenueKopecks)
        result.product = product.map(estimate)
        return result
    }
}

/// The product-event counts of a report row (doubles, like `RowFigures`).
struct ProductFigures: Sendable {
    var impressions = 0.0
    var viewers = 0.0
    var baskets = 0.0
    var basketUsers = 0.0
    var basketKopecks = 0.0
    var purchased = 0.0
    var revenueKopecks = 0.0
    var buyers = 0.0

    /// Adds counts; users too (callers that know better replace them).
    mutating func add(_ other: ProductFigures) {
        impressions += other.impressions
        viewers += other.viewers
        baskets += other.baskets
        basketUsers += other.basketUsers
        basketKopecks += other.basketKopecks
        purchased += other.purchased
        revenueKopecks += other.revenueKopecks
        buyers += other.buyers
    }

    func map(_ transform: (Double) -> Double) -> ProductFigures {
        ProductFigures(
            impressions: transform(impressions), viewers: transform(viewers), baskets: transform(baskets),
            basketUsers: transform(basketUsers), basketKopecks: transform(basketKopecks),
            purchased: transform(purchased),
            revenueKopecks: transform(revenueKopecks), buyers: transform(buyers))
    }
}

/// One row before it is written: which date bucket, which attribute values, and its figures.
struct ReportRow: Sendable {
    /// Index into `ReportResult.buckets`.
    var bucket: Int
    /// The local hour (0–23) of an `ym:s:hour` row; nil otherwise.
    var hour: Int? = nil
    /// The value index of each attribute dimension, in query order.
    var values: [Int]
    var figures: RowFigures
}

/// Everything a report answer is written from.
struct ReportResult: Sendable {
    var buckets: [ClosedRange<Day>]
    var rows: [ReportRow]
    /// Totals of each bucket (for `/bytime`), and of the whole period.
    var bucketTotals: [RowFigures]
    var totals: RowFigures
    /// nil when unsampled.
    var sampleShare: Double?
    /// Visits in the whole period (the `sample_space`).
    var populationVisits: Int
}

/// Turns a query into rows.
///
/// Per bucket (a day, a period, or the whole interval) the counter's population figures come from
/// `TrafficModel`. When the query has attribute dimensions or filters, the bucket's visits are split
/// over every combination of attribute values by their shares (largest-remainder rounding, so row
/// visits add up to the bucket's visits exactly); filters drop combinations; the rest are grouped by
/// the requested attributes. The other counts of a row follow from its visits, the bucket's ratios
/// and the values' modifiers; totals are sums of rows, so averages are visit-weighted. Users are not
/// additive: totals take the population's distinct users of the period.
struct ReportEngine {
    let query: ParsedStatQuery
    let model: TrafficModel
    let now: Date

    /// Paths (value combinations × buckets) one request may enumerate before it is "too complicated".
    static let complexityLimit = 4_000_000
    /// Intervals longer than this, with search phrases or start URLs, need accuracy=full.
    static let longPhraseIntervalDays = 731
    /// Periods with fewer visits are never sampled.
    static let samplingThreshold = 1_000_000

    var attributeDimensions: [Attribute] {
        query.dimensions.compactMap { if case .attribute(let a) = $0 { return a } else { return nil } }
    }

    var productDimensions: [ProductField] {
        query.dimensions.compactMap { if case .product(let p) = $0 { return p } else { return nil } }
    }

    /// Dimensions whose rows are values rather than dates (attributes or products).
    var valuedDimensionCount: Int { query.dimensions.filter(\.isValued).count }

    /// Whether the query is answered from the shops' products (ParsedStatQuery.parse keeps product metrics
    /// apart from visit metrics and attributes).
    var isProductReport: Bool { query.metrics.contains(where: \.isProduct) }

    /// The date buckets: one per day/period for a date dimension, else the whole interval.
    func dateBuckets() -> [ClosedRange<Day>] {
        for dimension in query.dimensions {
            switch dimension {
            case .date: return DateGrouping.day.buckets(from: query.date1, through: query.date2)
            case .period(let group): return group.buckets(from: query.date1, through: query.date2)
            case .attribute, .product, .hour: continue
            }
        }
        return [query.date1...query.date2]
    }

    /// Attributes the enumeration needs: requested, filtered, and their parents, in tree order.
    var neededAttributes: [Attribute] {
        var set = Set(attributeDimensions)
        for term in query.filters { set.insert(term.attribute) }
        for attribute in set { if let parent = attribute.parent { set.insert(parent) } }
        return Attribute.allCases.filter { set.contains($0) }
    }

    /// Runs the query over `buckets`; the error is a ready 400 `query_error`.
    func run(buckets: [ClosedRange<Day>]) -> Result<ReportResult, ResponseError> {
        if query.dimensions.contains(.hour) { return runHours(buckets: buckets) }
        if !query.timeFilter.isEmpty, model.timeFilter == nil {
            var filtered = model
            filtered.timeFilter = query.timeFilter
            return ReportEngine(query: query, model: filtered, now: now).run(buckets: buckets)
        }
        if isProductReport {
            let products = runProducts(buckets: buckets)
            // Product metrics beside visit metrics (by date, or in all): the days' visit figures
            // with the products' counts added to each bucket's row.
            guard query.metrics.contains(where: { !$0.isProduct }) else { return .success(products) }
            return withoutProducts().run(buckets: buckets).map { visits in
                var result = visits
                var byBucket: [Int: ProductFigures] = [:]
                for row in products.rows { byBucket[row.bucket, default: ProductFigures()].add(row.figures.product) }
                for index in result.rows.indices {
                    result.rows[index].figures.product = byBucket[result.rows[index].bucket] ?? ProductFigures()
                }
                result.totals.product = products.totals.product
                for index in result.bucketTotals.indices {
                    result.bucketTotals[index].product = products.bucketTotals[index].product
                }
                return result
            }
        }
        let needed = neededAttributes
        let requested = attributeDimensions
        let intervalDays = query.date1.distance(to: query.date2) + 1
        if query.accuracy != .full, intervalDays > ReportEngine.longPhraseIntervalDays,
            requested.contains(.searchPhrase) || requested.contains(.startURL)
        {
            return .failure(ReportEngine.tooComplicated())
        }

        var rowsByKey: [RowKey: Int] = [:]
        var rows: [ReportRow] = []
        var bucketTotals = Array(repeating: RowFigures(goalCount: query.goalIDs.count), count: buckets.count)
        var populationUsersByBucket = Array(repeating: 0.0, count: buckets.count)
        var populationVisitsByBucket = Array(repeating: 0.0, count: buckets.count)
        var wholePopulationVisits = 0
        var wholePopulationUsers = 0.0
        let mergeAcrossCounters = query.counters.count > 1

        for counter in query.counters {
            let clock = CounterClock(now: now, timeZone: counter.timeZone)
            let goalIndexes = query.goalIDs.map { id in counter.goals.firstIndex(where: { $0.id == id }) }
            let whole = model.period(counter, from: query.date1, through: query.date2, clock: clock)
            wholePopulationVisits += whole.visits
            wholePopulationUsers += Double(whole.users)

            let attributes = AttributeModel(counter: counter)
            var paths: PathSet?
            if !needed.isEmpty {
                let estimate = ReportEngine.pathEstimate(needed, attributes)
                if estimate * max(1, buckets.count) > ReportEngine.complexityLimit {
                    return .failure(ReportEngine.tooComplicated())
                }
                paths = PathSet(needed: needed, model: attributes)
            }

            for (bucketIndex, bucket) in buckets.enumerated() {
                let population = model.period(
                    counter, from: bucket.lowerBound, through: bucket.upperBound, clock: clock)
                populationUsersByBucket[bucketIndex] += Double(population.users)
                populationVisitsByBucket[bucketIndex] += Double(population.visits)
                guard population.visits > 0 else { continue }
                let newRows: [ReportRow]
                if paths != nil, counter.hasSegmentWaves(in: bucket) || counter.hasSegmentRateWaves(in: bucket) {
                    newRows = splitByDay(
                        bucket, index: bucketIndex, counter: counter, clock: clock, needed: needed,
                        requested: requested, goalIndexes: goalIndexes)
                } else if let paths {
                    newRows = split(
                        population, bucket: bucketIndex, paths: paths, attributes: attributes,
                        requested: requested, goalIndexes: goalIndexes)
                } else {
                    var figures = RowFigures(goalCount: query.goalIDs.count)
                    figures.visits = Double(population.visits)
                    figures.pageviews = Double(population.pageviews)
                    figures.bounces = Double(population.bounces)
                    figures.durationSeconds = Double(population.durationSeconds)
                    figures.users = Double(population.users)
                    figures.newUsers = Double(population.newUsers)
                    figures.robotVisits = Double(population.robotVisits)
                    for (slot, index) in goalIndexes.enumerated() {
                        if let index { figures.goalReaches[slot] = Double(population.goalReaches[index]) }
                    }
                    figures.purchases = Double(population.purchases)
                    figures.revenueKopecks = Double(population.revenueKopecks)
                    newRows = [ReportRow(bucket: bucketIndex, values: [], figures: figures)]
                }
                if mergeAcrossCounters {
                    for row in newRows {
                        let key = RowKey(bucket: row.bucket, values: row.values)
                        if let existing = rowsByKey[key] {
                            rows[existing].figures.add(row.figures)
                        } else {
                            rowsByKey[key] = rows.count
                            rows.append(row)
                        }
                    }
                } else {
                    rows.append(contentsOf: newRows)
                }
            }
        }

        // Sampling: decided once for the whole period.
        let share = samplingShare(populationVisits: wholePopulationVisits)
        if let share {
            rows = rows.compactMap { row in
                var sampled = row
                sampled.figures = row.figures.sampled(share)
                return sampled.figures.visits > 0 ? sampled : nil
            }
        }

        // Totals: sums of rows; users from the population, scaled by the share of visits kept.
        var totals = RowFigures(goalCount: query.goalIDs.count)
        for row in rows {
            totals.add(row.figures)
            bucketTotals[row.bucket].add(row.figures)
        }
        func distinctUsers(population: Double, populationVisits: Double, keptVisits: Double) -> Double {
            guard populationVisits > 0 else { return 0 }
            var users = (population * min(1, keptVisits / populationVisits)).rounded()
            if let share { users = (users * share).rounded() / share }
            return min(users, keptVisits)
        }
        totals.users = distinctUsers(
            population: wholePopulationUsers, populationVisits: Double(wholePopulationVisits), keptVisits: totals.visits
        )
        for index in bucketTotals.indices {
            bucketTotals[index].users = distinctUsers(
                population: populationUsersByBucket[index], populationVisits: populationVisitsByBucket[index],
                keptVisits: bucketTotals[index].visits)
        }
        return .success(
            ReportResult(
                buckets: buckets, rows: rows, bucketTotals: bucketTotals, totals: totals, sampleShare: share,
                populationVisits: wholePopulationVisits))
    }

    /// An `ym:s:hour` report: each bucket's days split by local hour (`TrafficModel.hourFigures`, whose
    /// hours add up to the day exactly), one row per bucket, hour and attribute values with visits
    /// (hours without any are left out, as the API leaves them out), several counters' rows merged.
    /// With attribute dimensions or filters each hour is split as a day is (`splitDay`: the day's
    /// segment waves apply to each of its hours), so an hour's rows add up to the hour. The filters'
    /// `ym:s:date` and `ym:s:hour` terms (`TimeFilter`) keep only the days and hours they name. Never sampled.
    func runHours(buckets: [ClosedRange<Day>]) -> Result<ReportResult, ResponseError> {
        let needed = neededAttributes
        let requested = attributeDimensions
        let goalCount = query.goalIDs.count
        var index: [HourRowKey: Int] = [:]
        var rows: [ReportRow] = []
        var totals = RowFigures(goalCount: goalCount)
        var bucketTotals = Array(repeating: RowFigures(goalCount: goalCount), count: buckets.count)
        var populationVisits = 0
        for counter in query.counters {
            let clock = CounterClock(now: now, timeZone: counter.timeZone)
            let goalIndexes = query.goalIDs.map { id in counter.goals.firstIndex(where: { $0.id == id }) }
            let attributes = AttributeModel(counter: counter)
            if !needed.isEmpty, ReportEngine.pathEstimate(needed, attributes) * 24 > ReportEngine.complexityLimit {
                return .failure(ReportEngine.tooComplicated())
            }
            for (bucketIndex, bucket) in buckets.enumerated() {
                let first = max(bucket.lowerBound, counter.createDay)
                let last = min(bucket.upperBound, clock.today)
                guard first <= last else { continue }
                for day in first...last where query.timeFilter.passes(day: day) {
                    // One set of paths a day (its segment waves), shared by its hours.
                    var paths: (PathSet, AttributeModel)?
                    for (hour, figures) in model.hourFigures(counter, on: day, clock: clock).enumerated()
                    where figures.visits > 0 && query.timeFilter.passes(day: day, hour: hour) {
                        populationVisits += figures.visits
                        var hourRows: [ReportRow]
                        if needed.isEmpty {
                            var row = RowFigures(goalCount: goalCount)
                            row.visits = Double(figures.visits)
                            row.pageviews = Double(figures.pageviews)
                            row.bounces = Double(figures.bounces)
                            row.durationSeconds = Double(figures.durationSeconds)
                            row.users = Double(figures.users)
                            row.newUsers = Double(figures.newUsers)
                            row.robotVisits = Double(figures.robotVisits)
                            for (slot, index) in goalIndexes.enumerated() {
                                if let index { row.goalReaches[slot] = Double(figures.goalReaches[index]) }
                            }
                            row.purchases = Double(figures.purchases)
                            row.revenueKopecks = Double(figures.revenueKopecks)
                            hourRows = [ReportRow(bucket: bucketIndex, values: [], figures: row)]
                        } else {
                            if paths == nil { paths = dayPaths(day, counter: counter, needed: needed) }
                            var population = PeriodFigures(goalCount: counter.goals.count)
                            population.add(figures)
                            hourRows = splitDay(
                                population, day: day, index: bucketIndex, counter: counter, paths: paths!,
                                requested: requested, goalIndexes: goalIndexes)
                        }
                        for var row in hourRows {
                            row.hour = hour
                            let key = HourRowKey(bucket: bucketIndex, hour: hour, values: row.values)
                            bucketTotals[bucketIndex].add(row.figures)
                            totals.add(row.figures)
                            if let at = index[key] {
                                rows[at].figures.add(row.figures)
                            } else {
                                index[key] = rows.count
                                rows.append(row)
                            }
                        }
                    }
                }
            }
        }
        // Rows by bucket and hour (each hour's values in the order they were split).
        let order = rows.indices.sorted { a, b in
            let (x, y) = (rows[a].bucket * 24 + (rows[a].hour ?? 0), rows[b].bucket * 24 + (rows[b].hour ?? 0))
            return x != y ? x < y : a < b
        }
        return .success(
            ReportResult(
                buckets: buckets, rows: order.map { rows[$0] }, bucketTotals: bucketTotals, totals: totals,
                sampleShare: nil,
                populationVisits: populationVisits))
    }

    /// The same query without its product metrics (their values are filled in from the products).
    func withoutProducts() -> ReportEngine {
        var visitsOnly = query
        visitsOnly.metrics = query.metrics.map { $0.isProduct ? .visits : $0 }
        return ReportEngine(query: visitsOnly, model: model, now: now)
    }

    /// The share of visits a report over a period with `populationVisits` reads (nil: all of them).
    func samplingShare(populationVisits: Int) -> Double? {
        if case .share(let s) = query.accuracy, populationVisits > 0 { return s }
        if case .target(let target) = query.accuracy, populationVisits > ReportEngine.samplingThreshold {
            return ReportEngine.niceShare(Double(target) / Double(populationVisits))
        }
        return nil
    }

    static func tooComplicated() -> ResponseError {
        ResponseError(
            APIError.response(
                400, "query_error", "Query is too complicated. Please reduce the date interval or sampling."))
    }

    /// The largest of 1/2, 1/4, 1/5, 1/10, ... not above `share` (1 = unsampled → nil).
    static func niceShare(_ share: Double) -> Double? {
        guard share < 1 else { return nil }
        let candidates: [Double] = [0.5, 0.25, 0.2, 0.1, 0.05, 0.04, 0.02, 0.01, 0.005, 0.002, 0.001]
        return candidates.first(where: { $0 <= share }) ?? 0.001
    }

    /// How many value combinations `needed` has.
    static func pathEstimate(_ needed: [Attribute], _ model: AttributeModel) -> Int {
        let set = Set(needed)
        var total = 1
        if set.contains(.trafficSource) {
            var sum = 0
            for (source, _) in model.choices(.trafficSource, parent: -1) {
                var n = 1
                if set.contains(.searchEngine) { n *= model.choiceCount(.searchEngine, parent: source) }
                if set.contains(.searchPhrase) { n *= model.choiceCount(.searchPhrase, parent: source) }
                if set.contains(.utmSource) { n *= model.choiceCount(.utmSource, parent: source) }
                sum += n
            }
            total *= sum
        }
        if set.contains(.regionCountry) {
            var sum = 0
            for (country, _) in model.choices(.regionCountry, parent: -1) {
                sum += set.contains(.regionCity) ? model.choiceCount(.regionCity, parent: country) : 1
            }
            total *= sum
        }
        for attribute in [Attribute.startURL, .browser, .operatingSystem, .deviceCategory] where set.contains(attribute)
        {
            total *= model.choiceCount(attribute, parent: -1)
        }
        return total
    }

    // MARK: - Splitting a bucket over attribute values

    func split(
        _ population: PeriodFigures, bucket: Int, paths: PathSet, attributes: AttributeModel, requested: [Attribute],
        goalIndexes: [Int?]
    ) -> [ReportRow] {
        let visits = paths.allocate(population.visits)
        let width = paths.needed.count
        let requestedPositions = requested.map { attribute in paths.needed.firstIndex(of: attribute)! }
        let filterChecks: [(position: Int, term: FilterTerm)] = query.filters.map { term in
            (paths.needed.firstIndex(of: term.attribute)!, term)
        }
        let oneToOne = requested.count == width && filterChecks.isEmpty

        // Rows are grouped by the requested values packed into one integer (mixed radix).
        let radixes = requested.map(\.radix)
        var grouped: [Int: Int] = [:]
        var keys: [[Int]] = []
        var groupVisits: [Int] = []
        // Per group: its visits × the modifiers of its paths (every needed attribute's), per facet; and
        // the same over every path, kept or filtered out (what a filtered report's share is of).
        var table = ModifierTable(needed: paths.needed, attributes: attributes)
        var groupWeights: [ModifierTable.Vector] = []
        var allWeights = ModifierTable.Vector(repeating: 0)
        if oneToOne {
            keys.reserveCapacity(paths.count)
            groupVisits.reserveCapacity(paths.count)
            groupWeights.reserveCapacity(paths.count)
        }
        for path in 0..<paths.count where visits[path] > 0 {
            let base = path * width
            let weight = Double(visits[path]) * table.modifiers(paths.values, base)
            allWeights += weight
            var passes = true
            for check in filterChecks where !attributes.matches(check.term, paths.values[base + check.position]) {
                passes = false
                break
            }
            guard passes else { continue }
            if oneToOne {
                keys.append(requestedPositions.map { paths.values[base + $0] })
                groupVisits.append(visits[path])
                groupWeights.append(weight)
                continue
            }
            var packed = 0
            for index in 0..<requestedPositions.count {
                packed = packed * radixes[index] + paths.values[base + requestedPositions[index]] + 1
            }
            if let existing = grouped[packed] {
                groupVisits[existing] += visits[path]
                groupWeights[existing] += weight
            } else {
                grouped[packed] = keys.count
                keys.append(requestedPositions.map { paths.values[base + $0] })
                groupVisits.append(visits[path])
                groupWeights.append(weight)
            }
        }

        let v = Double(population.visits)
        let purchasesPerVisit = Double(population.purchases) / v
        let orderKopecks =
            population.purchases > 0 ? Double(population.revenueKopecks) / Double(population.purchases) : 0
        let unfiltered = filterChecks.isEmpty

        // Every count of the day is shared out over the rows in proportion to their visits × their
        // modifiers (largest remainder), so the rows add up to the day exactly whatever the
        // dimensions: a rate reads the same in total, by source and by device. A filter keeps only
        // some rows: they share out their part of the day (their weight's share of every path's).
        func shareOut(_ total: Int, _ facet: AttributeModel.Facet, caps: [Double]? = nil) -> [Int] {
            let slot = facet.rawValue - 1
            let weights = groupWeights.map { $0[slot] }
            var kept = total
            if !unfiltered {
                let all = allWeights[slot]
                kept = all > 0 ? Int((Double(total) * weights.reduce(0, +) / all).rounded()) : 0
            }
            return PathSet.shareOut(kept, weights: weights, caps: caps)
        }
        let rowVisits = groupVisits.map(Double.init)
        let extraPageviews = shareOut(population.pageviews - population.visits, .depth)
        let bounces = shareOut(population.bounces, .bounce, caps: rowVisits)
        let durations = shareOut(population.durationSeconds, .duration)
        let robots = shareOut(population.robotVisits, .robots, caps: rowVisits)
        let reaches = goalIndexes.map { index in
            index.map { shareOut(population.goalReaches[$0], .conversion, caps: rowVisits) }
        }
        // Users are not additive: a visitor who came twice, by two sources, is one of each source's
        // users and one of the day's. The segments' users exceed the day's by the overlap of the
        // requested dimensions; every row with visits has at least one.
        let usual = requested.reduce(0) { $0 + $1.userOverlap }
        let overlap = requested.isEmpty ? 0 : attributes.counter.userOverlap ?? usual
        let usersTotal = Int((Double(population.users) * (1 + overlap)).rounded())
        let extraUsers = shareOut(max(0, usersTotal - keys.count), .users, caps: rowVisits.map { $0 - 1 })
        let rowUsers = extraUsers.map { Double($0 + 1) }
        let newUsers = shareOut(population.newUsers, .newShare, caps: rowUsers)

        var rows: [ReportRow] = []
        rows.reserveCapacity(keys.count)
        // Purchases and revenue are shared out below: each row's weight for them.
        var purchaseWeights: [Double] = []
        var orderSizes: [Double] = []
        purchaseWeights.reserveCapacity(keys.count)
        orderSizes.reserveCapacity(keys.count)
        // Index loops: an enumerated() iterator per row costs a phrase report seconds in a debug build.
        for index in 0..<keys.count {
            let key = keys[index]
            let x = Double(groupVisits[index])
            func m(_ facet: AttributeModel.Facet) -> Double {
                var product = 1.0
                for position in 0..<requested.count {
                    product *= AttributeModel.modifier(requested[position], key[position], facet)
                }
                return product
            }
            var figures = RowFigures(goalCount: query.goalIDs.count)
            figures.visits = x
            figures.pageviews = x + Double(extraPageviews[index])
            figures.bounces = Double(bounces[index])
            figures.durationSeconds = Double(durations[index])
            figures.users = rowUsers[index]
            figures.newUsers = Double(newUsers[index])
            figures.robotVisits = Double(robots[index])
            for slot in 0..<reaches.count {
                if let shared = reaches[slot] { figures.goalReaches[slot] = Double(shared[index]) }
            }
            purchaseWeights.append(x * purchasesPerVisit * m(.conversion))
            orderSizes.append(orderKopecks * m(.orderValue))
            rows.append(ReportRow(bucket: bucket, values: key, figures: figures))
        }
        // The period's purchases and revenue shared out over the rows by largest remainder, so that
        // the rows add up to the day's totals exactly, as the real API's do (rounding each row on its
        // own lost 87 purchases of a May); each source's orders of its own size. A filter keeps only
        // some rows: they share out what their weights make.
        var purchases = [Int](repeating: 0, count: rows.count)
        let purchaseTotal = unfiltered ? population.purchases : Int(purchaseWeights.reduce(0, +).rounded())
        PathSet.splitLargestRemainder(purchaseTotal, shares: purchaseWeights, range: 0..<rows.count, into: &purchases)
        let revenueWeights = rows.indices.map { Double(purchases[$0]) * orderSizes[$0] }
        var revenue = [Int](repeating: 0, count: rows.count)
        let revenueTotal = unfiltered ? population.revenueKopecks : Int(revenueWeights.reduce(0, +).rounded())
        PathSet.splitLargestRemainder(revenueTotal, shares: revenueWeights, range: 0..<rows.count, into: &revenue)
        for index in rows.indices {
            rows[index].figures.purchases = Double(purchases[index])
            rows[index].figures.revenueKopecks = Double(revenue[index])
        }
        return rows
    }
}

/// A row's identity when rows of several counters are merged.
struct RowKey: Hashable {
    let bucket: Int
    let values: [Int]
}

/// A row of a report by hour: its bucket, its local hour and its attribute values.
struct HourRowKey: Hashable {
    let bucket: Int
    let hour: Int
    let values: [Int]
}

/// Every combination of the needed attributes' values, as a tree: level k holds the paths over the
/// first k+1 attributes, each child knowing its parent and its share of the parent's visits.
///
/// Visits are split level by level (a source's visits over its engines, then each engine's over its
/// phrases...), so a parent's row always equals the sum of its children's rows in any report.
struct PathSet {
    let needed: [Attribute]
    /// `count × needed.count` value indexes of the complete paths, row-major.
    private(set) var values: [Int] = []
    /// Per level: where each parent's children start (one extra entry at the end) and each child's
    /// share of its parent.
    private var childStarts: [[Int]] = []
    private var shares: [[Double]] = []

    var count: Int { shares.last?.count ?? 0 }

    init(needed: [Attribute], model: AttributeModel) {
        self.needed = needed
        var values: [Int] = []
        var width = 0
        var parentCount = 1
        var choiceCache: [Int: [(Int, Double)]] = [:]
        for attribute in needed {
            let parentPosition = attribute.parent.flatMap { needed.firstIndex(of: $0) }
            var newValues: [Int] = []
            var levelShares: [Double] = []
            var starts: [Int] = [0]
            starts.reserveCapacity(parentCount + 1)
            choiceCache.removeAll(keepingCapacity: true)
            for path in 0..<parentCount {
                let parent = parentPosition.map { values[path * width + $0] } ?? -1
                let choices: [(Int, Double)]
                if let cached = choiceCache[parent] {
                    choices = cached
                } else {
                    choices = model.choices(attribute, parent: parent)
                    choiceCache[parent] = choices
                }
                levelShares.reserveCapacity(levelShares.count + choices.count)
                for (value, share) in choices {
                    newValues.append(contentsOf: values[(path * width)..<(path * width + width)])
                    newValues.append(value)
                    levelShares.append(share)
                }
                starts.append(levelShares.count)
            }
            values = newValues
            childStarts.append(starts)
            shares.append(levelShares)
            parentCount = levelShares.count
            width += 1
        }
        self.values = values
    }

    /// Splits `total` visits down the tree; the parts of every group add up to their parent exactly.
    func allocate(_ total: Int) -> [Int] {
        var counts = [total]
        for level in shares.indices {
            var next = [Int](repeating: 0, count: shares[level].count)
            let starts = childStarts[level]
            for parent in counts.indices where counts[parent] > 0 {
                PathSet.splitLargestRemainder(
                    counts[parent], shares: shares[level], range: starts[parent]..<starts[parent + 1], into: &next)
            }
            counts = next
        }
        return counts
    }

    /// Gives each member of `range` the floor of its share of `total`, then one more to the largest
    /// remainders (ties to the earlier member) until the parts add up to `total`. Linear at any
    /// size (`largestRemainders`), so splitting 150,000 phrases costs a pass or two over them.
    static func splitLargestRemainder(_ total: Int, shares: [Double], range: Range<Int>, into parts: inout [Int]) {
        guard !range.isEmpty else { return }
        var shareSum = 0.0
        for index in range { shareSum += shares[index] }
        guard shareSum > 0 else {
            parts[range.lowerBound] += total
            return
        }
        let scale = Double(total) / shareSum
        var remainders = [Double](repeating: 0, count: range.count)
        var assigned = 0
        for index in range {
            let exact = shares[index] * scale
            let floor = exact.rounded(.down)
            parts[index] = Int(floor)
            remainders[index - range.lowerBound] = exact - floor
            assigned += Int(floor)
        }
        var leftover = total - assigned
        guard leftover > 0 else { return }
        for member in largestRemainders(leftover, remainders) {
            parts[range.lowerBound + member] += 1
            leftover -= 1
        }
        // Floating-point slack can leave a unit: give it to the first members.
        var member = range.lowerBound
        while leftover > 0 {
            parts[member] += 1
            leftover -= 1
            member = member + 1 < range.upperBound ? member + 1 : range.lowerBound
        }
    }

    /// The members (indexes of `remainders`) that get one more: the `count` largest remainders, ties
    /// to the earlier member, then members with none in order (what floating point leaves over).
    /// A histogram of the remainders finds the smallest one that still gets a unit; only the members
    /// of its bin are sorted, so the choice is the full sort's at the cost of two passes.
    static func largestRemainders(_ count: Int, _ remainders: [Double]) -> [Int] {
        let n = remainders.count
        guard count > 0, n > 0 else { return [] }
        func byRemainder(_ a: Int, _ b: Int) -> Bool {
            remainders[a] != remainders[b] ? remainders[a] > remainders[b] : a < b
        }
        if n <= 64 { return Array(Array(0..<n).sorted(by: byRemainder).prefix(count)) }
        let binCount = min(4096, n)
        let width = Double(binCount)
        var bins = [Int](repeating: 0, count: binCount)
        var positive = 0
        for member in 0..<n where remainders[member] > 0 {
            bins[min(binCount - 1, Int(remainders[member] * width))] += 1
            positive += 1
        }
        var chosen: [Int] = []
        chosen.reserveCapacity(min(count, n))
        if positive <= count {
            for member in 0..<n where remainders[member] > 0 { chosen.append(member) }
            for member in 0..<n where remainders[member] <= 0 && chosen.count < count { chosen.append(member) }
            return chosen
        }
        // The boundary bin: every member above it gets one, the first `needed` of it (sorted) too.
        var boundary = binCount - 1
        var above = 0
        while above + bins[boundary] < count {
            above += bins[boundary]
            boundary -= 1
        }
        var edge: [Int] = []
        edge.reserveCapacity(bins[boundary])
        for member in 0..<n where remainders[member] > 0 {
            let bin = min(binCount - 1, Int(remainders[member] * width))
            if bin > boundary {
                chosen.append(member)
            } else if bin == boundary {
                edge.append(member)
            }
        }
        chosen.append(contentsOf: edge.sorted(by: byRemainder).prefix(count - above))
        return chosen
    }
}
