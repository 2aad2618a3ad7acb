import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaStore
@testable import MetrikaUseCases

/// Which currency money is in (asked, the counter's own as the API says it, remembered for offline),
/// and money in the mail's sections.
@Suite("Money in use cases")
struct MoneyUseCaseTests {
    static let shop = [Metric.visits, Metric.purchases, Metric.revenue, Metric.revenuePerPurchase]

    @Test func theCountersOwnCurrencyComesFromTheAnswerAndIsRemembered() async throws {
        let database = try TemporaryDatabase()
        let api = RuleAPI()
        api.currencies = [1001: "EUR"]
        let store = try await HistoryStore.open(path: database.path)
        let online = HistoryLoader(store: store, client: api.client(), now: { testNow }, unsettledDays: 2)
        let counter = try await online.counter(id: 1001)
        let priced = try await online.inCurrency(Self.shop, counter: counter, requested: nil)
        #expect(
            priced.map(\.apiName) == [
                "ym:s:visits", "ym:s:ecommercePurchases", "ym:s:ecommerceEURConvertedRevenue",
                "ym:s:ecommerceEURConvertedRevenuePerPurchase"
            ])
        // One probe, with the API's own placeholder: the answer names the counter's currency.
        #expect(api.dataRequests.count == 1)
        #expect(api.dataRequests.first?.query["metrics"] == "ym:s:ecommerce<currency>ConvertedRevenue")
        #expect(api.dataRequests.first?.query["currency"] == nil)
        #expect(try await store.counterCurrency(id: 1001) == .eur)
        // Asked again within a day: the memory answers; --refresh asks the API again.
        #expect(try await online.inCurrency(Self.shop, counter: counter, requested: nil) == priced)
        #expect(api.dataRequests.count == 1)
        #expect(try await online.inCurrency(Self.shop, counter: counter, requested: nil, refresh: true) == priced)
        #expect(api.dataRequests.count == 2)
        // A day later the API is asked again, and a changed currency is what counts.
        api.currencies = [1001: "USD"]
        let later = HistoryLoader(
            store: store, client: api.client(), now: { testNow.addingTimeInterval(2 * 86_400) }, unsettledDays: 2)
        #expect(try await later.inCurrency(Self.shop, counter: counter, requested: nil)[2].currency == .usd)
        #expect(api.dataRequests.count == 3)
        api.currencies = [1001: "EUR"]
        try await store.storeCounterCurrency(id: 1001, currency: .eur, seenAt: testNow)

        // Offline: what the history remembers, no request.
        let offline = HistoryLoader(store: store, client: nil, now: { testNow }, unsettledDays: 2)
        #expect(try await offline.inCurrency(Self.shop, counter: counter, requested: nil) == priced)
        // Asked for: that one, no probe.
        #expect(
            try await online.inCurrency(Self.shop, counter: counter, requested: .usd)[2].apiName
                == "ym:s:ecommerceUSDConvertedRevenue")
        #expect(api.dataRequests.count == 3)
        // No money metric: nothing to ask.
        #expect(
            try await online.inCurrency([Metric.visits], counter: counter, requested: nil, refresh: true) == [
                Metric.visits
            ])
        #expect(api.dataRequests.count == 3)
    }

    @Test func withoutAnAnswerOrAMemoryTheUserIsAskedForACurrency() async throws {
        let database = try TemporaryDatabase()
        let api = RuleAPI() // answers without a query echo
        let store = try await HistoryStore.open(path: database.path)
        let online = HistoryLoader(store: store, client: api.client(), now: { testNow }, unsettledDays: 2)
        let counter = try await online.counter(id: 1001)
        let unsaid = await #expect(throws: HistoryError.currencyNotSaid(counterID: 1001)) {
            try await online.inCurrency(Self.shop, counter: counter, requested: nil)
        }
        #expect(
            unsaid?.exitCode == ExitCode.dataError && unsaid?.message(cliNaming).contains("pass --currency") == true)
        let offline = HistoryLoader(store: store, client: nil, now: { testNow }, unsettledDays: 2)
        let unknown = await #expect(throws: HistoryError.currencyUnknown(counterID: 1001)) {
            try await offline.inCurrency(Self.shop, counter: counter, requested: nil)
        }
        #expect(
            unknown?.exitCode == ExitCode.config
                && unknown?.message(cliNaming).contains("run once without --offline") == true)
    }

    @Test func countersInDifferentCurrenciesNeedOne() async throws {
        let database = try TemporaryDatabase()
        let api = RuleAPI(counters: [
            1001: #"{"id":1001,"name":"Shop","site":"shop.example","time_zone_name":"UTC"}"#,
            1002: #"{"id":1002,"name":"Boutique","site":"boutique.example","time_zone_name":"UTC"}"#
        ])
        api.currencies = [1001: "RUB", 1002: "USD"]
        let loader = HistoryLoader(
            store: try await HistoryStore.open(path: database.path), client: api.client(), now: { testNow },
            unsettledDays: 2)
        let request = try ReportRequest(
            counterIDs: [1001, 1002], from: .absolute(day("2026-11-23")), to: .absolute(day("2026-11-24")),
            metrics: [Metric.revenue])
        let sink = CollectingSink()
        await #expect {
            try await HistoryReport(request: request, loader: loader, activity: RecordedActivity()).run(into: sink)
        } throws: { error in
            (error as? ParameterError)?.message(cliNaming).contains("1001 in RUB, 1002 in USD") == true
        }
        #expect(sink.layouts.isEmpty)
        // One currency for both: fine.
        let converted = try ReportRequest(
            counterIDs: request.counterIDs, from: request.from, to: request.to, metrics: request.metrics, currency: .eur
        )
        try await HistoryReport(request: converted, loader: loader, activity: RecordedActivity()).run(into: sink)
        #expect(sink.layouts.first?.metrics.map(\.columnName) == ["revenue_eur"])
        #expect(sink.totals.count == 2)
    }

    /// A shop's mail: purchases, revenue and the average order value in the summary, the average
    /// order value of the week as revenue over purchases.
    @Test func theMailsSummaryShowsAShopsMoney() async throws {
        let database = try TemporaryDatabase()
        let api = RuleAPI()
        api.currencies = [1001: "RUB"]
        let loader = HistoryLoader(
            store: try await HistoryStore.open(path: database.path), client: api.client(), now: { testNow },
            unsettledDays: 2)
        let composer = MailComposer(
            loader: loader, rasterizer: MailComposerTests.FakeRasterizer(), activity: RecordedActivity())
        let request = MailComposer.Request(
            counterIDs: [1001], window: .period(.lastWeek), metrics: Self.shop,
            sender: try MIMEAddress("m@example.com"), recipients: [try MIMEAddress("a@example.com")], subject: nil)
        let sections = try await composer.sections(request)
        try #require(sections.count == 1)
        // The stored columns are the shop's metrics in order (then pageviews): RuleAPI's values by position.
        let week = days("2026-11-16", "2026-11-22").days
        let purchases = week.reduce(0) { $0 + RuleAPI.value(1, $1) }
        let revenue = week.reduce(0) { $0 + RuleAPI.value(2, $1) }
        let totals = sections[0].totals
        #expect(totals[1].value == purchases)
        #expect(totals[2].value == revenue)
        #expect(totals[2].currency == .rub)
        #expect(totals[3].value == revenue / purchases)
        #expect(MailReport.format(totals[2]) == DigitGroups.group(String(Int(revenue))) + ".00 ₽")
        let summary = MailReport.changeTable(sections[0], metrics: Self.shop).render()
        #expect(summary.contains("Purchases"))
        #expect(summary.contains("Average order value"))
        #expect(summary.contains(" ₽"))
        let message = try await composer.compose(request)
        #expect(message.subject.contains("Shop"))
    }
}

extension MoneyUseCaseTests {
    /// Reports by source straight from the API: money in the currency each answer names; two
    /// counters in two currencies are refused before anything is written.
    @Test func directReportsTakeTheAnswersCurrency() async throws {
        let api = RuleAPI(counters: [
            1001: #"{"id":1001,"name":"Shop","site":"shop.example","time_zone_name":"UTC"}"#,
            1002: #"{"id":1002,"name":"Boutique","site":"boutique.example","time_zone_name":"UTC"}"#
        ])
        api.dimensionRows = 2
        api.currencies = [1001: "RUB", 1002: "USD"]
        let request = try ReportRequest(
            counterIDs: [1001], from: .absolute(day("2026-11-23")), to: .absolute(day("2026-11-24")),
            metrics: [Metric.purchases, Metric.revenue], dimensions: [MetrikaModel.Dimension.named("trafficSource")!])
        let sink = CollectingSink()
        try await DirectReport.run(
            request, client: api.client(), activity: RecordedActivity(), into: sink, showsProgress: false)
        #expect(sink.layouts.first?.metrics.map(\.columnName) == ["purchases", "revenue_rub"])
        #expect(sink.rows.first?.values[1].currency == .rub)
        // Without --currency the metric went with the API's placeholder and no currency parameter.
        #expect(
            api.dataRequests.last?.query["metrics"]
                == "ym:s:ecommercePurchases,ym:s:ecommerce<currency>ConvertedRevenue")
        #expect(api.dataRequests.last?.query["currency"] == nil)

        var both = try ReportRequest(
            counterIDs: [1001, 1002], from: request.from, to: request.to, metrics: request.metrics,
            dimensions: request.dimensions)
        let refused = CollectingSink()
        await #expect {
            try await DirectReport.run(
                both, client: api.client(), activity: RecordedActivity(), into: refused, showsProgress: false)
        } throws: { error in
            (error as? ParameterError)?.message(cliNaming).contains("1001 in RUB, 1002 in USD") == true
        }
        #expect(refused.layouts.isEmpty && refused.rows.isEmpty)

        // With --currency: the concrete name and the parameter, for both.
        both = try ReportRequest(
            counterIDs: both.counterIDs, from: both.from, to: both.to, metrics: both.metrics,
            dimensions: both.dimensions, currency: .eur)
        let converted = CollectingSink()
        try await DirectReport.run(
            both, client: api.client(), activity: RecordedActivity(), into: converted, showsProgress: false)
        #expect(converted.layouts.first?.metrics.map(\.columnName) == ["purchases", "revenue_eur"])
        #expect(api.dataRequests.last?.query["metrics"] == "ym:s:ecommercePurchases,ym:s:ecommerceEURConvertedRevenue")
        #expect(api.dataRequests.last?.query["currency"] == "EUR")
    }
}

extension MoneyUseCaseTests {
    /// The mail's money keeps its sign everywhere (issue 32, item 9): the text part's sparkline
    /// range, the revenue chart's axis (`400k ₽`) and end label, as `report --format html` has them.
    @Test func theMailsMoneyLabelsCarryTheCurrencySign() async throws {
        let database = try TemporaryDatabase()
        let api = RuleAPI()
        api.currencies = [1001: "RUB"]
        let loader = HistoryLoader(
            store: try await HistoryStore.open(path: database.path), client: api.client(), now: { testNow },
            unsettledDays: 2)
        let composer = MailComposer(
            loader: loader, rasterizer: MailComposerTests.FakeRasterizer(), activity: RecordedActivity())
        let request = MailComposer.Request(
            counterIDs: [1001], window: .period(.lastWeek), metrics: Self.shop,
            sender: try MIMEAddress("m@example.com"), recipients: [try MIMEAddress("a@example.com")], subject: nil)
        let sections = try await composer.sections(request)
        let section = try #require(sections.first)
        let text = try MailReport.plainText(sections, metrics: request.tableMetrics, files: ["chart.svg"])
        let sparklines = text.split(separator: "\n").filter {
            $0.contains("…") && ($0.hasPrefix("Revenue") || $0.hasPrefix("Average order value"))
        }
        #expect(sparklines.count == 2, "\(text)")
        for line in sparklines { #expect(line.hasSuffix(" ₽"), "\(line)") }
        #expect(sparklines.allSatisfy { $0.components(separatedBy: " ₽").count == 3 }, "\(sparklines)")
        // The charts as the composer draws them: the revenue chart's axis labels and end label.
        let charts = MailReport.htmlSection(section, metrics: request.tableMetrics).lineCharts(
            metrics: request.chartMetrics)
        let revenue = try #require(charts.first { $0.series.metric.shortName == "revenue" })
        #expect(revenue.series.metric.currency == .rub)
        let svg = revenue.element()
        let labels = svg.split(separator: "\n").filter { $0.hasPrefix("<text") }.compactMap { line -> String? in
            guard let start = line.firstIndex(of: ">"), let end = line.lastIndex(of: "<") else { return nil }
            return String(line[line.index(after: start)..<end])
        }
        let numeric = labels.filter { $0.first?.isNumber == true && !$0.contains(" Nov") && !$0.contains(" Dec") }
        #expect(numeric.count >= 3, "\(labels)")
        #expect(numeric.allSatisfy { $0.hasSuffix(" ₽") }, "\(numeric)")
    }
}
