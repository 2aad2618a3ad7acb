import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore

/// The portfolio (`metrika report --counter all`, MCP `get_report` with `counter_ids: "all"`): every
/// counter the token reads (the counters list, as `CounterList` gives it; offline the history's), each
/// with the period's totals of the everyday metrics, read through the history like any time-series
/// report — one request per counter for what the history lacks (its days and the API's users total
/// over the period), none when the history has it settled. Rows and the Total: `PortfolioListing`.
package struct Portfolio: Sendable {
    package let request: ReportRequest
    package let loader: HistoryLoader
    package let activity: any Activity
    /// Counters read at once: the API allows 3 requests in parallel per user.
    package var parallelism = 3

    package init(request: ReportRequest, loader: HistoryLoader, activity: any Activity) {
        precondition(request.allCounters, "a portfolio is a report of every counter")
        self.request = request
        self.loader = loader
        self.activity = activity
    }

    /// The counters of the portfolio: the counters list (stored in the history, so that an offline
    /// portfolio knows them), else, offline, the history's; deleted ones left out.
    package func counters() async throws -> [Counter] {
        guard let client = loader.client else {
            return try await loader.store.counters().filter { $0.status.lowercased() != "deleted" }
        }
        let (items, warning) = try await CounterList.fetch(client: client, search: nil, history: loader.store)
        if let warning { activity.note(warning) }
        let counters = items.map(\.counter)
        try await loader.store.upsertCounters(counters)
        return counters.filter { $0.status.lowercased() != "deleted" }
    }

    /// Reads every counter's row (at most `parallelism` at once, `Reading: n/N counters` as progress).
    /// A counter the API refuses (access denied, gone) is left out with one note; any other failure
    /// (a date the request cannot have, the history database) ends the run.
    package func run() async throws -> PortfolioListing.Report {
        let counters = try await counters()
        var rows: [PortfolioListing.Row] = []
        var failed: [(counterID: Int, reason: String)] = []
        var incomplete: [Int] = []
        try await withThrowingTaskGroup(of: (Counter, Result<(PortfolioListing.Row, Bool), APIError>).self) {
            group in
            var next = 0
            func launch() {
                let counter = counters[next]
                next += 1
                group.addTask {
                    do {
                        return (counter, .success(try await row(counter)))
                    } catch let failure as APIError where Self.leavesCounterOut(failure) {
                        return (counter, .failure(failure))
                    }
                }
            }
            while next < min(max(1, parallelism), counters.count) { launch() }
            var done = 0
            while let (counter, result) = try await group.next() {
                done += 1
                switch result {
                case .success(let (row, missing)):
                    rows.append(row)
                    if missing { incomplete.append(counter.id) }
                case .failure(let failure):
                    failed.append((counter.id, activity.naming.message(of: failure)))
                }
                activity.progress("Reading: \(done)/\(counters.count) counters", done: done, total: counters.count)
                if next < counters.count { launch() }
            }
        }
        activity.endProgress()
        // No counter: the dates as UTC reads them, for the heading of an empty portfolio.
        let utcToday = Day(ordinal: Int((activity.now().timeIntervalSince1970 / 86_400).rounded(.down)))
        let asked = DateRange(from: request.from.resolve(today: utcToday), to: request.to.resolve(today: utcToday))
        let period =
            DateRange.spanning(rows.map(\.range)) ?? asked ?? DateRange(from: utcToday, to: utcToday)!
        var report = PortfolioListing.Report(period: period, rows: rows, compare: request.compare)
        report.failed = failed.sorted { $0.counterID < $1.counterID }
        for (id, reason) in report.failed {
            activity.note("Error: counter \(id): \(reason) (left out of the portfolio and its Total).")
        }
        if !incomplete.isEmpty {
            let ids = incomplete.sorted().prefix(5).map(String.init).joined(separator: ", ")
            let more = incomplete.count > 5 ? " and \(incomplete.count - 5) more" : ""
            activity.note(
                "Note: \(incomplete.count) counter\(incomplete.count == 1 ? " has" : "s have") no history for some days of the period (\(ids)\(more)): \(incomplete.count == 1 ? "its" : "their") values and the Total are shown as —\(request.offline ? "; \(activity.naming.action(.fetchOnline))" : "")."
            )
        }
        return report
    }

    /// The values of a period a counter did not exist in: no visits, no pageviews, the rest unknown.
    static let none = PortfolioListing.metrics.map { Quantity($0.aggregation == .sum ? 0 : nil, unit: $0.unit) }

    /// A counter the API will not give the portfolio: left out, the others go on.
    static func leavesCounterOut(_ failure: APIError) -> Bool {
        switch failure {
        case .accessDenied, .notFound: return true
        default: return false
        }
    }

    /// A portfolio compares whole days only: today's hours so far set against whole days would read
    /// as a fall (one report's `--compare` compares today by its finished hours instead).
    static func refuseToday(_ range: DateRange, counter: Counter, now: Date) throws {
        guard Comparison.includesToday(range, counter: counter, now: now) else { return }
        throw ParameterError(.compare, .notApplicable) {
            "\($0[.compare]) over all counters compares whole days, and the period ends today. "
                + "End the period yesterday (\($0[.to]) yesterday), or compare one counter: "
                + "\($0.action(.watchToday(counterID: counter.id)))"
        }
    }

    /// One counter's row: the period's totals (and the previous period's with `--compare`), and
    /// whether a day of either is missing from the history.
    func row(_ counter: Counter) async throws -> (PortfolioListing.Row, Bool) {
        let metrics = PortfolioListing.metrics
        let now = activity.now()
        // A range cut to the counter's creation day is said by its row's from/to, not a note per counter.
        let range = try resolveRange(
            from: request.from, to: request.to, counter: counter, now: now, naming: activity.naming)
        if request.compare { try Self.refuseToday(range, counter: counter, now: now) }
        let loaded = try await loader.load(
            counter: counter, range: range, metrics: metrics, grouping: nil, refresh: request.refresh)
        // A counter created after the period had no visits in it (zero in the Total, never unknown).
        let values =
            range.to < firstDataDay(of: counter)
            ? Self.none : HistoryLoader.aggregate(loaded, period: loaded.range, metrics: metrics)
        var missing = !loaded.missingDays.isEmpty
        var previous: [Quantity]?
        if request.compare {
            let before = try await Comparison.loadPrevious(
                loaded, loader: loader, metrics: metrics, refresh: request.refresh)
            if before.range.to < firstDataDay(of: counter) {
                // Not created yet: it had no visits then (a "new" row, and zero in the previous Total).
                previous = Self.none
            } else {
                previous = HistoryLoader.aggregate(before, period: before.range, metrics: metrics)
                missing = missing || !before.missingDays.isEmpty
            }
        }
        return (
            PortfolioListing.Row(counter: counter, range: loaded.range, values: values, previous: previous), missing
        )
    }
}
