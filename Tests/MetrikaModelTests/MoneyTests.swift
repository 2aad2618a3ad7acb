import MetrikaModel
import Testing

/// Money as a unit: names, currencies, text, and the ratios of sums a week or month needs.
@Suite struct MoneyTests {
    // MARK: - Names

    @Test(arguments: [
        ("purchases", "ym:s:ecommercePurchases", "purchases", MetricUnit.count),
        ("revenue", "ym:s:ecommerce<currency>ConvertedRevenue", "revenue", .money),
        ("revenuePerPurchase", "ym:s:ecommerce<currency>ConvertedRevenuePerPurchase", "revenue_per_purchase", .money),
        ("revenuePerVisit", "ym:s:ecommerce<currency>ConvertedRevenuePerVisit", "revenue_per_visit", .money),
        ("goal4001revenue", "ym:s:goal4001converted<currency>Revenue", "goal4001_revenue", .money)
    ])
    func shortNames(short: String, api: String, column: String, unit: MetricUnit) throws {
        let metric = try #require(Metric.named(short))
        #expect(metric.apiName == api)
        #expect(metric.columnName == column)
        #expect(metric.unit == unit)
        #expect(metric.currency == nil)
        #expect(metric.needsCurrency == (unit == .money))
    }

    @Test func aCurrencyNamesTheMetricAndItsColumn() throws {
        let revenue = try #require(Metric.named("revenue")).inCurrency(.rub)
        #expect(revenue.apiName == "ym:s:ecommerceRUBConvertedRevenue")
        #expect(revenue.columnName == "revenue_rub")
        #expect(revenue.currency == .rub)
        #expect(!revenue.needsCurrency)
        // Another currency is another metric, not the same one relabelled.
        let dollars = revenue.inCurrency(.usd)
        #expect(dollars.apiName == "ym:s:ecommerceUSDConvertedRevenue")
        #expect(dollars.columnName == "revenue_usd")
        #expect(dollars != revenue)
        #expect(Metric.revenuePerPurchase.inCurrency(.eur).columnName == "revenue_per_purchase_eur")
        #expect(Metric.named("goal7revenue")?.inCurrency(.ynd).apiName == "ym:s:goal7convertedYNDRevenue")
        // Other metrics have no currency to take.
        #expect(Metric.visits.inCurrency(.usd) == Metric.visits)
    }

    @Test(arguments: [
        ("ym:s:ecommerceRUBConvertedRevenue", "revenue", "revenue_rub", "RUB", Aggregation.sum),
        (
            "ym:s:ecommerceUSDConvertedRevenuePerPurchase", "revenuePerPurchase", "revenue_per_purchase_usd", "USD",
            .revenuePerPurchase
        ),
        (
            "ym:s:ecommerceBYNConvertedRevenuePerVisit", "revenuePerVisit", "revenue_per_visit_byn", "BYN",
            .revenuePerVisit
        ),
        ("ym:s:goal12convertedEURRevenue", "goal12revenue", "goal12_revenue_eur", "EUR", .sum),
        ("ym:s:productBasketsRUBConvertedPrice", "basketValue", "basket_value_rub", "RUB", .sum),
        ("ym:s:productPurchasedUSDConvertedPrice", "productRevenue", "product_revenue_usd", "USD", .sum),
        ("ym:ad:productBasketsEURConvertedPrice", "basketValue", "basket_value_eur", "EUR", .sum),
        (
            "ym:s:productBasketsAddRUBConvertedPrice", "productBasketsAddConvertedPrice",
            "product_baskets_add_converted_price_rub", "RUB", .sum
        )
    ])
    func fullNamesKeepWorking(api: String, short: String, column: String, code: String, aggregation: Aggregation) throws
    {
        let metric = try #require(Metric.named(api))
        #expect(metric.apiName == api)
        #expect(metric.shortName == short)
        #expect(metric.columnName == column)
        #expect(metric.unit == .money)
        #expect(metric.currency?.code == code)
        #expect(metric.aggregation == aggregation)
    }

    @Test func anOpenCurrencyInAFullName() throws {
        let metric = try #require(Metric.named("ym:s:ecommerce<currency>ConvertedRevenuePerVisit"))
        #expect(metric == Metric.revenuePerVisit)
        #expect(metric.inCurrency(.rub).apiName == "ym:s:ecommerceRUBConvertedRevenuePerVisit")
    }

    @Test(arguments: ["ym:s:ecommerceRubConvertedRevenue", "ym:s:ecommerceRUConvertedRevenue", "ym:s:Converted"])
    func notMoney(name: String) throws {
        // Still accepted (any ym: name is), but as a plain number: no made-up currency.
        let metric = try #require(Metric.named(name))
        #expect(metric.unit != .money)
        #expect(metric.currency == nil)
    }

    @Test func currencies() {
        #expect(Currency(code: "rub") == .rub)
        #expect(Currency(code: " USD ")?.sign == "$")
        #expect(Currency.eur.sign == "€")
        #expect(Currency.rub.sign == "₽")
        #expect(Currency.ynd.sign == "YND")
        #expect(Currency(code: "BYN")?.sign == "BYN")
        for bad in ["", "RU", "RUBL", "R1B", "₽₽₽"] { #expect(Currency(code: bad) == nil, "\(bad)") }
        #expect(Currency.known.map(\.code) == ["RUB", "USD", "EUR", "YND"])
    }

    @Test func storedUnitsKeepTheCurrency() {
        #expect(Metric.revenue.inCurrency(.rub).storedUnit == "money:RUB")
        #expect(Metric.revenue.inCurrency(.usd).storedUnit == "money:USD")
        #expect(Metric.purchases.storedUnit == "count")
        #expect(Metric.bounceRate.storedUnit == "percent")
    }

    // MARK: - Text

    @Test func tablesShowTheSignAndCSVThePlainNumber() {
        let value = Quantity(1_250_000, unit: .money, currency: .rub)
        #expect(ValueFormatter.format(value, grouping: true, missing: "—", currencySign: true) == "1 250 000.00 ₽")
        #expect(ValueFormatter.format(value, grouping: false, missing: "") == "1250000.00")
        #expect(
            ValueFormatter.format(
                Quantity(2852.9754, unit: .money, currency: .usd), grouping: true, missing: "—", currencySign: true)
                == "2 852.98 $")
        #expect(
            ValueFormatter.format(
                Quantity(0.005, unit: .money, currency: .eur), grouping: true, missing: "—", currencySign: true)
                == "0.01 €")
        #expect(
            ValueFormatter.format(
                Quantity(nil, unit: .money, currency: .rub), grouping: true, missing: "—", currencySign: true) == "—")
        // No currency known: the number alone, never a wrong sign.
        #expect(
            ValueFormatter.format(Quantity(12.5, unit: .money), grouping: true, missing: "—", currencySign: true)
                == "12.50")
        // A currency belongs to money only.
        #expect(Quantity(3, unit: .count, currency: .rub).currency == nil)
        // And costs no memory: a report row's values are as small as before money.
        #expect(MemoryLayout<Quantity>.stride == 24)
    }

    /// The byte path of the sinks gives the String path's text, sign and all.
    @Test(arguments: [0.0, 0.005, 12.345, 2852.9754, 1_250_000, 99_999_999.995, -1234.5])
    func bytesMatchTheFormatter(value: Double) {
        for currency in [Currency.rub, .usd, .ynd] {
            for sign in [true, false] {
                let quantity = Quantity(value, unit: .money, currency: currency)
                let slow = ValueFormatter.format(quantity, grouping: sign, missing: "", currencySign: sign)
                let fast = ValueBytes.text({ "declined" }) {
                    ValueBytes.normalized(quantity, grouping: sign, alwaysHours: false, currencySign: sign, into: $0)
                }
                #expect(fast == slow, "\(value) \(currency) \(sign)")
            }
        }
    }

    @Test func parsesItsOwnSignText() {
        // The sign is the last thing in a cell: a space before it, nothing after it.
        let text = ValueFormatter.format(
            Quantity(1_703_226.31, unit: .money, currency: .rub), grouping: true, missing: "", currencySign: true)
        #expect(text.hasSuffix(" ₽"))
        #expect(text.dropLast(2) == "1 703 226.31")
    }

    // MARK: - Periods

    /// Four days of a shop, hand-computed: revenue 1000 + 2500.50 + 0 + 499.49 = 3999.99;
    /// purchases 2 + 5 + 0 + 1 = 8; visits 100 + 150 + 50 + 100 = 400.
    /// Average order value 3999.99 / 8 = 499.99875 (not the mean of the daily 500, 500.10, —, 499.49);
    /// revenue per visit 3999.99 / 400 = 9.999975.
    let metrics = [
        Metric.visits, Metric.purchases, Metric.revenue.inCurrency(.rub), Metric.revenuePerPurchase.inCurrency(.rub),
        Metric.revenuePerVisit.inCurrency(.rub)
    ]
    let days: [[Double?]] = [
        [100, 2, 1000, 500, 10],
        [150, 5, 2500.50, 500.10, 16.67],
        [50, 0, 0, 0, 0], // no purchases: the API's 0 is no average order value
        [100, 1, 499.49, 499.49, 4.9949]
    ]

    @Test func aPeriodsRatiosAreRatiosOfSums() {
        let result = Aggregator.aggregate(metrics: metrics, rows: days)
        #expect(result[0] == 400)
        #expect(result[1] == 8)
        #expect(
            result[2].map {
                ValueFormatter.format(Quantity($0, unit: .money, currency: .rub), grouping: false, missing: "")
            } == "3999.99")
        #expect(
            result[3].map {
                ValueFormatter.format(Quantity($0, unit: .money, currency: .rub), grouping: false, missing: "")
            } == "500.00")
        #expect(abs((result[3] ?? 0) - 3999.99 / 8) < 1e-9)
        #expect(abs((result[4] ?? 0) - 3999.99 / 400) < 1e-12)
        // The mean of the daily values would have been another number (499.86 after rounding).
        #expect(abs((result[3] ?? 0) - (500 + 500.10 + 499.49) / 3) > 0.1)
    }

    @Test func noPurchasesNoAverageOrderValue() {
        // One day without purchases: empty, never 0 or NaN, whatever the answer said.
        let day = Aggregator.aggregate(metrics: metrics, rows: [days[2]])
        #expect(day[3] == nil)
        #expect(day[2] == 0)
        #expect(day[1] == 0)
        // A whole period without purchases: the same.
        let quiet = Aggregator.aggregate(metrics: metrics, rows: [days[2], [20, 0, 0, nil, 0]])
        #expect(quiet[3] == nil)
        #expect(quiet[2] == 0)
        // A day without visits has no revenue per visit either.
        #expect(Aggregator.aggregate(metrics: metrics, rows: [[0, 0, 0, nil, nil]])[4] == nil)
    }

    @Test func ratiosNeedWhatTheyDivide() {
        // Without purchases stored the average order value of a period is unknown, never guessed.
        let alone = [Metric.revenuePerPurchase.inCurrency(.rub)]
        #expect(Aggregator.aggregate(metrics: alone, rows: [[500], [600]]) == [nil])
        // Revenue in another currency does not make a rouble ratio.
        let mixed = [Metric.purchases, Metric.revenue.inCurrency(.usd), Metric.revenuePerPurchase.inCurrency(.rub)]
        #expect(Aggregator.aggregate(metrics: mixed, rows: [[1, 10, 900], [1, 10, 900]])[2] == nil)
    }

    // MARK: - Attribution

    @Test func attributionModels() throws {
        #expect(Attribution("automatic")?.apiValue == "automatic")
        #expect(Attribution("Cross-Device-Last-Significant")?.apiValue == "cross_device_last_significant")
        #expect(Attribution("last")?.replaced == nil)
        let old = try #require(Attribution("lastsign"))
        #expect(old.apiValue == "cross_device_last_significant")
        #expect(old.replaced == "lastsign")
        #expect(Attribution("first")?.apiValue == "cross_device_first")
        #expect(Attribution("last_yandex_direct_click")?.apiValue == "automatic")
        #expect(Attribution("cross_device_last_yandex_direct_click")?.apiValue == "automatic")
        #expect(Attribution("best") == nil)
        #expect(Attribution("") == nil)
    }
}
