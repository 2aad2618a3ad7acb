/// Which way a metric's change is good news: what `--compare` colours green. A rising bounce rate is
/// bad news, a rising visit count good; a rising share of new visitors is neither (growth, or
/// regulars lost), so it stays uncoloured.
package enum GoodDirection: String, Sendable, Hashable {
    /// More is better (visits, time on site, revenue).
    case up
    /// Less is better (bounce rate, robots).
    case down
    /// Neither: no colour.
    case neither
}

extension Metric {
    /// The direction of good news for this metric: the one table below, by short name (so
    /// `ym:pv:users` and `ym:s:users` agree); goal reaches, conversion and revenue go up; any other metric
    /// metrika does not know is `.neither` (an unknown metric's colour would be a guess).
    package var goodDirection: GoodDirection {
        if let direction = Self.goodDirections[shortName] { return direction }
        if shortName.hasPrefix("goal"),
            shortName.hasSuffix("reaches") || shortName.hasSuffix("conversionRate") || shortName.hasSuffix("revenue")
        {
            return .up
        }
        return .neither
    }

    /// The direction of good news of every metric metrika knows by name.
    static let goodDirections: [String: GoodDirection] = [
        "visits": .up,
        "pageviews": .up,
        "users": .up,
        "newUsers": .up,
        "pageDepth": .up,
        "avgVisitDuration": .up,
        "bounceRate": .down,
        "robotPercentage": .down,
        "percentNewVisitors": .neither,
        // Counts the API names plainly (`Metric.countNames`).
        "hits": .up,
        "sumGoalReachesAny": .up,
        "goalReachesAny": .up,
        "ecommercePurchases": .up,
        "productPurchasedUniq": .up,
        // Money.
        "purchases": .up,
        "revenue": .up,
        "revenuePerPurchase": .up,
        "revenuePerVisit": .up
    ]
}
