import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore

/// A dimension an explanation may split a change by, with its words.
package struct ExplainDimension: Sendable, Equatable {
    /// The name users type (`trafficSource`).
    package let name: String
    package let apiName: String
    /// Its segments together in a sentence (`sources`).
    package let plural: String
    /// Its name as `metrika report` heads its column (`Traffic source`).
    package var title: String { ExplainDimension.titles[name] ?? name }

    static let titles = [
        "trafficSource": "Traffic source", "searchEngine": "Search engine", "UTMSource": "UTM source",
        "deviceCategory": "Device category", "startURL": "Landing page", "regionCountry": "Country",
        "regionCity": "City", "region": "City"
    ]

    package static let all: [ExplainDimension] = [
        ExplainDimension(name: "trafficSource", apiName: "ym:s:trafficSource", plural: "sources"),
        ExplainDimension(name: "searchEngine", apiName: "ym:s:searchEngine", plural: "search engines"),
        ExplainDimension(name: "UTMSource", apiName: "ym:s:UTMSource", plural: "UTM sources"),
        ExplainDimension(name: "deviceCategory", apiName: "ym:s:deviceCategory", plural: "devices"),
        ExplainDimension(name: "startURL", apiName: "ym:s:startURL", plural: "start pages"),
        ExplainDimension(name: "regionCountry", apiName: "ym:s:regionCountry", plural: "countries"),
        ExplainDimension(name: "regionCity", apiName: "ym:s:regionCity", plural: "cities"),
        ExplainDimension(name: "region", apiName: "ym:s:regionCity", plural: "regions")
    ]

    /// Traffic source, search engine, UTM source, device, start page, region.
    package static let defaults = ["trafficSource", "searchEngine", "UTMSource", "deviceCategory", "startURL", "region"]
        .compactMap(named)

    /// A name as typed (`deviceCategory`, `ym:s:deviceCategory`), case-insensitively.
    package static func named(_ text: String) -> ExplainDimension? {
        all.first { $0.name.lowercased() == text.lowercased() || $0.apiName == text }
    }
}

/// What the period is compared with.
package enum ExplainBaseline: Sendable, Equatable {
    /// The alert's baseline: the same weekday of the weeks before (`ExplainRequest.weeks`: the alert's
    /// own, 6 by default; the median of those days, their mix of segments the mean of them); a one-day
    /// period only.
    case alert
    /// The period of the same length just before.
    case previous
    /// Explicit days.
    case range(DateRange)
}

/// One explanation asked for.
package struct ExplainRequest: Sendable {
    package var counterID: Int
    package var metric: Metric
    package var period: DateRange
    /// nil: `alert` for one day, `previous` for a longer period.
    package var against: ExplainBaseline?
    package var dimensions: [ExplainDimension]
    /// The counter's today (the period must end before it).
    package var today: Day
    /// Named segments per dimension; the rest are folded into "Other".
    package var shown: Int = 5
    /// The weeks of the alert's baseline (`AlertSettings.weeks`: the same as `metrika alert` judges by).
    package var weeks = AlertSettings().weeks

    package init(
        counterID: Int, metric: Metric, period: DateRange, against: ExplainBaseline? = nil,
        dimensions: [ExplainDimension] = ExplainDimension.defaults, today: Day
    ) {
        self.counterID = counterID
        self.metric = metric
        self.period = period
        self.against = against
        self.dimensions = dimensions
        self.today = today
    }

    /// What the request compares with, once defaulted.
    package var baseline: ExplainBaseline { against ?? (period.dayCount == 1 ? .alert : .previous) }
}

/// One dimension explained: its decomposition and whether the API sampled it.
package struct ExplanationPart: Sendable {
    package let dimension: ExplainDimension
    package let explained: ExplainedDimension
    /// The share of visits the API read (nil: not sampled).
    package let sampleShare: Double?
}

/// A change explained over several dimensions.
package struct Explanation: Sendable {
    package let counterID: Int
    package let metric: Metric
    package let period: DateRange
    package let baseline: ExplainBaseline
    /// The days the baseline is made of (the 4 same weekdays, or one range's days).
    package let baselineDays: [Day]
    package let parts: [ExplanationPart]
    /// The one sentence (`-400 visits: Search engine traffic -336 (84%)`).
    package let headline: String
    /// The driver, when one dimension concentrates the change: (part index, segment index).
    package let driver: (part: Int, segment: Int)?
    /// Reporting requests made.
    package let requests: Int
    /// A rise's robots (`ym:s:robotPercentage`); nil for anything else, or when the API did not say.
    package var robots: RobotShare? = nil
    /// The metric's title, a goal by its name (`Goal "Заказ" conversion`).
    package var metricTitle: String? = nil
}

/// The robots' percent of the visits in the period and in the baseline.
package struct RobotShare: Sendable, Equatable {
    package let share: Double
    package let expected: Double
}

/// Why a change cannot be explained.
package struct ExplainError: MetrikaFailure, Equatable {
    package let message: String
    package let exitCode: Int32
}

/// No visits in the baseline: the change has nothing to be compared with. Worded by each entry point
/// (`SuggestedAction.compareOtherDays`: the CLI's `--against`, MCP's `against`, the bot's /report).
package struct ExplainBaselineError: WordedFailure, Equatable {
    package let counterID: Int
    /// The baseline in words (`the same weekday of the 4 weeks before: 2026-11-02, …`).
    package let baseline: String
    /// The metric's words (`visits`).
    package let metric: String
    package var exitCode: Int32 { ExitCode.dataError }

    package func message(_ naming: ParameterNaming) -> String {
        "there were no visits in the baseline (\(baseline)): \(metric) had no value to compare with, so its change cannot be explained; \(naming.action(.compareOtherDays(counterID: counterID)))"
    }
}

extension ExplainError {
    /// Offline, a day's segments the history does not keep.
    static let notKept = ExplainError(
        message: "the history database does not keep these days' segments: explain them online once",
        exitCode: ExitCode.unavailable)
}

/// `metrika explain` / MCP `explain_change`: a metric's change between a period and its baseline,
/// split over dimensions (`ContributionAnalysis`), with the one sentence that names its driver. One
/// Reporting request per dimension (the days by segment for the alert's baseline and for a settled
/// range, kept; the comparison endpoint for other ranges), so at most 10 on an empty history.
package enum Explain {
    /// The largest number of dimensions (and so of Reporting requests) one explanation makes.
    package static let mostDimensions = 8
    /// Rows read per dimension.
    static let rowLimit = 10_000

    /// The metrics an explanation knows, by short name: counts and rates.
    package static let metricNames = [
        "visits", "pageviews", "users", "purchases", "revenue", "goal<ID>reaches",
        "bounceRate", "goal<ID>conversionRate", "pageDepth", "avgVisitDuration"
    ]

    /// The metric named `text`, or a `ParameterError` listing the ones an explanation knows.
    package static func metric(named text: String) throws -> Metric {
        guard let metric = Metric.named(text), isCount(metric) || scale(of: metric) != nil,
            !text.hasPrefix("ym:") || Metric.known.contains(metric) || metric.shortName.hasPrefix("goal")
        else {
            let names = metricNames
            throw ParameterError("metric", .notOneOf(value: text, choices: names)) {
                "\($0["metric"]) '\(text)' cannot be explained: use one of \(names.joined(separator: ", "))"
            }
        }
        return metric
    }

    /// The dimensions named in `list` (comma-separated), or a `ParameterError` listing the valid ones.
    package static func dimensions(named list: String) throws -> [ExplainDimension] {
        let names = list.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        let valid = ExplainDimension.all.map(\.name)
        var result: [ExplainDimension] = []
        for name in names {
            guard let dimension = ExplainDimension.named(name) else {
                throw ParameterError(.dimensions, .notOneOf(value: name, choices: valid)) {
                    "\($0[.dimensions]) '\(name)' is not a dimension an explanation splits by: use \(valid.joined(separator: ", "))"
                }
            }
            // `regionCity,region` is one dimension of the API: one table.
            if !result.contains(where: { $0.apiName == dimension.apiName }) { result.append(dimension) }
        }
        guard !result.isEmpty else {
            throw ParameterError(.dimensions, .malformed(value: list)) {
                "\($0[.dimensions]) names no dimension: use \(valid.joined(separator: ", "))"
            }
        }
        guard result.count <= mostDimensions else {
            let count = result.count
            throw ParameterError(.dimensions, .tooMany(count: count, most: mostDimensions)) {
                "\($0[.dimensions]) names \(count) dimensions: at most \(mostDimensions) (one request each)"
            }
        }
        return result
    }

    static func isCount(_ metric: Metric) -> Bool {
        (metric.aggregation == .sum || metric.aggregation == .nonAdditive)
            && (metric.unit == .count || metric.unit == .money)
    }

    /// A rate's scale (100 for a percent), nil for anything not a per-visit rate.
    static func scale(of metric: Metric) -> Double? {
        switch metric.aggregation {
        case .visitWeighted: return metric.unit == .percent ? 100 : 1
        case .pageviewsPerVisit: return 1
        default: return nil
        }
    }

    /// The baseline's days for `request`, or a `ParameterError`.
    static func baselineDays(_ request: ExplainRequest) throws -> [Day] {
        switch request.baseline {
        case .alert:
            let weeks = max(1, request.weeks)
            guard request.period.dayCount == 1 else {
                throw ParameterError("against", .notApplicable) {
                    "\($0["against"]) alert compares one day with the same weekday of the \(weeks) weeks before: give one day, or against previous or DATE..DATE"
                }
            }
            return (1...weeks).reversed().map { request.period.from.adding(days: -7 * $0) }
        case .previous:
            let previous = Comparison.previousRange(of: request.period)
            return [previous.from, previous.to]
        case .range(let range):
            guard range.to < request.today else {
                throw ParameterError("against", .badDay(value: range.to.iso)) {
                    "\($0["against"]) \(range.from.iso)..\(range.to.iso) includes today (\(request.today.iso)), which is not finished: end it yesterday at the latest"
                }
            }
            return [range.from, range.to]
        }
    }

    /// Explains `request` with `client`'s Reporting requests.
    /// `history`: where settled days' segments are kept and read first (a repeated explanation of
    /// the alert's baseline, or of a settled range of at most `mostKeptSpan` days, asks nothing);
    /// nil asks every time.
    package static func run(_ request: ExplainRequest, client: MetrikaClient, history: SegmentHistory? = nil)
        async throws -> Explanation
    {
        guard request.period.to < request.today else {
            let (from, to, today) = (request.period.from.iso, request.period.to.iso, request.today.iso)
            if request.period.from > request.today {
                throw ParameterError(.period, .badDay(value: from)) { naming in
                    "the period \(from == to ? from : from + ".." + to) is in the future (today is \(today)): explain yesterday or earlier days (\(naming.alternatives("date", .from, .to)))"
                }
            }
            throw ParameterError(.period, .badDay(value: to)) { naming in
                "the period \(from == to ? from : from + ".." + to) includes today (\(today)), which is not finished: explain yesterday or earlier days (\(naming.alternatives("date", .from, .to)))"
            }
        }
        guard request.dimensions.count <= mostDimensions, !request.dimensions.isEmpty else {
            throw ParameterError(.dimensions, .tooMany(count: request.dimensions.count, most: mostDimensions)) {
                "\($0[.dimensions]) must name 1 to \(mostDimensions) dimensions"
            }
        }
        let days = try baselineDays(request)
        if let first = days.first, DateExpression.isBeforeMetrika(first) {
            let (from, to) = (request.period.from.iso, request.period.to.iso)
            throw ParameterError(.period, .badDay(value: from)) { naming in
                "the baseline of \(from == to ? from : from + ".." + to) reaches back to \(first.iso), before \(DateExpression.earliestDay.iso): Metrika has no data before 2008; explain a later day (\(naming.alternatives("date", .from, .to)))"
            }
        }
        var parts: [ExplanationPart] = []
        var requests = 0
        // Users are not additive: the day's users (as `report` shows them) come from a request of
        // their own, the same whatever the dimensions; the segments' overlap is a row of its own.
        var dayTotals: [String: Double]?
        if request.metric.aggregation == .nonAdditive, request.baseline == .alert {
            let (totals, asked) = try await dailyTotals(request, days: days, client: client, history: history)
            dayTotals = totals
            if asked { requests += 1 }
        }
        var robots: RobotShare?
        do {
            for (index, dimension) in request.dimensions.enumerated() {
                // The robots' share rides on the first dimension's request: one more metric, no more requests.
                let (part, asked, share) = try await explain(
                    dimension, request, baselineDays: days, client: client, history: history, robots: index == 0,
                    dayTotals: dayTotals)
                parts.append(part)
                requests += asked
                if index == 0 { robots = share }
            }
        } catch APIError.accessDenied(let message, nil) {
            throw APIError.accessDenied(message, counterID: request.counterID)
        } catch let error as ContributionError {
            let words = request.metric.title.lowercased()
            switch error {
            case .zeroBaseline:
                throw ExplainBaselineError(
                    counterID: request.counterID, baseline: describe(request.baseline, days), metric: words)
            case .emptyPeriod:
                throw ExplainError(
                    message:
                        "there were no visits on \(request.period.from.iso)\(request.period.dayCount > 1 ? ".." + request.period.to.iso : "") (tracking stopped?): \(words) has no value there, nothing to explain; explain visits to see what stopped",
                    exitCode: ExitCode.dataError)
            }
        }
        let explained = parts.map(\.explained)
        // A goal by its name (one Management request; its id when it has none or the list fails).
        var words = metricWords(request.metric)
        var title = request.metric.title
        if let id = request.metric.goalID, let goals = try? await client.fetchGoals(counterID: request.counterID),
            let goal = goals.first(where: { $0.id == id })
        {
            let name = TerminalText.sanitize(goal.name, limit: 80).trimmingCharacters(in: .whitespacesAndNewlines)
            if !name.isEmpty {
                words = words.replacingOccurrences(of: "goal \(id)", with: "goal \"\(name)\"")
                title = title.replacingOccurrences(of: "Goal \(id)", with: "Goal \"\(name)\"")
            }
        }
        let reading = ContributionHeadline.reading(metric: words, explained)
        let driver = reading.driver
        // A rise says what share of its visits were robots (a bot wave is a rise's usual cause).
        let rise = (explained.first?.shown.change ?? 0) > 0
        // Robots make visits (and their pageviews, users and rates), not money, orders or goals.
        let robotShare = rise && robotsMatter(request.metric) ? robots : nil
        var headline = reading.sentence
        if let robotShare {
            let shown = ExplanationListing.robotPercents(robotShare.share, robotShare.expected)
            // A rate's headline speaks of its own change only: robots whose share of the visits did not
            // move (as shown) took no part in it (the Robots: line and the JSON still say their share).
            if scale(of: request.metric) == nil || shown.share != shown.expected {
                headline += "; robots \(shown.share) of visits (\(shown.expected) in the baseline)"
            }
        }
        return Explanation(
            counterID: request.counterID, metric: request.metric, period: request.period, baseline: request.baseline,
            baselineDays: days, parts: parts, headline: headline,
            driver: driver.map { (part: $0.dimension, segment: $0.segment) }, requests: requests, robots: robotShare,
            metricTitle: title)
    }

    /// Whether a rise of `metric` says its robots' share: traffic (visits, pageviews, users) and the
    /// per-visit rates, not money, purchases or goal reaches.
    static func robotsMatter(_ metric: Metric) -> Bool {
        [Metric.visits, .pageviews, .users].contains(metric) || (scale(of: metric) != nil && metric.goalID == nil)
    }

    /// The metric's words after a change (`visits`, `bounce rate`).
    package static func metricWords(_ metric: Metric) -> String { metric.title.lowercased() }

    /// The baseline in words: `median of Mondays 2026-11-02..2026-11-23`, `2026-11-01..2026-11-07`.
    package static func describe(_ baseline: ExplainBaseline, _ days: [Day]) -> String {
        switch baseline {
        case .alert:
            return "the same weekday of the \(days.count) weeks before: " + days.map(\.iso).joined(separator: ", ")
        case .previous, .range:
            guard let first = days.first, let last = days.last else { return "" }
            return first == last ? first.iso : first.iso + ".." + last.iso
        }
    }

    /// The API metrics asked for: the metric, and for a rate the visits it is per.
    static func apiMetrics(_ metric: Metric) -> [String] {
        scale(of: metric) == nil ? [metric.apiName] : [metric.apiName, Metric.visits.apiName]
    }

    /// One dimension explained, and the Reporting requests it took (0 or 1).
    /// `robots`: ask the robots' share of the visits too (one more metric in the same request).
    static func explain(
        _ dimension: ExplainDimension, _ request: ExplainRequest, baselineDays days: [Day], client: MetrikaClient,
        history: SegmentHistory?, robots: Bool, dayTotals: [String: Double]? = nil
    ) async throws -> (ExplanationPart, requests: Int, robots: RobotShare?) {
        let sides: Sides
        var requests = 1
        let metrics = apiMetrics(request.metric)
        let extra = robots ? robotMetrics(metrics) : []
        // The visits' column and the robots' (the last one asked).
        let visitsColumn = metrics.firstIndex(of: Metric.visits.apiName) ?? metrics.count
        let robotsColumn = metrics.count + extra.count - 1
        var share: RobotShare?
        if request.baseline == .alert {
            let (rows, asked) = try await daySegments(
                dimension, counterID: request.counterID, metrics: metrics + extra,
                from: days[0], to: request.period.to, needed: days + [request.period.from],
                client: client, history: history)
            requests = asked ? 1 : 0
            sides = alertSides(
                rows, columns: Array(metrics.indices), day: request.period.from, days: days, dayTotals: dayTotals)
            if robots {
                let period = rows.rows.filter { $0.day == request.period.from.iso }.map(\.values)
                let baseline = Set(days.map(\.iso))
                share = robotShare(
                    period: period, baseline: rows.rows.filter { baseline.contains($0.day) }.map(\.values),
                    visits: visitsColumn, robots: robotsColumn)
            }
        } else if let history, let span = keptSpan(request, baselineDays: days, history: history),
            case (let rows, let asked) = try await daySegments(
                dimension, counterID: request.counterID, metrics: metrics + extra,
                from: span.range.from, to: span.range.to, needed: span.baseline + span.period,
                client: client, history: history),
            rows.complete
        {
            // A settled range: its days by segment, kept, so the same range explained again asks nothing.
            requests = asked ? 1 : 0
            let (period, baseline) = (Set(span.period.map(\.iso)), Set(span.baseline.map(\.iso)))
            sides = rangeSides(
                rows, columns: Array(metrics.indices), period: period, baseline: baseline,
                factor: Double(span.period.count) / Double(max(1, span.baseline.count)))
            if robots {
                share = robotShare(
                    period: rows.rows.filter { period.contains($0.day) }.map(\.values),
                    baseline: rows.rows.filter { baseline.contains($0.day) }.map(\.values), visits: visitsColumn,
                    robots: robotsColumn)
            }
        } else {
            // A range not settled, too long to keep, or a page cut off: the comparison endpoint.
            if let history, keptSpan(request, baselineDays: days, history: history) != nil { requests += 1 }
            let (comparison, rows) = try await comparisonSides(
                dimension, request, days: days, metrics: metrics + extra, client: client)
            sides = comparison
            if robots {
                share = robotShare(
                    period: rows.map(\.b), baseline: rows.map(\.a), visits: visitsColumn, robots: robotsColumn)
            }
        }
        return (
            try decompose(sides, dimension: dimension, metric: request.metric, shown: request.shown), requests, share
        )
    }

    /// The robots' metric, and the visits it is a percent of when the metric's request lacks them.
    static func robotMetrics(_ metrics: [String]) -> [String] {
        (metrics.contains(Metric.visits.apiName) ? [] : [Metric.visits.apiName]) + [robotPercentage]
    }

    /// `ym:s:robotPercentage`: the percent of a row's visits that were robots'.
    static let robotPercentage = "ym:s:robotPercentage"

    /// The robots' percent of the visits of `period`'s rows and of `baseline`'s (visit-weighted); nil
    /// when either has no visits or no robots' figure.
    static func robotShare(period: [[Double?]], baseline: [[Double?]], visits: Int, robots: Int) -> RobotShare? {
        func share(_ rows: [[Double?]]) -> Double? {
            var (all, bots, said) = (0.0, 0.0, false)
            for row in rows where visits < row.count && robots < row.count {
                let count = row[visits] ?? 0
                all += count
                if let percent = row[robots], percent.isFinite {
                    bots += count * percent / 100
                    said = true
                }
            }
            return all > 0 && said ? bots / all * 100 : nil
        }
        guard let now = share(period), let before = share(baseline) else { return nil }
        return RobotShare(share: now, expected: before)
    }

    /// The longest span of days (the period, its baseline and any days between) a range explanation
    /// asks by day and segment to keep them; longer ranges go to the comparison endpoint each time.
    static let mostKeptSpan = 31

    /// The days a range explanation reads by day and segment (and keeps): both sides settled, the
    /// metric additive over days (a count, or a rate weighted by visits; not users), the whole span
    /// at most `mostKeptSpan` days. nil: the comparison endpoint.
    static func keptSpan(_ request: ExplainRequest, baselineDays days: [Day], history: SegmentHistory)
        -> (range: DateRange, period: [Day], baseline: [Day])?
    {
        guard request.metric.aggregation != .nonAdditive, let first = days.first, let last = days.last,
            let baseline = DateRange(from: first, to: last)
        else { return nil }
        let from = min(baseline.from, request.period.from)
        let to = max(baseline.to, request.period.to)
        guard to < history.settledBefore, let range = DateRange(from: from, to: to), range.dayCount <= mostKeptSpan
        else { return nil }
        return (range, Array(request.period.days), Array(baseline.days))
    }

    /// A range against another from the days by segment (`columns`: the metric's, and a rate's
    /// visits): each side the sum of its days (a rate: weighted by its visits), as the comparison
    /// endpoint gives them; the segments' sum stands for the total. A baseline of another length than
    /// the period is scaled to the period's days (`factor`: the period's days over the baseline's): a
    /// count's values, a rate's visits (its weights), never the rate.
    static func rangeSides(
        _ answer: DaySegments, columns: [Int], period: Set<String>, baseline: Set<String>, factor: Double = 1
    ) -> Sides {
        let width = columns.count
        var order: [String] = []
        var sums: [String: (a: [Double], b: [Double])] = [:]
        for row in answer.rows where period.contains(row.day) || baseline.contains(row.day) {
            let values = columns.map { $0 < row.values.count ? row.values[$0] ?? 0 : 0 }
            if sums[row.segment] == nil {
                order.append(row.segment)
                sums[row.segment] = (Array(repeating: 0, count: width), Array(repeating: 0, count: width))
            }
            // A rate is summed as rate × visits beside the visits, and divided back below.
            let added = width == 2 ? [values[0] * values[1], values[1]] : [values[0]]
            for index in added.indices {
                if period.contains(row.day) {
                    sums[row.segment]?.b[index] += added[index]
                } else {
                    sums[row.segment]?.a[index] += added[index]
                }
            }
        }
        func side(_ sum: [Double]) -> [Double] {
            guard width == 2 else { return sum }
            return sum[1] > 0 ? [sum[0] / sum[1], sum[1]] : [0, 0]
        }
        let scaled = width == 2 ? 1 : 0
        let segments = order.map { segment in
            (
                name: segment,
                a: side(sums[segment]?.a ?? []).enumerated().map {
                    $0.offset == scaled ? $0.element * factor : $0.element
                },
                b: side(sums[segment]?.b ?? [])
            )
        }
        return (segments, nil, answer.sampleShare)
    }

    /// One dimension's sides decomposed (`ContributionAnalysis`) and rounded for showing.
    static func decompose(_ sides: Sides, dimension: ExplainDimension, metric: Metric, shown named: Int) throws
        -> ExplanationPart
    {
        let (segments, totals, share) = sides
        let decomposition: ChangeDecomposition<Double>
        if let scale = scale(of: metric) {
            // A rate's parts: numerator = rate × visits / scale, denominator = visits.
            let ratios = segments.map { segment in
                SegmentRatio(
                    name: segment.name,
                    value: RatioParts(numerator: segment.b[0] * segment.b[1] / scale, denominator: segment.b[1]),
                    expected: RatioParts(numerator: segment.a[0] * segment.a[1] / scale, denominator: segment.a[1]))
            }
            decomposition = try ContributionAnalysis.ratios(ratios, scale: scale, shown: named)
        } else {
            let counts = segments.map { SegmentCount(name: $0.name, value: $0.b[0], expected: $0.a[0]) }
            // Users counted in several segments: the segments' sum beyond the total is their overlap.
            decomposition = ContributionAnalysis.counts(
                counts, total: totals, shown: named,
                overlapName: metric.aggregation == .nonAdditive ? overlapName : nil)
        }
        var shown = ContributionRounding.shown(decomposition, unit: metric.unit)
        if metric.unit == .money { shown.currencySign = (metric.currency ?? .rub).sign }
        return ExplanationPart(
            dimension: dimension,
            explained: ExplainedDimension(plural: dimension.plural, decomposition: decomposition, shown: shown),
            sampleShare: share)
    }

    /// The row of users counted in several segments (`users` and other non-additive counts).
    package static let overlapName = "Overlap"

    /// A non-additive metric's (users') value on each day of the alert's baseline and the judged day,
    /// as `report` shows them: one request by day without a dimension (`asked`), none when every
    /// one of those days is kept. With `history`, settled days are read first from what `report`
    /// keeps (its daily values), then from explain's own (the segment tables under
    /// `dayTotalDimension`), and the settled days of an answer are kept there; offline (`client`
    /// nil) only what is kept is read.
    static func dailyTotals(
        _ request: ExplainRequest, days: [Day], client: MetrikaClient?, history: SegmentHistory?
    ) async throws -> (totals: [String: Double], asked: Bool) {
        let needed = days + [request.period.from]
        var totals: [String: Double] = [:]
        if let history, let span = DateRange(from: days[0], to: request.period.to) {
            let settled = needed.filter { $0 < history.settledBefore }
            let reported = try await history.store.settledDays(
                counterID: request.counterID, range: span, metrics: [request.metric])
            let values = try await history.store.dailyValues(
                counterID: request.counterID, range: span, metrics: [request.metric])
            for day in settled where reported.contains(day) {
                if let value = values[day]?.first ?? nil { totals[day.iso] = value }
            }
            let kept = try await history.store.storedSegments(
                counterID: request.counterID, dimension: dayTotalDimension, metrics: [request.metric.apiName],
                days: settled.filter { totals[$0.iso] == nil })
            for (day, rows) in kept {
                totals[day.iso] = rows.reduce(0) { $0 + (($1.values.first ?? nil) ?? 0) }
            }
        }
        let missing = needed.filter { totals[$0.iso] == nil }
        guard let first = missing.min(), let last = missing.max() else { return (totals, false) }
        guard let client else { throw ExplainError.notKept }
        let query = StatQuery(
            ids: [request.counterID], metrics: [request.metric.apiName], dimensions: ["ym:s:date"],
            date1: first.iso, date2: last.iso, accuracy: "full", currency: nil)
        let answer = try await client.fetchPlainRows(query, limit: rowLimit)
        var asked: [String: Double] = [:]
        for row in answer.rows {
            asked[name(row.names, at: 0), default: 0] += row.metrics.first.flatMap { $0 } ?? 0
        }
        guard let range = DateRange(from: first, to: last) else { return (totals, true) }
        for day in range.days { totals[day.iso] = asked[day.iso] ?? 0 }
        if let history, !answer.sampled, answer.rows.count >= answer.totalRows {
            var keep: [Day: [HistoryStore.SegmentRow]] = [:]
            for day in range.days where day < history.settledBefore {
                keep[day] = [(segment: dayTotalSegment, values: [asked[day.iso] ?? 0])]
            }
            try await history.store.storeSegments(
                counterID: request.counterID, dimension: dayTotalDimension, metrics: [request.metric.apiName],
                days: keep, fetchedAt: history.now())
        }
        return (totals, true)
    }

    /// How explain keeps a day's own total of a non-additive metric (users) beside its segments: no
    /// dimension, one segment.
    static let dayTotalDimension = ""
    static let dayTotalSegment = "Total"

    typealias Sides = (
        segments: [(name: String, a: [Double], b: [Double])], totals: (value: Double, expected: Double)?, share: Double?
    )

    static func query(_ dimensions: [String], _ request: ExplainRequest, from: Day, to: Day) -> StatQuery {
        StatQuery(
            ids: [request.counterID], metrics: apiMetrics(request.metric), dimensions: dimensions,
            date1: from.iso, date2: to.iso, accuracy: "full", currency: nil)
    }

    static func name(_ names: [String?], at index: Int) -> String {
        (index < names.count ? names[index] : nil) ?? "Not determined"
    }

    /// The period against an earlier range: one `/stat/v1/data/comparison` request.
    /// `metrics`: the metric's (`apiMetrics`) first, then any extra ones, whose values come back in
    /// the rows (`a` the baseline, `b` the period) beside the sides.
    static func comparisonSides(
        _ dimension: ExplainDimension, _ request: ExplainRequest, days: [Day], metrics: [String],
        client: MetrikaClient
    ) async throws -> (Sides, rows: [(a: [Double?], b: [Double?])]) {
        var query = query([dimension.apiName], request, from: request.period.from, to: request.period.to)
        query.metrics = metrics
        let answer = try await client.fetchComparison(
            query, baseline: (days[0].iso, days[days.count - 1].iso), limit: rowLimit)
        let width = apiMetrics(request.metric).count
        // A baseline of another length than the period is its mean scaled to the period's days (one
        // day against a week: the week's daily mean), never a week's sum against one day. A count is
        // scaled; a rate is not (its visits, the weights, are).
        let baselineLength = Double(
            (DateRange(from: days[0], to: days[days.count - 1])?.dayCount) ?? request.period.dayCount)
        let factor = Double(request.period.dayCount) / baselineLength
        let scaledColumn = scale(of: request.metric) == nil ? 0 : 1
        let segments = answer.rows.map { row in
            (
                name: name(row.names, at: 0),
                a: (0..<width).map { ($0 < row.a.count ? row.a[$0] ?? 0 : 0) * ($0 == scaledColumn ? factor : 1) },
                b: (0..<width).map { $0 < row.b.count ? row.b[$0] ?? 0 : 0 }
            )
        }
        let totals = answer.totalsA.first.flatMap { a in
            answer.totalsB.first.flatMap { b in
                a.flatMap { a in
                    b.map {
                        (value: $0, expected: scaledColumn == 0 ? a * factor : a)
                    }
                }
            }
        }
        return ((segments, totals, answer.sampled ? answer.sampleShare : nil), answer.rows.map { (a: $0.a, b: $0.b) })
    }

    /// The days by segment of one dimension over `from...to`, for `metrics` (API names): one
    /// `/stat/v1/data` request of `ym:s:date` and the dimension. The alerts of one run share it: every
    /// metric alerted on a counter's day is one column of the same request.
    ///
    /// With `history`, the `needed` days it keeps are read from it, and only the span of the others
    /// is asked (none missing: no request, `asked` false); every settled day of a whole answer (not
    /// sampled, no row cut off) is kept. Offline (`client` nil) only what is kept is read.
    static func daySegments(
        _ dimension: ExplainDimension, counterID: Int, metrics: [String], from: Day, to: Day, needed: [Day],
        client: MetrikaClient?, history: SegmentHistory?
    ) async throws -> (rows: DaySegments, asked: Bool) {
        var kept: [Day: [HistoryStore.SegmentRow]] = [:]
        if let history {
            kept = try await history.store.storedSegments(
                counterID: counterID, dimension: dimension.apiName, metrics: metrics,
                days: needed.filter { $0 < history.settledBefore })
        }
        let missing = needed.filter { kept[$0] == nil }
        let keptRows = needed.filter { kept[$0] != nil }.flatMap { day in
            (kept[day] ?? []).map { (day: day.iso, segment: $0.segment, values: $0.values) }
        }
        guard let first = missing.min(), let last = missing.max() else {
            return (DaySegments(rows: keptRows, sampleShare: nil), false)
        }
        guard let client else { throw ExplainError.notKept }
        // Only the days not kept are asked (the alert's baseline kept, its day new: that day alone).
        let (from, to) = (max(from, first), min(to, last))
        let query = StatQuery(
            ids: [counterID], metrics: metrics, dimensions: ["ym:s:date", dimension.apiName],
            date1: from.iso, date2: to.iso, accuracy: "full", currency: nil)
        let answer = try await client.fetchPlainRows(query, limit: rowLimit)
        let asked = answer.rows.map { (day: name($0.names, at: 0), segment: name($0.names, at: 1), values: $0.metrics) }
        let keptDays = Set(keptRows.map(\.day))
        var rows = DaySegments(
            rows: keptRows + asked.filter { !keptDays.contains($0.day) },
            sampleShare: answer.sampled ? answer.sampleShare : nil)
        rows.complete = answer.rows.count >= answer.totalRows
        if let history, !answer.sampled, answer.rows.count >= answer.totalRows,
            let range = DateRange(from: from, to: to)
        {
            var days: [Day: [HistoryStore.SegmentRow]] = [:]
            for day in range.days where day < history.settledBefore { days[day] = [] }
            for row in asked {
                guard let day = Day(iso: row.day), days[day] != nil else { continue }
                days[day]?.append((segment: row.segment, values: row.values))
            }
            try await history.store.storeSegments(
                counterID: counterID, dimension: dimension.apiName, metrics: metrics, days: days,
                fetchedAt: history.now())
        }
        return (rows, true)
    }

    /// One day against the same weekday of the 4 weeks before, from the days by segment (`columns`:
    /// the metric's column, and a rate's visits). The baseline's total is the median of the 4 days
    /// (the alert's expected value); its segments are their mean over the 4 days, scaled to that total.
    ///
    /// `dayTotals` (users, which do not add up over segments): the days' own totals; the judged day's
    /// is the value, the median of the baseline days' the expected, and the segments' means are
    /// scaled by that median over the mean of those totals, so what they hold beyond the total (their
    /// overlap) is scaled alike.
    static func alertSides(
        _ answer: DaySegments, columns: [Int], day judged: Day, days: [Day], dayTotals given: [String: Double]? = nil
    ) -> Sides {
        let day = judged.iso
        let baseline = Set(days.map(\.iso))
        let width = columns.count
        var order: [String] = []
        var period: [String: [Double]] = [:]
        var before: [String: [Double]] = [:]
        var dayTotals: [String: Double] = [:]
        for row in answer.rows {
            let date = row.day
            guard date == day || baseline.contains(date) else { continue }
            let segment = row.segment
            let values = columns.map { $0 < row.values.count ? row.values[$0] ?? 0 : 0 }
            if period[segment] == nil, before[segment] == nil { order.append(segment) }
            if date == day {
                period[segment] = values
            } else {
                // Summed over the baseline days: a rate's value is weighted by its visits.
                var sum = before[segment] ?? Array(repeating: 0, count: width)
                if width == 2 {
                    sum[0] += values[0] * values[1]
                    sum[1] += values[1]
                } else {
                    sum[0] += values[0]
                }
                before[segment] = sum
                dayTotals[date, default: 0] += values[0]
            }
        }
        let zero = Array(repeating: 0.0, count: width)
        if width == 2 {
            // A rate: the rate of the baseline days' sums (the visits are the 4 days' mean).
            let segments = order.map { segment -> (name: String, a: [Double], b: [Double]) in
                let sum = before[segment] ?? zero
                let a = sum[1] > 0 ? [sum[0] / sum[1], sum[1] / Double(days.count)] : zero
                return (segment, a, period[segment] ?? zero)
            }
            return (segments, nil, answer.sampleShare)
        }
        var mean = order.reduce(0) { $0 + (before[$1]?[0] ?? 0) } / Double(days.count)
        if let given {
            // The days' own totals: their mean is what the scale is of (users exceed it in segments).
            for day in days { dayTotals[day.iso] = given[day.iso] ?? 0 }
            mean = days.reduce(0) { $0 + (given[$1.iso] ?? 0) } / Double(days.count)
        }
        let median = AlertDetector.median(days.map { dayTotals[$0.iso] ?? 0 })
        let factor = mean > 0 ? median / mean : 0
        let segments = order.map { segment in
            (name: segment, a: [(before[segment]?[0] ?? 0) / Double(days.count) * factor], b: period[segment] ?? zero)
        }
        let value = given.map { $0[day] ?? 0 } ?? order.reduce(0) { $0 + (period[$1]?[0] ?? 0) }
        return (segments, (value: value, expected: median), answer.sampleShare)
    }
}

/// Where an explanation keeps settled days' segments: the history database, and the counter's first
/// day not yet settled (`HistoryLoader.settledBefore`).
package struct SegmentHistory: Sendable {
    package let store: HistoryStore
    package let settledBefore: Day
    package let now: @Sendable () -> Date

    package init(store: HistoryStore, settledBefore: Day, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.settledBefore = settledBefore
        self.now = now
    }

    /// The loader's history for a counter whose today is `today`.
    package init(_ loader: HistoryLoader, today: Day) {
        self.init(store: loader.store, settledBefore: loader.settledBefore(today: today), now: loader.now)
    }
}

/// The days by segment of one dimension (`ym:s:date` × the dimension), a column per metric asked.
struct DaySegments: Sendable {
    var rows: [(day: String, segment: String, values: [Double?])]
    /// The share of visits the API read (nil: not sampled).
    var sampleShare: Double?
    /// Whether every row of the answer came (no page cut off).
    var complete = true
}

extension Explanation {
    /// What the listings (table, CSV, JSON) show.
    package var listing: ExplanationListing.Input {
        let kind: String
        switch baseline {
        case .alert: kind = "alert"
        case .previous: kind = "previous"
        case .range: kind = "range"
        }
        return ExplanationListing.Input(
            counterID: counterID, metric: metric, period: period, baselineKind: kind, baselineDays: baselineDays,
            headline: headline, driver: driver,
            parts: parts.map {
                ExplanationListing.Part(
                    name: $0.dimension.name, apiName: $0.dimension.apiName, explained: $0.explained,
                    sampleShare: $0.sampleShare, title: $0.dimension.title)
            },
            robots: robots.map { (share: $0.share, expected: $0.expected) }, metricTitle: metricTitle)
    }
}

extension Explain {
    /// `alert`, `previous` or `DATE..DATE` (dates as `DateExpression` reads them).
    package static func baseline(parsing text: String, today: Day) throws -> ExplainBaseline {
        switch text.lowercased() {
        case "alert": return .alert
        case "previous": return .previous
        default:
            let ends = text.components(separatedBy: "..")
            if ends.count == 2 {
                let first = try DateExpression(parsing: ends[0], option: "against").resolve(today: today)
                let last = try DateExpression(parsing: ends[1], option: "against").resolve(today: today)
                if first > last {
                    throw ParameterError("against", .contradicts(["against"])) {
                        "\($0["against"]) \(text) starts after it ends (\(first.iso) is after \(last.iso)): give the earlier day first"
                    }
                }
            }
            guard ends.count == 2,
                let range = DateRange(
                    from: try DateExpression(parsing: ends[0], option: "against").resolve(today: today),
                    to: try DateExpression(parsing: ends[1], option: "against").resolve(today: today))
            else {
                throw ParameterError("against", .malformed(value: text)) {
                    "\($0["against"]) '\(text)' is not a baseline: use alert, previous or DATE..DATE (e.g. 2026-11-23..2026-11-23)"
                }
            }
            return .range(range)
        }
    }

    /// The request as an entry point's texts say it (`date` or `from`/`to`, default yesterday in
    /// the counter's time zone, which costs one Management request), validated.
    package static func request(
        counterID: Int, metric: String?, date: String?, from: String?, to: String?, against: String?,
        dimensions: String?,
        client: MetrikaClient, now: Date, weeks: Int = AlertSettings().weeks
    ) async throws -> ExplainRequest {
        let metric = try Explain.metric(named: metric ?? "visits")
        let dimensions = try dimensions.map { try Explain.dimensions(named: $0) } ?? ExplainDimension.defaults
        if date != nil, from != nil || to != nil {
            throw ParameterError("date", .contradicts([.from, .to])) {
                "\($0["date"]) and \($0.alternatives(.from, .to)) cannot be given together: one day, or a range"
            }
        }
        if (from == nil) != (to == nil) {
            throw ParameterError(from == nil ? .from : .to, .notApplicable) {
                "\($0[.from]) and \($0[.to]) go together: give both for a range, or \($0["date"]) for one day"
            }
        }
        let first = try DateExpression(parsing: from ?? date ?? "yesterday", option: from == nil ? "date" : .from)
        let last = try DateExpression(parsing: to ?? date ?? "yesterday", option: to == nil ? "date" : .to)
        let counter: Counter
        do {
            counter = try await client.fetchCounter(id: counterID)
        } catch APIError.accessDenied(let message, nil) {
            throw APIError.accessDenied(message, counterID: counterID)
        }
        let today = MetrikaUseCases.today(for: counter, now: now)
        guard let period = DateRange(from: first.resolve(today: today), to: last.resolve(today: today)) else {
            throw ParameterError(.from, .badDay(value: from ?? "")) {
                "\($0[.from]) is after \($0[.to]): give the first day first"
            }
        }
        var request = ExplainRequest(
            counterID: counterID, metric: metric, period: period, dimensions: dimensions, today: today)
        request.against = try against.map { try baseline(parsing: $0, today: today) }
        request.weeks = weeks
        return request
    }
}
