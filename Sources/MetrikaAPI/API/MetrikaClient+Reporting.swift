import Foundation
import MetrikaModel

/// The Reporting API: `/stat/v1/data` pages and `/stat/v1/data/bytime`.
extension MetrikaClient {
    // MARK: - Reporting API

    /// One page of `/stat/v1/data` (1-based `offset`).
    package func fetchData(_ query: StatQuery, offset: Int, limit: Int) async throws -> StatDataPage {
        try read(await fetchDataAnswer(query, offset: offset, limit: limit))
    }

    /// The answer for one page of `/stat/v1/data`, fetched (with retries) but not yet read: a caller
    /// that fetches the next page while it writes this one holds one page of rows and one answer,
    /// not two pages of rows (`read` turns it into the page).
    package func fetchDataAnswer(_ query: StatQuery, offset: Int, limit: Int) async throws -> StatDataAnswer {
        var items = query.items
        items.append(("offset", String(offset)))
        items.append(("limit", String(limit)))
        let (body, url) = try await fetchBody("/stat/v1/data", query: items)
        return StatDataAnswer(body: body, url: url, metricNames: query.metrics)
    }

    /// The page in `answer`: the fast scanner for plain pages, the tolerant decoder for anything
    /// unusual. A value no metric can have (`PlausibleValues`) makes the answer unreadable.
    package func read(_ answer: StatDataAnswer) throws -> StatDataPage {
        let scanned: StatDataPage?
        do {
            scanned = try StatDataScanner.scan(answer.body)
        } catch {
            throw APIError.unreadable("\(error.description) in the answer from \(answer.url.path)")
        }
        let page: StatDataPage = try scanned ?? decode(answer.body, from: answer.url)
        try page.checkPlausible(metricNames: answer.metricNames, path: answer.url.path)
        return page
    }

    /// `/stat/v1/data/bytime` with a grouping (period totals, such as the users of each week).
    package func fetchByTime(_ query: StatQuery, group: Grouping) async throws -> StatByTime {
        var items = query.items.filter { $0.0 != "group" }
        items.append(("group", group.rawValue))
        let answer: StatByTime = try await get("/stat/v1/data/bytime", query: items)
        try answer.checkPlausible(metricNames: query.metrics, path: "/stat/v1/data/bytime")
        return answer
    }
}

/// One dimension's rows in two periods (`/stat/v1/data/comparison`): each row's and the totals'
/// metrics for side `a` (the baseline) and side `b` (the period).
package struct StatComparison: Decodable, Sendable {
    package struct Row: Decodable, Sendable {
        /// The row's dimension names (nil: the API's undefined value).
        package let names: [String?]
        package let a: [Double?]
        package let b: [Double?]

        enum CodingKeys: String, CodingKey { case dimensions, metrics }
        struct Name: Decodable { let name: String? }
        struct Sides: Decodable {
            let a: [WireNumber]?
            let b: [WireNumber]?
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            names = (try container.decodeIfPresent([Name?].self, forKey: .dimensions) ?? []).map { $0?.name }
            let sides = try container.decode(Sides.self, forKey: .metrics)
            a = (sides.a ?? []).map(\.value)
            b = (sides.b ?? []).map(\.value)
        }
    }

    package let rows: [Row]
    package let totalsA: [Double?]
    package let totalsB: [Double?]
    package let totalRows: Int
    package let sampled: Bool
    package let sampleShare: Double?
    /// The currency of money metrics the `query` echo names (`RUB`…), when it does.
    package let queryCurrency: String?

    enum CodingKeys: String, CodingKey {
        case data, totals
        case totalRows = "total_rows"
        case sampled
        case sampleShare = "sample_share"
        case query
    }
    struct Query: Decodable { let currency: String? }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rows = try container.decodeIfPresent([Row].self, forKey: .data) ?? []
        queryCurrency = (try? container.decodeIfPresent(Query.self, forKey: .query))?.currency
        let totals = try container.decodeIfPresent(Row.Sides.self, forKey: .totals)
        totalsA = (totals?.a ?? []).map(\.value)
        totalsB = (totals?.b ?? []).map(\.value)
        totalRows = (try? container.decodeIfPresent(Int.self, forKey: .totalRows)) ?? rows.count
        sampled = try container.flexibleBool(.sampled) ?? false
        sampleShare = try? container.decodeIfPresent(Double.self, forKey: .sampleShare)
    }
}

extension MetrikaClient {
    /// `/stat/v1/data/comparison`: `query`'s metrics and dimensions over `baseline` (side a) and
    /// `period` (side b) in one request, `limit` rows from the 1-based `offset`. `query.filters`
    /// applies to both sides.
    package func fetchComparison(_ query: StatQuery, baseline: (from: String, to: String), limit: Int, offset: Int = 1)
        async throws -> StatComparison
    {
        try await fetchComparison(
            query, a: (baseline.from, baseline.to), b: (query.date1, query.date2), limit: limit, offset: offset)
    }

    /// `/stat/v1/data/comparison` with the sides named: `a` and `b` are each a (from, to) of days.
    /// The API sorts by side a: a report compared with its previous period puts itself on side a.
    /// `sideFilters`, when given, are each side's own `filters` in place of the query's.
    package func fetchComparison(
        _ query: StatQuery, a: (from: String, to: String), b: (from: String, to: String), limit: Int, offset: Int = 1,
        sideFilters: (a: String, b: String)? = nil
    ) async throws -> StatComparison {
        var items = query.items.filter { $0.0 != "date1" && $0.0 != "date2" && $0.0 != "filters" }
        items.append(("date1_a", a.from))
        items.append(("date2_a", a.to))
        items.append(("date1_b", b.from))
        items.append(("date2_b", b.to))
        if let sideFilters {
            items.append(("filters_a", sideFilters.a))
            items.append(("filters_b", sideFilters.b))
        } else if let filters = query.filters {
            items.append(("filters_a", filters))
            items.append(("filters_b", filters))
        }
        items.append(("limit", String(limit)))
        if offset > 1 { items.append(("offset", String(offset))) }
        return try await get("/stat/v1/data/comparison", query: items)
    }
}

/// `/stat/v1/data` rows read plainly (dimension names and metric values), for a caller that needs
/// the rows as values (the explanation's days by segment).
package struct StatPlainRows: Decodable, Sendable {
    package struct Row: Decodable, Sendable {
        package let names: [String?]
        package let metrics: [Double?]

        enum CodingKeys: String, CodingKey { case dimensions, metrics }
        struct Name: Decodable { let name: String? }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            names = (try container.decodeIfPresent([Name?].self, forKey: .dimensions) ?? []).map { $0?.name }
            metrics = (try container.decodeIfPresent([WireNumber].self, forKey: .metrics) ?? []).map(\.value)
        }
    }

    package let rows: [Row]
    package let totalRows: Int
    package let sampled: Bool
    package let sampleShare: Double?

    enum CodingKeys: String, CodingKey {
        case data
        case totalRows = "total_rows"
        case sampled
        case sampleShare = "sample_share"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rows = try container.decodeIfPresent([Row].self, forKey: .data) ?? []
        totalRows = (try? container.decodeIfPresent(Int.self, forKey: .totalRows)) ?? rows.count
        sampled = try container.flexibleBool(.sampled) ?? false
        sampleShare = try? container.decodeIfPresent(Double.self, forKey: .sampleShare)
    }
}

extension MetrikaClient {
    /// The first `limit` rows of `/stat/v1/data`, read plainly.
    package func fetchPlainRows(_ query: StatQuery, limit: Int) async throws -> StatPlainRows {
        var items = query.items
        items.append(("offset", "1"))
        items.append(("limit", String(limit)))
        return try await get("/stat/v1/data", query: items)
    }
}
