/// Money metrics: e-commerce purchases and revenue, and goal revenue (docs/reports.md, "Money").
///
/// The Reporting API names a money metric with its currency inside (`ym:s:ecommerceRUBConvertedRevenue`,
/// documented as `ym:s:ecommerce<currency>ConvertedRevenue`). The catalog's entries leave the
/// currency open (`<currency>`, `currency` nil) until the report knows it — `--currency`, or the
/// counter's own currency from the API — and `inCurrency(_:)` then names the concrete metric:
/// `revenue_rub` in CSV and JSON, a different series in the history than `revenue_usd`.
extension Metric {
    /// Where the currency goes in a money metric's API name.
    package static let currencyPlaceholder = "<currency>"

    /// `ym:s:ecommercePurchases`: the number of purchases (orders).
    package static let purchases = Metric(
        apiName: "ym:s:ecommercePurchases", shortName: "purchases", columnName: "purchases", title: "Purchases",
        unit: .count, aggregation: .sum)
    /// `ym:s:ecommerce<currency>ConvertedRevenue`: revenue of the purchases, converted into one currency.
    package static let revenue = money(
        template: "ym:s:ecommerce<currency>ConvertedRevenue", shortName: "revenue", column: "revenue", title: "Revenue",
        aggregation: .sum)
    /// `…ConvertedRevenuePerPurchase`: average order value, revenue over purchases.
    package static let revenuePerPurchase = money(
        template: "ym:s:ecommerce<currency>ConvertedRevenuePerPurchase", shortName: "revenuePerPurchase",
        column: "revenue_per_purchase", title: "Average order value", aggregation: .revenuePerPurchase)
    /// `…ConvertedRevenuePerVisit`: revenue over visits.
    package static let revenuePerVisit = money(
        template: "ym:s:ecommerce<currency>ConvertedRevenuePerVisit", shortName: "revenuePerVisit",
        column: "revenue_per_visit", title: "Revenue per visit", aggregation: .revenuePerVisit)
    /// `ym:s:productBaskets<currency>ConvertedPrice`: the value of the items added to baskets (the
    /// `basket` template).
    package static let basketValue = money(
        template: "ym:s:productBaskets<currency>ConvertedPrice", shortName: "basketValue", column: "basket_value",
        title: "Basket value", aggregation: .sum)
    /// `ym:s:productPurchased<currency>ConvertedPrice`: what the items bought were bought for (the
    /// `basket_products` template); over all products, the revenue.
    package static let productRevenue = money(
        template: "ym:s:productPurchased<currency>ConvertedPrice", shortName: "productRevenue",
        column: "product_revenue", title: "Product revenue", aggregation: .sum)

    /// The money metrics of the catalog, whose full names map onto them in any currency.
    static let moneyCatalog: [Metric] = [revenue, revenuePerPurchase, revenuePerVisit, basketValue, productRevenue]

    /// The unit as the history database stores it: the unit's name, and for money its currency
    /// (`money:RUB`), so a value is read back only as what it was stored as.
    package var storedUnit: String {
        unit == .money ? MetricUnit.money.rawValue + ":" + (currency?.code ?? Self.currencyPlaceholder) : unit.rawValue
    }

    /// Whether this is a money metric whose currency is not known yet (the counter's own).
    package var needsCurrency: Bool { unit == .money && currency == nil }

    /// This money metric in `currency`: its API name with the code in it, its column name with the
    /// code at the end (`revenue_rub`). Other metrics come back unchanged.
    package func inCurrency(_ currency: Currency) -> Metric {
        guard unit == .money, let template = currencyTemplate else { return self }
        if self.currency == currency { return self }
        let base = self.currency.map { String(columnName.dropLast($0.columnSuffix.count + 1)) } ?? columnName
        return Metric(
            apiName: template.replacing(Self.currencyPlaceholder, with: currency.code), shortName: shortName,
            columnName: base + "_" + currency.columnSuffix,
            title: title, unit: unit, aggregation: aggregation, currency: currency, currencyTemplate: template)
    }

    /// The same metric under another title (goal names); names, unit and currency unchanged.
    package func retitled(_ title: String) -> Metric {
        Metric(
            apiName: apiName, shortName: shortName, columnName: columnName, title: title, unit: unit,
            aggregation: aggregation, currency: currency, currencyTemplate: currencyTemplate)
    }

    /// A money metric from its template, its currency open or given.
    static func money(
        template: String, shortName: String, column: String, title: String, aggregation: Aggregation,
        currency: Currency? = nil
    ) -> Metric {
        let open = Metric(
            apiName: template, shortName: shortName, columnName: column, title: title, unit: .money,
            aggregation: aggregation, currencyTemplate: template)
        return currency.map(open.inCurrency) ?? open
    }

    /// `goal<ID>revenue`: the revenue of a goal's conversions, `ym:s:goal<ID>converted<currency>Revenue`.
    static func goalRevenue(_ digits: String, currency: Currency?, prefix: String = "ym:s:") -> Metric {
        money(
            template: "\(prefix)goal\(digits)converted<currency>Revenue", shortName: "goal\(digits)revenue",
            column: "goal\(digits)_revenue",
            title: "Goal \(digits) revenue", aggregation: .sum, currency: currency)
    }

    /// A full `ym:` money name, its currency a code (`RUB`) or still `<currency>`:
    /// `ym:s:ecommerceRUBConvertedRevenue` (and `…PerPurchase`, `…PerVisit`,
    /// `ym:s:productBasketsRUBConvertedPrice`, `ym:s:productPurchasedRUBConvertedPrice`) are the
    /// catalog's entries; `ym:s:goal123convertedRUBRevenue` goal revenue; any other
    /// `…<currency>Converted…` name a money column of its own.
    static func moneyMetric(_ text: String) -> Metric? {
        guard text.hasPrefix("ym:"), let colon = text.lastIndex(of: ":") else { return nil }
        let prefix = String(text[...colon])
        let tail = String(text[text.index(after: colon)...])
        // Goal revenue: goal<digits>converted<currency>Revenue.
        if tail.hasPrefix("goal") {
            let rest = tail.dropFirst(4)
            let digits = rest.prefix(while: \.isASCIIDigitCharacter)
            let after = rest.dropFirst(digits.count)
            guard !digits.isEmpty, after.hasPrefix("converted"), after.hasSuffix("Revenue") else { return nil }
            let code = after.dropFirst("converted".count).dropLast("Revenue".count)
            guard let currency = currencyPart(String(code)) else { return nil }
            return goalRevenue(String(digits), currency: currency.known, prefix: prefix)
        }
        guard let converted = tail.firstRange(of: "Converted") else { return nil }
        let before = String(tail[..<converted.lowerBound])
        let after = String(tail[converted.upperBound...])
        let codeLength = before.hasSuffix(currencyPlaceholder) ? currencyPlaceholder.count : 3
        guard before.count > codeLength, let currency = currencyPart(String(before.suffix(codeLength))) else {
            return nil
        }
        let stem = String(before.dropLast(codeLength))
        let template = prefix + stem + currencyPlaceholder + "Converted" + after
        if let entry = moneyCatalog.first(where: {
            $0.currencyTemplate == "ym:s:" + stem + currencyPlaceholder + "Converted" + after
        }) {
            return money(
                template: template, shortName: entry.shortName, column: entry.columnName, title: entry.title,
                aggregation: entry.aggregation, currency: currency.known)
        }
        let name = stem + "Converted" + after
        // Prices and revenue of purchases add up over days; ratios of other money metrics metrika
        // has no rule for are never summed.
        let additive = after == "Price" || after == "Revenue"
        return money(
            template: template, shortName: name, column: ColumnName.of(name), title: name,
            aggregation: additive ? .sum : .nonAdditive, currency: currency.known)
    }

    /// The currency part of a money name: `<currency>` is open (`known` nil), three capitals are that
    /// currency; anything else makes the name no money name (nil).
    private struct CurrencyPart {
        let known: Currency?
    }

    private static func currencyPart(_ text: String) -> CurrencyPart? {
        if text == currencyPlaceholder { return CurrencyPart(known: nil) }
        guard text.count == 3, text.allSatisfy({ $0.isASCII && $0.isUppercase }), let currency = Currency(code: text)
        else { return nil }
        return CurrencyPart(known: currency)
    }
}
