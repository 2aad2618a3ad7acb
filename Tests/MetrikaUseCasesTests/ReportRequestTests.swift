import Testing

@testable import MetrikaModel
@testable import MetrikaUseCases

/// A `ReportRequest` is valid or it is not made: its initializer refuses what cannot be asked for,
/// with the usage error that names the option, whoever builds it (the CLI, an MCP tool).
@Suite("Report request")
struct ReportRequestTests {
    static let week: (DateExpression, DateExpression) = (.absolute(day("2026-11-23")), .absolute(day("2026-11-29")))
    static let source = [MetrikaModel.Dimension.named("trafficSource")!]

    static func make(
        grouping: Grouping? = nil, metrics: [Metric]? = nil, dimensions: [MetrikaModel.Dimension] = [],
        preset: String? = nil, filters: String? = nil,
        sort: String? = nil, limit: Int? = nil, lang: String? = nil, accuracy: String = "full", offline: Bool = false,
        compare: Bool = false,
        currency: Currency? = nil, attribution: Attribution? = nil
    ) throws -> ReportRequest {
        try ReportRequest(
            counterIDs: [1001], from: week.0, to: week.1, grouping: grouping, metrics: metrics, dimensions: dimensions,
            preset: preset, filters: filters,
            sort: sort, limit: limit, lang: lang, accuracy: accuracy, offline: offline, compare: compare,
            currency: currency, attribution: attribution)
    }

    static func refusal(_ body: () throws -> ReportRequest) -> String? {
        do {
            _ = try body()
            Issue.record("the request was made")
            return nil
        } catch let error as ParameterError {
            return error.message(cliNaming)
        } catch {
            Issue.record("not a usage error: \(error)")
            return nil
        }
    }

    @Test func theDefaultsAreADailyTimeSeriesOfHundredRows() throws {
        let request = try Self.make()
        #expect(request.grouping == .day && request.requestedGrouping == nil)
        #expect(request.limit == 100 && request.requestedLimit == nil)
        #expect(request.usesHistory && !request.compare)
        #expect(try Self.make(dimensions: Self.source, limit: 7).limit == 7)
        #expect(try Self.make(grouping: .week).requestedGrouping == .week)
    }

    @Test func theHTMLPagesComparisonIsACopy() throws {
        let request = try Self.make()
        #expect(request.withComparison().compare && !request.compare)
    }

    @Test func everyImpossibleCombinationIsRefusedByTheInitializer() throws {
        let eleven = (1...11).map { _ in Self.source[0] }
        #expect(
            Self.refusal { try Self.make(dimensions: eleven) } == "--dimensions lists 11; the API allows at most 10")
        #expect(
            Self.refusal { try Self.make(grouping: .week, dimensions: Self.source) }?.hasPrefix(
                "--group applies to time-series reports") == true)
        #expect(
            Self.refusal { try Self.make(dimensions: Self.source, limit: 0) }
                == "--limit must be a whole number from 1 to 10000000, not '0'")
        #expect(Self.refusal { try Self.make(limit: 5) }?.hasPrefix("--limit applies to dimension reports") == true)
        #expect(
            Self.refusal { try Self.make(sort: "-ym:s:visits") }?.hasPrefix("--sort applies to dimension reports")
                == true)
        #expect(
            Self.refusal { try Self.make(lang: "ru") }?.hasPrefix("--lang sets the language of dimension names") == true
        )
        #expect(
            (try? Self.make(dimensions: Self.source, compare: true))?.compare == true,
            "a dimension report compares (issue 39 item 5)")
        #expect(
            Self.refusal { try Self.make(dimensions: [MetrikaModel.Dimension.date], compare: true) }?.hasPrefix(
                "--compare sets each row against the same value in the previous period; --dimensions date") == true)
        #expect(
            Self.refusal { try Self.make(filters: "ym:s:isRobot=='No'", compare: true) }?.hasPrefix(
                "--compare of a time series works from the history") == true)
        #expect(
            Self.refusal { try Self.make(filters: "ym:s:isRobot=='No'", offline: true) }?.hasPrefix(
                "--offline works for time-series reports only") == true)
        #expect(
            Self.refusal { try Self.make(metrics: [Metric.visits], currency: .eur) }?.hasPrefix(
                "--currency applies to money metrics") == true)
        #expect(
            Self.refusal { try Self.make(attribution: Attribution("last")) }?.hasPrefix(
                "--attribution decides which source") == true)
        #expect(
            Self.refusal { try Self.make(grouping: .month, filters: "ym:s:isRobot=='No'") }
                == "--group month with --filters or --accuracy is not supported yet; use --group day")
    }

    @Test func whatMayBeAskedIsMade() throws {
        #expect(try Self.make(metrics: [Metric.revenue], currency: .eur).currency == .eur)
        #expect(try Self.make(preset: "purchase", currency: .usd, attribution: Attribution("last")).attribution != nil)
        #expect(
            try Self.make(dimensions: Self.source, sort: "-ym:s:visits", limit: 5, lang: "ru").sort == "-ym:s:visits")
        #expect(
            try Self.make(grouping: .week, dimensions: [MetrikaModel.Dimension.named("ym:s:datePeriod<group>")!])
                .apiGroup == "week")
    }
}
