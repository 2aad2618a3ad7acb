import MetrikaModel

// The words of a report as a person (the CLI's options) or a model (the MCP server's tool
// arguments) writes them, read into values: counter ids, metrics (at most 20), dimensions, a sort,
// a currency, an attribution model and the days. Both entry points call these, so a word is accepted
// or refused — with the same sentence — wherever it is written.

/// Text → report values; every refusal is a `ParameterError` naming the parameter (or the `UsageError` of an unknown
/// name).
package enum ReportTerms {
    /// A counter id: a positive whole number.
    package static func counterID(_ text: String) throws -> Int {
        guard let id = Int(text), id > 0 else {
            throw ParameterError(.counter, .malformed(value: text)) {
                "\($0[.counter]) '\(text)' is not a counter id (a positive whole number)"
            }
        }
        return id
    }

    /// The metrics, each once, in the order given (short or `ym:s:` names); at most 20, as the API allows.
    package static func metrics(_ texts: [String]) throws -> [Metric] {
        var metrics: [Metric] = []
        for text in texts {
            guard let metric = Metric.named(text) else {
                throw UsageError(
                    "Unknown metric '\(text)'. Use one of \(Metric.known.map(\.shortName).joined(separator: ", ")), goal<ID>reaches, goal<ID>conversionRate, goal<ID>revenue, or a full ym:s: name"
                )
            }
            if !metrics.contains(where: { $0.apiName == metric.apiName }) { metrics.append(metric) }
        }
        guard metrics.count <= 20 else {
            let count = metrics.count
            throw ParameterError(.metrics, .tooMany(count: count, most: 20)) {
                "\($0[.metrics]) lists \(count) metrics; the API allows at most 20 per report"
            }
        }
        return metrics
    }

    /// A dimension by its short or `ym:s:` name.
    package static func dimension(_ text: String) throws -> MetrikaModel.Dimension {
        guard let dimension = MetrikaModel.Dimension.named(text) else {
            throw UsageError(
                "Unknown dimension '\(text)'. Use one of \(MetrikaModel.Dimension.known.map(\.shortName).joined(separator: ", ")), or a full ym:s: name"
            )
        }
        return dimension
    }

    /// A sort (`visits,-bounceRate`): each metric or dimension by its short or full name, `-` for
    /// descending, as the API's `ym:s:` names; an empty list or an unknown name is refused.
    package static func sort(_ items: [String]) throws -> [String] {
        guard !items.isEmpty else {
            throw ParameterError(.sort, .malformed(value: "")) {
                "\($0[.sort]) is empty: name a metric or dimension, e.g. -visits"
            }
        }
        return try items.map { item in
            let descending = item.hasPrefix("-")
            let name = descending ? String(item.dropFirst()) : item
            guard let apiName = Metric.named(name)?.apiName ?? MetrikaModel.Dimension.named(name)?.apiName else {
                throw ParameterError(.sort, .malformed(value: item)) {
                    "\($0[.sort]) '\(item)' names no metric or dimension: use e.g. visits, -bounceRate, trafficSource (short or ym:s: names, - for descending)"
                }
            }
            return (descending ? "-" : "") + apiName
        }
    }

    /// One of the currencies Metrika converts to.
    package static func currency(_ text: String) throws -> Currency {
        guard let currency = Currency(code: text), Currency.known.contains(currency) else {
            let choices = Currency.known.map(\.code)
            throw ParameterError(.currency, .notOneOf(value: text, choices: choices)) {
                "\($0[.currency]) must be one of \(choices.joined(separator: ", ")), not '\(text)'"
            }
        }
        return currency
    }

    /// A current attribution model, or an older name mapped to one.
    package static func attribution(_ text: String) throws -> Attribution {
        guard let attribution = Attribution(text) else {
            throw ParameterError(.attribution, .notOneOf(value: text, choices: Attribution.accepted)) {
                "\($0[.attribution]) must be one of \(Attribution.current.joined(separator: ", ")) (or an older \(Attribution.replacements.map(\.old).joined(separator: ", "))), not '\(text)'"
            }
        }
        return attribution
    }
}

/// The days of a report or chart: `from`/`to`, or a named period (never both).
package struct ReportDates: Sendable {
    package var from: DateExpression
    package var to: DateExpression
    /// The named period, when the dates came from one.
    package var period: NamedPeriod?

    /// `from` (else `defaultFrom`) and `to` (else today), or `period`; `given` names the date
    /// options that were given beside a period (a contradiction). A range that is reversed whatever
    /// the time zone is refused here, before any request.
    package static func parse(from: String?, to: String?, period: String?, defaultFrom: String) throws -> ReportDates {
        if let period {
            let given = [(Parameter.from, from), (Parameter.to, to)].filter { $0.1 != nil }.map(\.0)
            if !given.isEmpty {
                throw ParameterError(.period, .contradicts(given)) { naming in
                    "\(naming[.period]) and \(given.map(naming.name).joined(separator: "/")) contradict each other: give a named period or dates, not both"
                }
            }
            let named = try NamedPeriod(parsing: period)
            return ReportDates(from: .period(named, end: false), to: .period(named, end: true), period: named)
        }
        let start = try DateExpression(parsing: from ?? defaultFrom, option: .from)
        let end = try DateExpression(parsing: to ?? "today", option: .to)
        if case .absolute(let first) = start, case .absolute(let last) = end, first > last {
            throw ParameterError(.from, .contradicts([.to])) {
                "\($0[.from]) \(first.iso) is after \($0[.to]) \(last.iso): the range is reversed"
            }
        }
        // Two day- or week-relative dates compare the same in every time zone: refuse before any request.
        if let fromAgo = start.fixedDaysAgo, let toAgo = end.fixedDaysAgo, fromAgo < toAgo {
            throw ParameterError(.from, .contradicts([.to])) {
                "\($0[.from]) \(start) is after \($0[.to]) \(end): the range is reversed"
            }
        }
        return ReportDates(from: start, to: end, period: nil)
    }
}
