/// Offset/limit paging of every paged Metrika endpoint (the counters list, `/stat/v1/data`), with the
/// guards that keep a server that lies about its row count from costing more requests than the rows
/// asked for allow.
///
/// The API pages by a 1-based `offset` and a page size, and says how many rows there are in all
/// (`rows` / `total_rows`). Paging stops at the first of:
/// - the rows asked for are in (`wanted`);
/// - the offset passes the total the server claims;
/// - an empty or short page (fewer rows than asked for): the server has no more, whatever it claims;
/// - a page with nothing new (the same ids, or the same first row, as before): a server that ignores
///   `offset`;
/// - `maxRequests` requests: at most ⌈wanted / pageSize⌉, and never more than `hardCap`.
/// The last three are anomalies: `warning` says what happened so the command can tell the user.
package struct Pager: Sendable {
    /// Why paging stopped.
    package enum Stop: Sendable, Equatable {
        /// Every row the server has (by its own count).
        case complete
        /// The rows asked for.
        case reachedLimit
        /// A page shorter than asked for while the server claimed more rows.
        case shortPage
        /// A page with nothing not seen before.
        case nothingNew
        /// The request budget ran out while the server still claimed more.
        case requestCap
    }

    /// The most requests any paged walk may make, whatever is asked: 500 pages of 20,000 rows is the
    /// largest `--limit` (10,000,000); 100 pages of 1,000 counters is more than any account holds.
    package static let reportHardCap = 500
    /// See `reportHardCap`.
    package static let counterListHardCap = 100

    /// Rows asked for (`Int.max` for "all").
    package let wanted: Int
    /// Rows per request.
    package let pageSize: Int
    /// The request budget: ⌈wanted / pageSize⌉, at most the hard cap.
    package let maxRequests: Int
    /// The 1-based offset of the next page.
    package private(set) var offset = 1
    /// Rows received so far (pages with nothing new excluded).
    package private(set) var received = 0
    /// Requests recorded so far.
    package private(set) var requests = 0
    /// The total the server claimed in its latest page.
    package private(set) var claimedTotal = 0
    /// Why paging stopped; nil while it goes on.
    package private(set) var stop: Stop?

    /// A walk for `wanted` rows in pages of `pageSize`, never more than `hardCap` requests.
    package init(wanted: Int, pageSize: Int, hardCap: Int) {
        self.wanted = max(0, wanted)
        self.pageSize = max(1, pageSize)
        let needed = self.wanted / self.pageSize + (self.wanted % self.pageSize == 0 ? 0 : 1)
        self.maxRequests = max(0, min(hardCap, needed))
        if self.wanted == 0 || maxRequests == 0 { stop = .reachedLimit }
    }

    /// The next page to ask for, or nil when paging is over. Available as soon as the current page
    /// is recorded, so the caller can request it while it processes the current one.
    package var nextPage: (offset: Int, limit: Int)? {
        guard stop == nil else { return nil }
        return (offset, min(pageSize, wanted - received))
    }

    /// Records a page: `rowCount` rows of which `newRows` were not seen before, and the total the
    /// server claims. Returns whether the page's rows are to be used (false: nothing new).
    @discardableResult
    package mutating func record(rowCount: Int, newRows: Int, claimedTotal: Int) -> Bool {
        guard let asked = nextPage else { return false }
        requests += 1
        self.claimedTotal = claimedTotal
        let rowCount = max(0, rowCount)
        if rowCount > 0 && newRows <= 0 {
            stop = .nothingNew
            return false
        }
        received += rowCount
        offset = offset > Int.max - rowCount ? Int.max : offset + rowCount
        if received >= wanted {
            stop = .reachedLimit
        } else if rowCount == 0 || offset > claimedTotal {
            stop = offset > claimedTotal ? .complete : .shortPage
        } else if rowCount < asked.limit {
            stop = .shortPage
        } else if requests >= maxRequests {
            stop = .requestCap
        }
        return true
    }

    /// A one-line warning when paging stopped on an anomaly (nil when it ended normally).
    /// `what` names the rows, e.g. "counter 1001's report" or "the counters list".
    package func warning(_ what: String) -> String? {
        switch stop {
        case .shortPage:
            return
                "Warning: \(what): the API claimed \(claimedTotal) rows but sent a short page after \(received); stopped there."
        case .nothingNew:
            return
                "Warning: \(what): the API sent the same rows again (it ignores the offset); stopped after \(received) rows and \(requests) requests."
        case .requestCap:
            return
                "Warning: \(what): stopped after \(requests) requests (the limit for one walk) and \(received) rows; the API claimed \(claimedTotal)."
        case .complete, .reachedLimit, nil:
            return nil
        }
    }
}
