import MetrikaModel

// Each report parameter is declared once, here, in the spirit of swift-argument-parser's property
// declarations: its name, how its value is written, its bounds and choices, its help for a person
// and for a model, and how it is read into the request's fields. The CLI makes its option (help,
// completions, man page line) from a declaration, the MCP server its `get_report` argument (schema
// and check); both read what was given through `read`, and `ReportRequest(fields)` judges how the
// parameters combine. No entry point's syntax is written here: help sentences name parameters
// through a `ParameterNaming`.

/// How a parameter's value is written, whatever the entry point: a CLI option's value, an MCP
/// argument's JSON type.
package enum ParameterShape: Sendable, Equatable {
    /// Given or not (`--raw`; `true`).
    case flag
    /// One word, at most `maxLength` characters.
    case text(maxLength: Int)
    /// One whole number.
    case integer(ClosedRange<Int>)
    /// A list of words (a comma list; an array of strings).
    case list(maxItems: Int, maxLength: Int)
    /// A list of counter ids (a comma list; an array of integers).
    case ids(maxItems: Int)
}

/// One parameter of a request whose fields are `Fields`.
package struct ParameterDeclaration<Fields>: Sendable {
    package let parameter: Parameter
    package let shape: ParameterShape
    /// The CLI's one-letter spelling, when it has one.
    package let short: Character?
    /// What the value is called in a usage line (`LIST`, `N`, `ru|en`).
    package let valueName: String
    /// The values allowed (a schema's `enum`); empty: any.
    package let choices: [String]
    /// What a shell completes the value from (the CLI's `choices`); nil: nothing listed.
    package let completions: [String]?
    /// Whether tools for a model (the MCP server's `get_report`) take it; the others are a person's
    /// (output in API units, the refetch of settled days).
    package let forModels: Bool
    /// One line for a person (the CLI's help).
    package let help: @Sendable (ParameterNaming) -> String
    /// What a model is told (a tool argument's description): more examples, the defaults.
    package let modelHelp: @Sendable (ParameterNaming) -> String
    /// Reads what was given (a flag: no words) into the fields; a bad value is a `ParameterError`.
    package let read: @Sendable (inout Fields, [String]) throws -> Void

    package init(
        _ parameter: Parameter, _ shape: ParameterShape, short: Character? = nil, value: String = "",
        choices: [String] = [],
        completions: [String]? = nil, forModels: Bool = true,
        help: @escaping @Sendable (ParameterNaming) -> String,
        modelHelp: (@Sendable (ParameterNaming) -> String)? = nil,
        read: @escaping @Sendable (inout Fields, [String]) throws -> Void
    ) {
        self.parameter = parameter
        self.shape = shape
        self.short = short
        self.valueName = value
        self.choices = choices
        self.completions = completions
        self.forModels = forModels
        self.help = help
        self.modelHelp = modelHelp ?? help
        self.read = read
    }
}

/// The fields of a report request as given, before `ReportRequest` judges them together.
package struct ReportFields: Sendable {
    package var counterIDs: [Int] = []
    /// `--counter all` (`counter_ids: "all"`): the portfolio, one row per counter the token reads.
    package var allCounters = false
    package var from: String?
    package var to: String?
    package var period: String?
    package var group: Grouping?
    package var metrics: [Metric]?
    package var dimensions: [MetrikaModel.Dimension] = []
    package var preset: String?
    package var filters: String?
    package var sort: String?
    package var limit: Int?
    package var lang: String?
    package var accuracy = "full"
    package var offline = false
    package var refresh = false
    package var raw = false
    package var compare = false
    package var unsettledDays = 2
    package var currency: Currency?
    package var attribution: Attribution?

    package init() {}

    /// The word that asks for every counter (`--counter all`).
    package static let allCountersWord = "all"

    package typealias Declaration = ParameterDeclaration<ReportFields>

    /// One of `choices` in any case; anything else is refused naming them.
    static func choice(_ text: String, of choices: [String], for parameter: Parameter) throws -> String {
        let lower = text.lowercased()
        guard choices.contains(lower) else {
            let spelled =
                choices.count > 1
                ? choices.dropLast().joined(separator: ", ") + " or " + choices.last! : choices.joined()
            throw ParameterError(parameter, .notOneOf(value: text, choices: choices)) {
                "\($0[parameter]) must be \(spelled), not '\(text)'"
            }
        }
        return lower
    }

    /// A whole number in `range`.
    static func integer(_ text: String, in range: ClosedRange<Int>, for parameter: Parameter) throws -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw ParameterError(parameter, .outOfRange(value: text, allowed: range)) {
                "\($0[parameter]) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'"
            }
        }
        return number
    }

    // MARK: - The declarations

    package static let counter = Declaration(
        .counter, .ids(maxItems: 20), short: "c", value: "ID[,ID…]",
        help: { _ in "Counter id(s); repeatable; all: one row per counter (the portfolio)" },
        modelHelp: { _ in
            "Counter ids (see list_counters), e.g. [1001]; several counters get a counter_id column. \"all\": the portfolio, one row per counter with the period's totals (visits, pageviews, users, bounce rate, page depth, time on site), sorted by visits, and a Total (users not summed)."
        }
    ) { fields, words in
        for text in words {
            if text.lowercased() == ReportFields.allCountersWord {
                fields.allCounters = true
                continue
            }
            let id = try ReportTerms.counterID(text)
            if !fields.counterIDs.contains(id) { fields.counterIDs.append(id) }
        }
    }

    package static let from = Declaration(
        .from, .text(maxLength: 40), value: "DATE",
        help: { _ in "First day" },
        modelHelp: {
            "First day: YYYY-MM-DD, today, yesterday, NdaysAgo, NweeksAgo, NmonthsAgo (none before 2008-01-01), in each counter's time zone. Not with \($0[.period])."
        }
    ) { fields, words in fields.from = words.last }

    package static let to = Declaration(
        .to, .text(maxLength: 40), value: "DATE",
        help: { _ in "Last day (default today)" },
        modelHelp: { "Last day, like \($0[.from]) (default today). Not with \($0[.period])." }
    ) { fields, words in fields.to = words.last }

    package static let period = Declaration(
        .period, .text(maxLength: 40), value: "NAME", completions: NamedPeriod.names.filter { $0 != "lastNdays" },
        help: {
            "A named period instead of \($0.alternatives(.from, .to)): today, yesterday, thisWeek, lastWeek, thisMonth, lastMonth, thisYear, lastYear, lastNdays"
        },
        modelHelp: {
            "A named period instead of \($0.alternatives(.from, .to)): today, yesterday, thisWeek, lastWeek (Monday to Sunday), thisMonth, lastMonth, thisYear, lastYear, lastNdays (e.g. last30days: 30 days to today)."
        }
    ) { fields, words in fields.period = words.last }

    package static let group = Declaration(
        .group, .text(maxLength: ToolLimits.text), value: Grouping.allCases.map(\.rawValue).joined(separator: "|"),
        choices: Grouping.allCases.map(\.rawValue),
        help: { "Grouping of time series and of date periods (\($0[.preset]) traffic); default day" },
        modelHelp: { _ in "Rows of a time series per day (default), week or month." }
    ) { fields, words in
        guard let text = words.last else { return }
        fields.group = Grouping(rawValue: try choice(text, of: Grouping.allCases.map(\.rawValue), for: .group))
    }

    package static let metrics = Declaration(
        .metrics, .list(maxItems: 20, maxLength: 100), short: "m", value: "LIST",
        help: { _ in "Metrics: short names (visits, bounceRate, goal123reaches, …) or ym:s: names; at most 20" },
        modelHelp: { _ in
            "Metrics, at most 20: short names (visits, pageviews, users, bounceRate, pageDepth, avgVisitDuration, newUsers, purchases, revenue, revenuePerPurchase, goal<ID>reaches, goal<ID>conversionRate, goal<ID>revenue…) or full ym:s: names. Default: the six everyday metrics."
        }
    ) { fields, words in fields.metrics = try ReportTerms.metrics(words) }

    package static let dimensions = Declaration(
        .dimensions, .list(maxItems: 10, maxLength: 100), short: "d", value: "LIST",
        help: { _ in
            "Dimensions: trafficSource, searchEngine, searchPhrase, startURL, country, city, browser, os, deviceCategory, hour, productName, productBrand, productCategoryLevel1 or ym:s: names"
        },
        modelHelp: { _ in
            "Dimensions (at most 10): trafficSource, searchEngine, searchPhrase, startURL, country, city, browser, os, deviceCategory, hour (hour of the day), productName, productBrand, productCategoryLevel1, datePeriodday/datePeriodweek/datePeriodmonth (one row per period, with group) or ym:s: names. Rows come straight from the API."
        }
    ) { fields, words in fields.dimensions = try words.map(ReportTerms.dimension) }

    package static let compare = Declaration(
        .compare, .flag,
        help: { n in
            "Compare with the period of the same length just before: previous values and the change (+5.2%, -0.9 pp for rates); with \(n[.dimensions]) each row against the same value then (new, gone). Without dates: the last 7 whole days. With today: its finished hours against the same hours (today 00:00–16:00 vs …)"
        },
        modelHelp: { n in
            "Beside every value the previous period of the same length and the change (percent, or percentage points for rates). With \(n[.dimensions]) each row (search phrase, source…) is set against the same value in the previous period, in one request: presence says both, new (not there before) or gone (not there now), so \"what grew\" is one call. Without from/to/period it compares the last 7 whole days (7daysAgo … yesterday). A period with today in it is compared like for like: its last day by today's finished hours against the same hours of the previous period's last day (the title and previous.last_day_hours say which, e.g. today 00:00–16:00 vs Sun 2026-11-29 00:00–16:00)."
        }
    ) { fields, _ in fields.compare = true }

    package static let filters = Declaration(
        .filters, .text(maxLength: 2_000), value: "EXPR",
        help: { _ in "API filter, e.g. \"ym:s:trafficSource=='organic'\"" },
        modelHelp: { _ in "An API filter, e.g. ym:s:trafficSource=='organic'." }
    ) { fields, words in fields.filters = words.last }

    package static let sort = Declaration(
        .sort, .list(maxItems: 10, maxLength: 100), value: "LIST",
        help: { _ in "Sort of dimension reports: metrics or dimensions, - for descending, e.g. -visits" },
        modelHelp: { _ in "Dimension reports: sort by metrics or dimensions, - for descending, e.g. [\"-visits\"]." }
    ) { fields, words in fields.sort = try ReportTerms.sort(words).joined(separator: ",") }

    package static let limit = Declaration(
        .limit, .integer(ReportRequest.limitRange), value: "N",
        help: { _ in "Rows of a dimension report (default 100, at most 10000000)" }
    ) { fields, words in
        guard let text = words.last else { return }
        fields.limit = try integer(text, in: ReportRequest.limitRange, for: .limit)
    }

    package static let preset = Declaration(
        .preset, .text(maxLength: 100), value: "NAME",
        help: { _ in
            "A Metrika report template (traffic, sources_summary, geo_country, tech_platforms, purchase, top_products, basket, …)"
        },
        modelHelp: { _ in
            "A Metrika report template: traffic, sources_summary, geo_country, tech_platforms, purchase, top_products, top_brands, basket, basket_products…"
        }
    ) { fields, words in fields.preset = words.last }

    /// The languages the API names dimension values in.
    package static let languages = ["ru", "en"]

    package static let lang = Declaration(
        .lang, .text(maxLength: 2), value: languages.joined(separator: "|"), choices: languages,
        help: { _ in "Language of dimension names (default en)" },
        modelHelp: {
            "Language of dimension names, ru or en (default en); with \($0[.dimensions]) or \($0[.preset]) only."
        }
    ) { fields, words in
        guard let text = words.last else { return }
        fields.lang = try choice(text, of: languages, for: .lang)
    }

    package static let accuracy = Declaration(
        .accuracy, .text(maxLength: 40), value: "LEVEL", forModels: false,
        help: { _ in "low, medium, high, full (default) or a share in (0,1]" }
    ) { fields, words in
        guard let text = words.last else { return }
        let lower = text.lowercased()
        if ["low", "medium", "high", "full"].contains(lower) {
            fields.accuracy = lower
        } else if let share = Double(text), share > 0, share <= 1 {
            fields.accuracy = text
        } else {
            throw ParameterError(.accuracy, .malformed(value: text)) {
                "\($0[.accuracy]) must be low, medium, high, full or a number in (0, 1], not '\(text)'"
            }
        }
    }

    package static let currency = Declaration(
        .currency, .text(maxLength: ToolLimits.text), value: "RUB|USD|EUR|YND", choices: Currency.known.map(\.code),
        completions: Currency.known.map(\.code),
        help: { _ in
            "Money (revenue, revenuePerPurchase, …) in this currency (default: the counter's own, as the API says)"
        },
        modelHelp: { _ in "Money metrics in this currency (default: the counter's own)." }
    ) { fields, words in fields.currency = try words.last.map(ReportTerms.currency) }

    package static let attribution = Declaration(
        .attribution, .text(maxLength: ToolLimits.text), value: "MODEL", choices: Attribution.accepted,
        completions: Attribution.accepted,
        help: { _ in
            "Attribution model of reports by source: automatic, cross_device_last_significant, cross_device_first, last, … (older ones are mapped)"
        },
        modelHelp: { "Attribution model of reports by source (with \($0[.dimensions]) or \($0[.preset]))." }
    ) { fields, words in fields.attribution = try words.last.map(ReportTerms.attribution) }

    package static let offline = Declaration(
        .offline, .flag,
        help: { _ in "Use the history database only: no network" },
        modelHelp: { _ in "Time series only: answer from the history database alone, with no API request." }
    ) { fields, _ in fields.offline = true }

    package static let refresh = Declaration(
        .refresh, .flag, forModels: false,
        help: { _ in "Refetch the whole range, ignoring the history" }
    ) { fields, _ in fields.refresh = true }

    package static let raw = Declaration(
        .raw, .flag, forModels: false,
        help: { _ in "Print API units: seconds and percent numbers instead of mm:ss and %" }
    ) { fields, _ in fields.raw = true }

    package static let unsettledDays = Declaration(
        .unsettledDays, .integer(1...30), value: "N", forModels: false,
        help: { _ in "Recent days that may still change and are refetched (default 2: today and yesterday)" }
    ) { fields, words in
        guard let text = words.last else { return }
        fields.unsettledDays = try integer(text, in: 1...30, for: .unsettledDays)
    }

    /// Every report parameter, in the order help and a tool's schema list them. A new parameter is
    /// its declaration here and its field above: the CLI's `report` option and the MCP server's
    /// `get_report` argument (when `forModels`) follow.
    package static let declarations: [Declaration] = [
        counter, from, to, period, group, metrics, dimensions, preset, filters, sort, limit, lang, accuracy, currency,
        attribution,
        offline, refresh, raw, compare, unsettledDays
    ]
}

/// Bounds of text an entry point takes when a declaration names none.
package enum ToolLimits {
    package static let text = 1_000
}

extension ReportRequest {
    /// A request from values already read (tests, and callers that hold `DateExpression`s): the same
    /// fields, set by name.
    package init(
        counterIDs: [Int], from: DateExpression, to: DateExpression, period: NamedPeriod? = nil,
        grouping: Grouping? = nil,
        metrics: [Metric]? = nil, dimensions: [MetrikaModel.Dimension] = [], preset: String? = nil,
        filters: String? = nil,
        sort: String? = nil, limit: Int? = nil, lang: String? = nil, accuracy: String = "full",
        offline: Bool = false, refresh: Bool = false, raw: Bool = false, compare: Bool = false, unsettledDays: Int = 2,
        currency: Currency? = nil, attribution: Attribution? = nil
    ) throws {
        var fields = ReportFields()
        fields.counterIDs = counterIDs
        fields.group = grouping
        fields.metrics = metrics
        fields.dimensions = dimensions
        fields.preset = preset
        fields.filters = filters
        fields.sort = sort
        fields.limit = limit
        fields.lang = lang
        fields.accuracy = accuracy
        fields.offline = offline
        fields.refresh = refresh
        fields.raw = raw
        fields.compare = compare
        fields.unsettledDays = unsettledDays
        fields.currency = currency
        fields.attribution = attribution
        try self.init(fields, dates: ReportDates(from: from, to: to, period: period))
    }
}
