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
