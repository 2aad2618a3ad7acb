import Foundation

/// A `group` value: how date periods are cut.
enum DateGrouping: String, Sendable, CaseIterable {
    case day, week, month, quarter, year

    /// The capitalised form the API echoes in `query.group`.
    var echo: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

    /// The start of the period containing `day`.
    func start(of day: Day) -> Day {
        switch self {
        case .day: return day
        case .week: return day.startOfWeek
        case .month: return day.startOfMonth
        case .quarter: return day.startOfQuarter
        case .year: return day.startOfYear
        }
    }

    /// The periods covering `first...last`, the first and last clipped to the range.
    func buckets(from first: Day, through last: Day) -> [ClosedRange<Day>] {
        guard first <= last else { return [] }
        var result: [ClosedRange<Day>] = []
        var start = first
        while start <= last {
            let next: Day
            switch self {
            case .day: next = start.advanced(by: 1)
            case .week: next = start.startOfWeek.advanced(by: 7)
            case .month:
                let (y, m, _) = start.components
                next = m == 12 ? Day(year: y + 1, month: 1, day: 1) : Day(year: y, month: m + 1, day: 1)
            case .quarter:
                let (y, m, _) = start.startOfQuarter.components
                next = m == 10 ? Day(year: y + 1, month: 1, day: 1) : Day(year: y, month: m + 3, day: 1)
            case .year: next = Day(year: start.components.year + 1, month: 1, day: 1)
            }
            result.append(start...min(last, next.advanced(by: -1)))
            start = next
        }
        return result
    }
}

/// One requested dimension.
enum DimensionKind: Sendable, Equatable {
    /// `ym:s:date`: one row per day.
    case date
    /// `ym:s:datePeriod<group>`: one row per period.
    case period(DateGrouping)
    /// `ym:s:hour`: one row per local hour of the day (`00:00` … `23:00`), alone (the hours of the
    /// whole interval summed) or after `ym:s:date` (each day's hours).
    case hour
    /// A visit attribute such as the traffic source.
    case attribute(Attribute)
    /// A product of a shop's e-commerce events (name, brand, category).
    case product(ProductField)
}

extension DimensionKind {
    /// Whether the dimension's rows are values (a visit attribute or a product), not dates.
    var isValued: Bool {
        switch self {
        case .attribute, .product: return true
        case .date, .period, .hour: return false
        }
    }
}

/// One requested metric.
enum MetricKind: Sendable, Equatable {
    case visits, pageviews, users, newUsers, bounceRate, pageDepth, avgVisitDurationSeconds, percentNewVisitors,
        robotPercentage
    case goalReaches(Int)
    case goalConversionRate(Int)
    /// E-commerce; money in a currency code, or nil for the query's `currency` (`<currency>`).
    case purchases
    case revenue(String?)
    case revenuePerPurchase(String?)
    case revenuePerVisit(String?)
    /// `ym:s:goal<ID>converted<CUR>Revenue`: the goal's reaches × its price (kopecks, filled in from
    /// the fixture when the query is read).
    case goalRevenue(Int, String?, priceKopecks: Double)
    /// Product events (the e-commerce product presets): counts, and money in a currency code or nil
    /// for the query's.
    case productImpressions, productImpressionsUniq, productBasketsQuantity, productBasketsUniq,
        productPurchasedQuantity, productPurchasedUniq
    case productBasketsPrice(String?)
    case productPurchasedPrice(String?)

    /// Whether the metric counts product events (answered from the shop's products, not its visits).
    var isProduct: Bool {
        switch self {
        case .productImpressions, .productImpressionsUniq, .productBasketsQuantity, .productBasketsUniq,
            .productPurchasedQuantity, .productPurchasedUniq, .productBasketsPrice, .productPurchasedPrice:
            return true
        default:
            return false
        }
    }

    /// Roubles per unit of each currency the simulator converts into (fixed, made-up rates).
    static let roublesPer: [String: Double] = ["RUB": 1, "USD": 90, "EUR": 100, "YND": 30]

    /// Kopecks as an amount of `code` (nil: roubles; the query resolves `<currency>` first).
    static func converted(_ kopecks: Double, into code: String?) -> Double {
        kopecks / 100 / (roublesPer[code ?? "RUB"] ?? 1)
    }

    /// `…ecommerce<CUR>ConvertedRevenue[PerPurchase|PerVisit]`, `…productBaskets<CUR>ConvertedPrice`
    /// and `…productPurchased<CUR>ConvertedPrice` with CUR a known code or `<currency>`.
    private static func money(_ name: String) -> MetricKind? {
        guard
            let prefix = ["ym:s:ecommerce", "ym:s:productBaskets", "ym:s:productPurchased"].first(where: name.hasPrefix)
        else { return nil }
        let rest = name.dropFirst(prefix.count)
        let code: String?
        let tail: Substring
        if rest.hasPrefix("<currency>") {
            code = nil
            tail = rest.dropFirst("<currency>".count)
        } else {
            let candidate = String(rest.prefix(3))
            guard roublesPer[candidate] != nil else { return nil }
            code = candidate
            tail = rest.dropFirst(3)
        }
        switch (prefix, tail) {
        case ("ym:s:ecommerce", "ConvertedRevenue"): return .revenue(code)
        case ("ym:s:ecommerce", "ConvertedRevenuePerPurchase"): return .revenuePerPurchase(code)
        case ("ym:s:ecommerce", "ConvertedRevenuePerVisit"): return .revenuePerVisit(code)
        case ("ym:s:productBaskets", "ConvertedPrice"): return .productBasketsPrice(code)
        case ("ym:s:productPurchased", "ConvertedPrice"): return .productPurchasedPrice(code)
        default: return nil
        }
    }

    /// The same metric with `<currency>` resolved to the query's currency.
    func resolved(currency: String) -> MetricKind {
        switch self {
        case .revenue(nil): return .revenue(currency)
        case .revenuePerPurchase(nil): return .revenuePerPurchase(currency)
        case .revenuePerVisit(nil): return .revenuePerVisit(currency)
        case .goalRevenue(let id, nil, let price): return .goalRevenue(id, currency, priceKopecks: price)
        case .productBasketsPrice(nil): return .productBasketsPrice(currency)
        case .productPurchasedPrice(nil): return .productPurchasedPrice(currency)
        default: return self
        }
    }

    /// Reads a metric name; nil when the simulator does not know it.
    static func named(_ name: String) -> MetricKind? {
        switch name {
        case "ym:s:visits": return .visits
        case "ym:s:pageviews": return .pageviews
        case "ym:s:users": return .users
        case "ym:s:newUsers": return .newUsers
        case "ym:s:bounceRate": return .bounceRate
        case "ym:s:pageDepth": return .pageDepth
        case "ym:s:avgVisitDurationSeconds": return .avgVisitDurationSeconds
        case "ym:s:percentNewVisitors": return .percentNewVisitors
        case "ym:s:robotPercentage": return .robotPercentage
        case "ym:s:ecommercePurchases": return .purchases
        case "ym:s:productImpressions": return .productImpressions
        case "ym:s:productImpressionsUniq": return .productImpressionsUniq
        case "ym:s:productBasketsQuantity": return .productBasketsQuantity
        case "ym:s:productBasketsUniq": return .productBasketsUniq
        case "ym:s:productPurchasedQuantity": return .productPurchasedQuantity
        case "ym:s:productPurchasedUniq": return .productPurchasedUniq
        default:
            if let money = money(name) { return money }
            guard name.hasPrefix("ym:s:goal") else { return nil }
            let rest = name.dropFirst("ym:s:goal".count)
            // goal<ID>converted<CUR>Revenue, CUR a known code or <currency>.
            if rest.hasSuffix("Revenue"), let converted = rest.firstRange(of: "converted"),
                let id = Int(rest[..<converted.lowerBound]), id > 0
            {
                let code = String(rest[converted.upperBound...].dropLast("Revenue".count))
                if code == "<currency>" { return .goalRevenue(id, nil, priceKopecks: 0) }
                if roublesPer[code] != nil { return .goalRevenue(id, code, priceKopecks: 0) }
                return nil
            }
            for (suffix, make) in [
                ("reaches", MetricKind.goalReaches), ("conversionRate", MetricKind.goalConversionRate)
            ] {
                if rest.hasSuffix(suffix), let id = Int(rest.dropLast(suffix.count)), id > 0 { return make(id) }
            }
            return nil
        }
    }

    var goalID: Int? {
        switch self {
        case .goalReaches(let id), .goalConversionRate(let id), .goalRevenue(let id, _, _): return id
        default: return nil
        }
    }
}

/// `accuracy`: how much of the data a report may read.
enum Accuracy: Sendable, Equatable {
    /// Never sample.
    case full
    /// Sample so that about this many visits are read.
    case target(Int)
    /// Read exactly this share of visits (a number in (0, 1)).
    case share(Double)
}

/// One `filters` term the simulator applies: `dimension=='value'` or `dimension!='value'`.
struct FilterTerm: Sendable {
    let attribute: Attribute
    let value: String
    let equal: Bool
}

/// The `filters` terms on `ym:s:date` and `ym:s:hour` (`==`, `!=`, `=.(…)`, `!.(…)`), and `OR` groups
/// of them (`(ym:s:date!='2026-12-07' OR ym:s:hour=.('00:00',…))`: a day's finished hours): reports by
/// `ym:s:hour` keep the days and hours they pass; other reports count each day's passing hours only
/// (`TrafficModel.timeFilter`: the day's figures scaled by the daily curve's share of them).
struct TimeFilter: Sendable {
    /// Each term: the values it names and whether a day (an hour) must be among them.
    var days: [(values: Set<Day>, keep: Bool)] = []
    var hours: [(values: Set<Int>, keep: Bool)] = []
    /// `OR` groups: a day's hour passes a group when it passes any one of its alternatives.
    var groups: [[TimeFilter]] = []

    var isEmpty: Bool { days.isEmpty && hours.isEmpty && groups.isEmpty }
    func passes(day: Day) -> Bool { days.allSatisfy { $0.values.contains(day) == $0.keep } }
    func passes(hour: Int) -> Bool { hours.allSatisfy { $0.values.contains(hour) == $0.keep } }
    /// Whether `hour` of `day` passes every term and group.
    func passes(day: Day, hour: Int) -> Bool {
        passes(day: day) && passes(hour: hour)
            && groups.allSatisfy { group in group.contains { $0.passes(day: day, hour: hour) } }
    }

    /// `14`, `14:00` → 14.
    static func hour(_ text: String) -> Int? {
        let digits = text.hasSuffix(":00") ? String(text.dropLast(3)) : text
        guard (1...2).contains(digits.count), let hour = Int(digits), (0..<24).contains(hour) else { return nil }
        return hour
    }
}

/// One `filters` term on a product dimension: `ym:s:productName=='value'` (or `!=`).
struct ProductFilterTerm: Sendable {
    let field: ProductField
    let value: String
    let equal: Bool

    /// Whether product `product` (a pool index) passes.
    func matches(product: Int) -> Bool {
        (ProductCatalog.describe(field, ProductCatalog.value(field, ofProduct: product)) == value) == equal
    }
}

/// One `sort` key.
struct SortKey: Sendable {
    enum Column: Sendable, Equatable {
        case dimension(Int)
        case metric(Int)
    }

    let column: Column
    let descending: Bool
}

/// A parsed, validated Reporting API request.
struct ParsedStatQuery: Sendable {
    var counters: [CounterFixture]
    var dimensionNames: [String]
    var dimensions: [DimensionKind]
    var metricNames: [String]
    var metrics: [MetricKind]
    var date1: Day
    var date2: Day
    var filterText: String?
    var filters: [FilterTerm]
    var productFilters: [ProductFilterTerm] = []
    var timeFilter = TimeFilter()
    var sortNames: [String]
    var sort: [SortKey]
    var limit: Int
    var offset: Int
    var accuracy: Accuracy
    var preset: String?
    var language: Language
    var group: DateGrouping
    var attribution: String
    var currency: String
    var topKeys: Int
    /// Goal ids used by metrics, in first-use order; row figures keep one slot per id.
    var goalIDs: [Int]

    static let maximumMetrics = 20
    static let maximumDimensions = 10
    static let maximumLimit = 100_000

    /// Templates for `preset=NAME`; explicit `metrics`/`dimensions` override them.
    static let presets: [String: (dimensions: [String], metrics: [String])] = {
        let common = ["ym:s:visits", "ym:s:users", "ym:s:bounceRate", "ym:s:pageDepth", "ym:s:avgVisitDurationSeconds"]
        let productCounts = [
            "ym:s:productImpressions", "ym:s:productImpressionsUniq", "ym:s:productBasketsQuantity",
            "ym:s:productPurchasedQuantity"
        ]
        return [
            "traffic": (
                ["ym:s:datePeriod<group>"],
                [
                    "ym:s:visits", "ym:s:users", "ym:s:pageviews", "ym:s:percentNewVisitors", "ym:s:bounceRate",
                    "ym:s:pageDepth", "ym:s:avgVisitDurationSeconds"
                ]
            ),
            "sources_summary": (["ym:s:trafficSource"], common),
            "sources_search_phrases": (["ym:s:searchPhrase"], common),
            "search_engines": (["ym:s:searchEngine"], common),
            "geo_country": (["ym:s:regionCountry"], common),
            "tech_platforms": (["ym:s:operatingSystem"], common),
            "tech_browsers": (["ym:s:browser"], common),
            "tech_devices": (["ym:s:deviceCategory"], common),
            // The e-commerce "Order sources" template (Reporting API, preset_ecommerce), without the
            // metrics the simulator does not model (productPurchasedUniq, usersPurchasePercentage).
            // The product templates of the same page, as documented.
            "top_products": (["ym:s:productName"], productCounts),
            "top_brands": (["ym:s:productCategoryLevel1", "ym:s:productBrand", "ym:s:productName"], productCounts),
            "basket": (
                ["ym:s:productName"],
                [
                    "ym:s:productBasketsQuantity", "ym:s:productBasketsUniq",
                    "ym:s:productBaskets<currency>ConvertedPrice",
                    "ym:s:productPurchasedQuantity"
                ]
            ),
            "basket_products": (
                ["ym:s:productName"],
                [
                    "ym:s:productPurchasedQuantity", "ym:s:productPurchased<currency>ConvertedPrice",
                    "ym:s:productPurchasedUniq"
                ]
            ),
            "purchase": (
                ["ym:s:<attribution>TrafficSource"],
                [
                    "ym:s:visits", "ym:s:ecommercePurchases", "ym:s:ecommerce<currency>ConvertedRevenue",
                    "ym:s:ecommerce<currency>ConvertedRevenuePerVisit",
                    "ym:s:ecommerce<currency>ConvertedRevenuePerPurchase"
                ]
            )
        ]
    }()

    /// Reads and checks the request's parameters. `byTime` selects the `/bytime` defaults (group
    /// week, no paging).
    static func parse(
        _ items: [(String, String)], caller: TokenFixture, fixtures: FixtureSet, now: Date, byTime: Bool
    ) -> Result<ParsedStatQuery, ResponseError> {
        var parameters: [String: String] = [:]
        for (name, value) in items where parameters[name] == nil {
            parameters[name] = value
        }
        func fail(_ response: HTTPResponse) -> Result<ParsedStatQuery, ResponseError> {
            .failure(ResponseError(response))
        }
        func list(_ text: String?) -> [String] {
            (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

        // Counters first: every one must exist and be readable by the token.
        let idTexts = list(parameters["ids"] ?? parameters["id"])
        guard !idTexts.isEmpty else { return fail(APIError.missingParameter("ids")) }
        var counters: [CounterFixture] = []
        for text in idTexts {
            guard let id = Int(text) else {
                return fail(APIError.invalidParameter("Invalid counter id in ids: \(text)"))
            }
            guard let counter = fixtures.counter(id) else { return fail(APIError.counterNotFound(text)) }
            guard caller.canRead(id) else { return fail(APIError.accessDenied(counter: id)) }
            if !counters.contains(where: { $0.id == id }) { counters.append(counter) }
        }

        // Preset, then explicit lists.
        var dimensionNames: [String] = []
        var metricNames: [String] = []
        let preset = parameters["preset"].flatMap { $0.isEmpty ? nil : $0 }
        if let preset {
            guard let template = presets[preset] else {
                return fail(APIError.invalidParameter("Unknown preset: \(preset)"))
            }
            dimensionNames = template.dimensions
            metricNames = template.metrics
        }
        if parameters["metrics"] != nil { metricNames = list(parameters["metrics"]) }
        if parameters["dimensions"] != nil { dimensionNames = list(parameters["dimensions"]) }
        guard !metricNames.isEmpty else { return fail(APIError.missingParameter("metrics")) }
        guard metricNames.count <= maximumMetrics else {
            return fail(
                APIError.invalidParameter(
                    "Too many metrics: \(metricNames.count); the limit is \(maximumMetrics) metrics per query"))
        }
        guard dimensionNames.count <= maximumDimensions else {
            return fail(
                APIError.invalidParameter(
                    "Too many dimensions: \(dimensionNames.count); the limit is \(maximumDimensions) dimensions per query"
                ))
        }

        // group
        let groupText = parameters["group"]?.lowercased() ?? (byTime ? "week" : "day")
        guard let group = DateGrouping(rawValue: groupText.isEmpty ? (byTime ? "week" : "day") : groupText) else {
            return fail(
                APIError.invalidParameter(
                    "Invalid value of parameter group: \(groupText); the simulator supports day, week, month, quarter, year"
                ))
        }

        // Metrics.
        var metrics: [MetricKind] = []
        var goalIDs: [Int] = []
        let knownGoals = Set(counters.flatMap { $0.goals.map(\.id) })
        for name in metricNames {
            guard let kind = MetricKind.named(name) else {
                return fail(APIError.invalidParameter("Unknown metric: \(name)"))
            }
            if let goal = kind.goalID {
                guard knownGoals.contains(goal) else {
                    return fail(APIError.invalidParameter("Unknown metric: \(name) (no goal \(goal) on the counter)"))
                }
                if !goalIDs.contains(goal) { goalIDs.append(goal) }
            }
            if case .goalRevenue(let id, let code, _) = kind {
                let price = counters.lazy.compactMap { $0.goals.first { $0.id == id }?.priceRoubles }.first ?? 0
                metrics.append(.goalRevenue(id, code, priceKopecks: (price * 100).rounded()))
                continue
            }
            metrics.append(kind)
        }

        // Dimensions.
        var dimensions: [DimensionKind] = []
        for name in dimensionNames {
            let kind: DimensionKind
            if name == "ym:s:date" {
                kind = .date
            } else if name == "ym:s:hour" {
                kind = .hour
            } else if name == "ym:s:datePeriod<group>" {
                kind = .period(group)
            } else if name.hasPrefix("ym:s:datePeriod"),
                let g = DateGrouping(rawValue: String(name.dropFirst("ym:s:datePeriod".count)))
            {
                kind = .period(g)
            } else if let attribute = Attribute.named(name) {
                kind = .attribute(attribute)
            } else if let field = ProductField.named(name) {
                kind = .product(field)
            } else {
                return fail(APIError.invalidParameter("Unknown dimension: \(name)"))
            }
            if dimensions.contains(kind) {
                return fail(APIError.invalidParameter("Dimension \(name) is given twice"))
            }
            dimensions.append(kind)
        }
        let dateDimensions = dimensions.filter { !$0.isValued && $0 != .hour }
        if dimensions.contains(.hour),
            dimensions.contains(where: { if case .product = $0 { return true } else { return false } })
        {
            return fail(
                APIError.invalidParameter("The simulator answers ym:s:hour with visit dimensions only, not by product"))
        }
        guard dateDimensions.count <= 1 else {
            return fail(APIError.invalidParameter("The simulator supports one date dimension per query"))
        }
        if byTime, !dateDimensions.isEmpty || dimensions.contains(.hour) {
            return fail(APIError.invalidParameter("Date dimensions are not allowed in /stat/v1/data/bytime; use group"))
        }

        // Dates, in the first counter's time zone.
        let clock = CounterClock(now: now, timeZone: counters[0].timeZone)
        func resolve(_ name: String, default fallback: String) -> Day? {
            let text = parameters[name].flatMap { $0.isEmpty ? nil : $0 } ?? fallback
            switch text.lowercased() {
            case "today": return clock.today
            case "yesterday": return clock.today.advanced(by: -1)
            default:
                if text.hasSuffix("daysAgo"), let n = Int(text.dropLast("daysAgo".count)), (0...100_000).contains(n) {
                    return clock.today.advanced(by: -n)
                }
                return Day(text)
            }
        }
        guard let date1 = resolve("date1", default: "6daysAgo") else {
            return fail(
                APIError.invalidParameter(
                    "Invalid value of parameter date1: \(parameters["date1"] ?? ""); use YYYY-MM-DD, today, yesterday or NdaysAgo"
                ))
        }
        guard let date2 = resolve("date2", default: "today") else {
            return fail(
                APIError.invalidParameter(
                    "Invalid value of parameter date2: \(parameters["date2"] ?? ""); use YYYY-MM-DD, today, yesterday or NdaysAgo"
                ))
        }
        // The API has no data from before Metrika existed; far-off dates only make work.
        let earliest = Day(year: 2000, month: 1, day: 1)
        let latest = Day(year: 2100, month: 12, day: 31)
        for (name, day) in [("date1", date1), ("date2", date2)] where day < earliest || day > latest {
            return fail(
                APIError.invalidParameter(
                    "Invalid value of parameter \(name): \(day.string) is outside 2000-01-01...2100-12-31"))
        }
        guard date1 <= date2 else {
            return fail(
                APIError.invalidParameter(
                    "Invalid date interval: date1 \(date1.string) is after date2 \(date2.string)"))
        }

        // Filters: equality / inequality on attribute dimensions; other syntax is ignored.
        let filterText = parameters["filters"].flatMap { $0.isEmpty ? nil : $0 }
        var filters: [FilterTerm] = []
        var productFilters: [ProductFilterTerm] = []
        var timeFilter = TimeFilter()
        if let filterText {
            switch parseFilters(filterText) {
            case .success(let terms): (filters, productFilters, timeFilter) = terms
            case .failure(let error): return fail(error.response)
            }
        }

        // Product reports (the e-commerce product presets) are answered from the shop's products,
        // not from its visits: the simulator does not cut product events by visit attributes, nor
        // visits by product (docs/simulator.md). By date (or in all) the two go together.
        let productDimension = dimensions.first { if case .product = $0 { return true } else { return false } }
        if productDimension != nil || !productFilters.isEmpty || metrics.contains(where: \.isProduct) {
            if productDimension != nil || !productFilters.isEmpty,
                let index = metrics.firstIndex(where: { !$0.isProduct })
            {
                return fail(
                    APIError.invalidParameter(
                        "The simulator answers reports by product with product metrics only; \(metricNames[index]) cannot be combined with ym:s:product… dimensions or filters"
                    ))
            }
            if let index = dimensions.firstIndex(where: {
                if case .attribute = $0 { return true } else { return false }
            }) {
                return fail(
                    APIError.invalidParameter(
                        "The simulator answers product metrics by product dimensions and dates only, not by \(dimensionNames[index])"
                    ))
            }
            if let term = filters.first {
                return fail(
                    APIError.invalidParameter(
                        "The simulator filters product reports by product dimensions only, not by \(term.attribute.apiName)"
                    ))
            }
        }

        if dimensions.contains(.hour), metrics.contains(where: \.isProduct) || !productFilters.isEmpty {
            return fail(APIError.invalidParameter("The simulator answers ym:s:hour with visit metrics only"))
        }

        // Paging.
        let limit: Int
        if let text = parameters["limit"], !text.isEmpty {
            guard let n = Int(text), n >= 1 else {
                return fail(APIError.invalidParameter("Invalid value of parameter limit: \(text)"))
            }
            guard n <= maximumLimit else {
                return fail(
                    APIError.invalidParameter(
                        "Invalid value of parameter limit: \(n); limit must not exceed \(maximumLimit)"))
            }
            limit = n
        } else {
            limit = 100
        }
        let offset: Int
        if let text = parameters["offset"], !text.isEmpty {
            guard let n = Int(text), n >= 1 else {
                return fail(APIError.invalidParameter("Invalid value of parameter offset: \(text); offset starts at 1"))
            }
            offset = n
        } else {
            offset = 1
        }

        // Accuracy.
        let accuracy: Accuracy
        switch (parameters["accuracy"] ?? "medium").lowercased() {
        case "low": accuracy = .target(100_000)
        case "medium", "": accuracy = .target(1_000_000)
        case "high": accuracy = .target(5_000_000)
        case "full": accuracy = .full
        case let text:
            guard let share = Double(text), share > 0, share <= 1 else {
                return fail(
                    APIError.invalidParameter(
                        "Invalid value of parameter accuracy: \(text); use low, medium, high, full or a number in (0, 1]"
                    ))
            }
            accuracy = share >= 1 ? .full : .share(share)
        }

        let language: Language = parameters["lang"]?.lowercased() == "ru" ? .russian : .english
        let topKeysText = parameters["top_keys"] ?? "7"
        guard let topKeys = Int(topKeysText), (1...30).contains(topKeys) else {
            return fail(APIError.invalidParameter("Invalid value of parameter top_keys: \(topKeysText); use 1...30"))
        }

        // currency: money metrics written with `<currency>` are in it; by default the counter's own.
        let currency = parameters["currency"].flatMap { $0.isEmpty ? nil : $0.uppercased() } ?? counters[0].currency
        guard MetricKind.roublesPer[currency] != nil else {
            return fail(
                APIError.invalidParameter("Invalid value of parameter currency: \(currency); use RUB, USD, EUR or YND"))
        }
        metrics = metrics.map { $0.resolved(currency: currency) }

        var query = ParsedStatQuery(
            counters: counters, dimensionNames: dimensionNames, dimensions: dimensions, metricNames: metricNames,
            metrics: metrics, date1: date1, date2: date2, filterText: filterText, filters: filters,
            productFilters: productFilters, sortNames: [],
            sort: [], limit: limit, offset: offset, accuracy: accuracy, preset: preset, language: language,
            group: group, attribution: attributionEcho(parameters["attribution"]),
            currency: currency,
            topKeys: topKeys, goalIDs: goalIDs)
        query.timeFilter = timeFilter

        // Sort: named columns must be in the query.
        let sortTexts = list(parameters["sort"])
        if sortTexts.isEmpty {
            if let first = dimensions.first, first.isValued {
                query.sort = [SortKey(column: .metric(0), descending: true)]
                query.sortNames = ["-" + metricNames[0]]
            } else if dimensions.first != nil {
                query.sort = [SortKey(column: .dimension(0), descending: false)]
                query.sortNames = [dimensionNames[0]]
            } else {
                query.sort = [SortKey(column: .metric(0), descending: true)]
                query.sortNames = ["-" + metricNames[0]]
            }
        } else {
            for text in sortTexts {
                let descending = text.hasPrefix("-")
                let name = descending ? String(text.dropFirst()) : text
                if let index = metricNames.firstIndex(of: name) {
                    query.sort.append(SortKey(column: .metric(index), descending: descending))
                } else if let index = dimensionNames.firstIndex(of: name) {
                    query.sort.append(SortKey(column: .dimension(index), descending: descending))
                } else {
                    return fail(
                        APIError.invalidParameter(
                            "Invalid value of parameter sort: \(name) is neither a metric nor a dimension of the query")
                    )
                }
                query.sortNames.append(text)
            }
        }
        return .success(query)
    }

    private static func attributionEcho(_ text: String?) -> String {
        switch (text ?? "lastsign").lowercased() {
        case "", "lastsign": return "LastSign"
        case "last": return "Last"
        case "first": return "First"
        case "cross_device_lastsign": return "CrossDeviceLastSign"
        // The newer models as a real answer spells them: `CROSS_DEVICE_LAST_YANDEX_DIRECT_CLICK`.
        case "cross_device_last_significant", "cross_device_first", "cross_device_last", "automatic":
            return (text ?? "").uppercased()
        case let other: return other.prefix(1).uppercased() + other.dropFirst()
        }
    }

    /// Parses `a=='x' AND b!='y' AND c=.('x','y')`: `==` and `!=` on attributes and products;
    /// `==`, `!=`, `=.(…)` and `!.(…)` on `ym:s:date` and `ym:s:hour` (`TimeFilter`). Terms on unknown
    /// dimensions are an error, as is a date or an hour that is none; terms in other syntax (metric
    /// conditions, `=@`, `OR` groups...) are ignored, as docs/simulator.md says.
    static func parseFilters(_ text: String) -> Result<([FilterTerm], [ProductFilterTerm], TimeFilter), ResponseError> {
        var terms: [FilterTerm] = []
        var productTerms: [ProductFilterTerm] = []
        var time = TimeFilter()
        for rawTerm in splitOnAnd(text) {
            var term = rawTerm.trimmingCharacters(in: .whitespaces)
            while term.hasPrefix("("), term.hasSuffix(")") {
                term = String(term.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
            }
            // An OR group of date and hour terms; any other OR group is ignored.
            let alternatives = split(term, on: " OR ")
            if alternatives.count > 1 {
                var group: [TimeFilter] = []
                for alternative in alternatives {
                    switch parseFilters(alternative) {
                    case .failure(let error): return .failure(error)
                    case .success(let parsed):
                        if parsed.0.isEmpty, parsed.1.isEmpty, !parsed.2.isEmpty { group.append(parsed.2) }
                    }
                }
                if group.count == alternatives.count { time.groups.append(group) }
                continue
            }
            let equal: Bool
            let pieces: [String]
            var list = false
            if let range = term.range(of: "!.(") ?? term.range(of: "=.(") {
                equal = term[range].hasPrefix("=")
                list = true
                pieces = [String(term[..<range.lowerBound]), "(" + String(term[range.upperBound...])]
            } else if let range = term.range(of: "!=") {
                equal = false
                pieces = [String(term[..<range.lowerBound]), String(term[range.upperBound...])]
            } else if let range = term.range(of: "==") {
                equal = true
                pieces = [String(term[..<range.lowerBound]), String(term[range.upperBound...])]
            } else {
                continue
            }
            let name = pieces[0].trimmingCharacters(in: .whitespaces)
            guard name.hasPrefix("ym:") else { continue }
            let values: [String]
            if list {
                let inside = pieces[1].trimmingCharacters(in: .whitespaces)
                guard inside.hasSuffix(")"), let quoted = quotedList(String(inside.dropFirst().dropLast())) else {
                    continue
                }
                values = quoted
            } else {
                let value = pieces[1].trimmingCharacters(in: .whitespaces)
                guard value.count >= 2, value.hasPrefix("'"), value.hasSuffix("'") else { continue }
                values = [String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\'", with: "'")]
            }
            if name == "ym:s:date" || name == "ym:s:hour" {
                if name == "ym:s:date" {
                    let days = values.compactMap { Day($0) }
                    guard days.count == values.count else {
                        return .failure(
                            ResponseError(
                                APIError.invalidParameter("Invalid value in filters: \(name) takes dates YYYY-MM-DD")))
                    }
                    time.days.append((Set(days), equal))
                } else {
                    let hours = values.compactMap(TimeFilter.hour)
                    guard hours.count == values.count else {
                        return .failure(
                            ResponseError(
                                APIError.invalidParameter(
                                    "Invalid value in filters: \(name) takes hours 0...23 or HH:00")))
                    }
                    time.hours.append((Set(hours), equal))
                }
                continue
            }
            // Lists on other dimensions are not applied (docs/simulator.md).
            guard !list, let value = values.first else { continue }
            if let field = ProductField.named(name) {
                productTerms.append(ProductFilterTerm(field: field, value: value, equal: equal))
                continue
            }
            guard let attribute = Attribute.named(name) else {
                if MetricKind.named(name) != nil || name.hasPrefix("ym:s:date") { continue }
                return .failure(ResponseError(APIError.invalidParameter("Unknown dimension in filters: \(name)")))
            }
            terms.append(FilterTerm(attribute: attribute, value: value, equal: equal))
        }
        return .success((terms, productTerms, time))
    }

    /// `'a','b\\'c'` → [a, b'c]; nil when it is not a list of quoted values.
    static func quotedList(_ text: String) -> [String]? {
        var values: [String] = []
        var current = ""
        var inQuote = false
        var expectingValue = true
        var escaped = false
        for c in text {
            if inQuote {
                if escaped {
                    current.append(c)
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == "'" {
                    inQuote = false
                    values.append(current)
                    current = ""
                    expectingValue = false
                } else {
                    current.append(c)
                }
            } else if c == " " {
                continue
            } else if c == "'", expectingValue {
                inQuote = true
            } else if c == ",", !expectingValue {
                expectingValue = true
            } else {
                return nil
            }
        }
        return inQuote || expectingValue || values.isEmpty ? nil : values
    }

    /// Splits on ` AND ` outside quotes (case-insensitive).
    private static func splitOnAnd(_ text: String) -> [String] { split(text, on: " AND ") }

    /// Splits on `separator` (upper case, spaces around) outside quotes and parentheses, case-insensitively.
    private static func split(_ text: String, on separator: String) -> [String] {
        let width = separator.count
        var depth = 0
        var parts: [String] = []
        var current = ""
        var inQuote = false
        var previous: Character = " "
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let c = characters[index]
            if c == "'" && previous != "\\" { inQuote.toggle() }
            if !inQuote, c == "(" { depth += 1 }
            if !inQuote, c == ")" { depth -= 1 }
            if !inQuote, depth == 0, c == " ", index + width <= characters.count,
                String(characters[index..<index + width]).uppercased() == separator
            {
                parts.append(current)
                current = ""
                index += width
                previous = " "
                continue
            }
            current.append(c)
            previous = c
            index += 1
        }
        parts.append(current)
        return parts
    }
}
