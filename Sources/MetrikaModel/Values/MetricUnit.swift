/// The unit a metric value is expressed in. Every value metrika handles carries one, so a percent can
/// never be mistaken for a fraction (1778%) or a fraction for a percent (0.2%).
package enum MetricUnit: String, Sendable, Hashable, CaseIterable {
    /// A number of things (visits, users): shown as an integer.
    case count
    /// A percentage on the 0–100 scale, as the modern Reporting API returns bounce rate.
    case percent
    /// Seconds (average visit duration): shown as `mm:ss`, `h:mm:ss` from one hour.
    case seconds
    /// Pages per visit: shown with two decimals.
    case pagesPerVisit = "pages_per_visit"
    /// Any other number (scores, prices metrika has no entry for): shown with up to two decimals.
    case number
    /// An amount of money in the currency its `Quantity` (and `Metric`) names: two decimals, digit
    /// grouping and the currency's sign in tables (`1 250 000.00 ₽`), plain two decimals in CSV.
    case money
}

/// How values of a metric combine over several days. Non-additive metrics are never summed.
package enum Aggregation: Sendable, Hashable {
    /// Counts: the period value is the sum of the daily values.
    case sum
    /// Ratios per visit (bounce rate, duration, percent of new visitors): Σ(value × visits) / Σ visits.
    case visitWeighted
    /// Page depth: Σ pageviews / Σ visits.
    case pageviewsPerVisit
    /// Unique counts (users): cannot be derived from daily values; only the API's period total is right.
    case nonAdditive
    /// Average order value: Σ revenue / Σ purchases (revenue in the same currency); no purchases, no value.
    case revenuePerPurchase
    /// Revenue per visit: Σ revenue / Σ visits (revenue in the same currency); no visits, no value.
    case revenuePerVisit
}
