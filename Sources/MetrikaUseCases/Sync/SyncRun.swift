import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore
import Synchronization

/// What a sync is asked to do, checked before any request.
package struct SyncRequest: Sendable {
    /// These counters; empty: every counter the token can read.
    package var counterIDs: [Int]
    /// Fetch from this day; nil: what the history lacks (else the last 30 days).
    package var from: DateExpression?
    /// Recent days that may still change and are fetched again.
    package var unsettledDays: Int

    package init(counterIDs: [Int], from: DateExpression?, unsettledDays: Int) {
        self.counterIDs = counterIDs
        self.from = from
        self.unsettledDays = unsettledDays
    }
}

/// One counter's sync.
package struct SyncOutcome: Sendable {
    package var counterID: Int
    package var daysFetched = 0
    package var requests = 0
    package var failure: (any MetrikaFailure)?
    /// The days synced (for the ClickHouse mirror).
    package var range: DateRange?

    package init(counterID: Int, failure: (any MetrikaFailure)? = nil) {
        self.counterID = counterID
        self.failure = failure
    }
}

/// The end of a sync: every counter's outcome (the unstarted ones failed with the reason they were
/// not started), and the requests it sent.
package struct SyncSummary: Sendable {
    package var outcomes: [SyncOutcome]
    package var requests: Int
    /// Set when the run gave up on an API that went away (`ConnectionGiveUp`): the error to end with.
    package var gaveUp: SyncError?

    package var total: Int { outcomes.count }
    package var failures: [SyncOutcome] { outcomes.filter { $0.failure != nil } }
    package var synced: Int { total - failures.count }
    package var daysFetched: Int { outcomes.reduce(0) { $0 + $1.daysFetched } }
    /// What went well, for the ClickHouse mirror: each synced counter and its days.
    package var syncedRanges: [(counterID: Int, range: DateRange)] {
        outcomes.compactMap { outcome in
            outcome.failure == nil ? outcome.range.map { (counterID: outcome.counterID, range: $0) } : nil
        }
    }
}

/// A sync's failures of its own, carrying their data; each entry point words them (`message` is the
/// neutral text).
package enum SyncError: MetrikaFailure, Equatable {
    /// The first day asked for is after this counter's today (its time zone is still on the day before).
    case startAfterToday(start: Day, today: Day, timeZone: String)
    /// `limit` counters in a row could not reach `host`: the run stopped, `synced` of `total` counters synced.
    case hostGone(host: String, limit: Int, reason: String, synced: Int, total: Int)

    package var exitCode: Int32 {
        switch self {
        case .startAfterToday: return ExitCode.usage
        case .hostGone: return ExitCode.unavailable
        }
    }

    package var message: String {
        switch self {
        case .startAfterToday(let start, let today, let timeZone):
            return
                "the first day \(start.iso) is after this counter's today (\(today.iso) in \(timeZone)); give a past day"
        case .hostGone(let host, let limit, let reason, let synced, let total):
            let missing = total - synced
            return
                "\(host) could not be reached by \(limit) counters in a row, so the sync stopped: \(synced) of \(total) counter\(total == 1 ? "" : "s") synced, \(missing) not synced. Run it again when the API answers. The last error: \(reason)"
        }
    }
}

/// `metrika sync`'s job: brings the history database up to date for every counter (or the named
/// ones), at most `parallelLimit` at once, progress and per-counter errors through `Activity`. After
/// `ConnectionGiveUp.limit` counters in a row that could not reach the API it stops (one line, not one
/// per counter left); a request to stop (`StopRequests`) ends it as an `Interruption` that says what
/// was synced.
package struct SyncRun: Sendable {
    /// Requests in flight at once: Metrika allows 3 parallel requests per user.
    package static let parallelLimit = 3

    package let store: HistoryStore
    package let client: MetrikaClient
    package let activity: any Activity
    /// How a per-counter failure is worded on its `Error:` line (the entry point's words).
    package let describe: @Sendable (any MetrikaFailure) -> String
    package var stopRequests: (any StopRequests)?
    package var giveUpLimit = 3

    package init(
        store: HistoryStore, client: MetrikaClient, activity: any Activity, stopRequests: (any StopRequests)? = nil,
        describe: @escaping @Sendable (any MetrikaFailure) -> String = { $0.message }
    ) {
        self.store = store
        self.client = client
        self.activity = activity
        self.stopRequests = stopRequests
        self.describe = describe
    }

    /// The state of a run, shared with the watch of stop requests.
    private final class Progress: Sendable {
        private let state = Mutex<(outcomes: [SyncOutcome], total: Int)>(([], 0))
        var total: Int {
            get { state.withLock { $0.total } }
            set { state.withLock { $0.total = newValue } }
        }
        func snapshot() -> (done: Int, synced: Int, total: Int) {
            state.withLock { ($0.outcomes.count, $0.outcomes.filter { $0.failure == nil }.count, $0.total) }
        }
        func append(_ outcome: SyncOutcome) { state.withLock { $0.outcomes.append(outcome) } }
        func all() -> [SyncOutcome] { state.withLock { $0.outcomes } }
    }

    package func run(_ request: SyncRequest) async throws -> SyncSummary {
        // A bulk writer reads the whole file once first, so it never adds a night's history to a damaged one.
        try await store.verifyIntegrity()
        let progress = Progress()
        guard let stopRequests else { return try await sync(request, progress: progress) }
        let running = Task { try await sync(request, progress: progress) }
        let stopped = StopSignal()
        let endWatch = stopRequests.watch { signal in
            if stopped.receive(signal) { running.cancel() }
        }
        defer { endWatch() }
        do {
            let summary = try await withTaskCancellationHandler {
                try await running.value
            } onCancel: {
                running.cancel()
            }
            if let signal = stopped.signal { throw interruption(signal, progress: progress) }
            return summary
        } catch let interruption as Interruption {
            throw interruption
        } catch {
            guard let signal = stopped.signal else { throw error }
            throw interruption(signal, progress: progress)
        }
    }

    private func interruption(_ signal: Int32, progress: Progress) -> Interruption {
        activity.endProgress()
        let (_, synced, total) = progress.snapshot()
        return Interruption(
            signal: signal,
            account:
                "sync stopped: \(synced) of \(total) counter\(total == 1 ? "" : "s") synced (their days are kept), \(total - synced) not synced; run it again to finish."
        )
    }

    private func sync(_ request: SyncRequest, progress: Progress) async throws -> SyncSummary {
        let loader = HistoryLoader(
            store: store, client: client, now: activity.now, unsettledDays: request.unsettledDays)
        var counters: [Counter] = []
        // A counter whose metadata cannot be read (a foreign id, a typo) is one failure among the
        // others, not the end of the night's sync.
        var outcomes: [SyncOutcome] = []
        if request.counterIDs.isEmpty {
            let list = try await client.fetchCounterList()
            counters = list.counters
            if let warning = list.warning { activity.note(warning) }
            try await store.upsertCounters(counters)
        } else {
            for id in request.counterIDs {
                try Task.checkCancellation()
                do {
                    counters.append(try await loader.counter(id: id))
                } catch let failure as any MetrikaFailure {
                    activity.note("Error: counter \(id): \(describe(failure))")
                    outcomes.append(SyncOutcome(counterID: id, failure: failure))
                }
            }
        }
        for outcome in outcomes { progress.append(outcome) }
        let total = outcomes.count + counters.count
        progress.total = total
        let client = self.client
        let activity = self.activity
        func showProgress(force: Bool) {
            let requests = client.requestCounter.value
            activity.progress(
                "Syncing: \(outcomes.count)/\(total) counters, \(requests) request\(requests == 1 ? "" : "s")",
                force: force)
        }
        if !counters.isEmpty { showProgress(force: true) }
        var full: (any MetrikaFailure)?
        var giveUp = ConnectionGiveUp(limit: giveUpLimit)
        let host = client.baseURL.host ?? client.baseURL.absoluteString
        // The `Error:` lines of a streak of connection failures wait: a counter that gets through
        // says them, giving up replaces them with one line.
        var held: [String] = []
        var unstarted: [Counter] = []
        let from = request.from
        try await withThrowingTaskGroup(of: SyncOutcome.self) { group in
            var next = 0
            func launch() {
                let counter = counters[next]
                next += 1
                group.addTask { await Self.sync(counter, loader: loader, from: from, now: activity.now) }
            }
            while next < min(Self.parallelLimit, counters.count) { launch() }
            while let outcome = try await group.next() {
                outcomes.append(outcome)
                progress.append(outcome)
                if giveUp.gaveUp { continue }
                // A full disk fails every counter alike: said once, below, and no more are started.
                if let failure = outcome.failure, (failure as? StoreError)?.kind == .full {
                    full = full ?? failure
                } else {
                    let line = outcome.failure.map { "Error: counter \(outcome.counterID): \(describe($0))" }
                    if giveUp.record(outcome.failure, host: host, naming: activity.naming) {
                        held = []
                        group.cancelAll()
                    } else if giveUp.streak > 0, let line {
                        held.append(line)
                    } else {
                        for line in held { activity.note(line) }
                        held = []
                        if let line { activity.note(line) }
                    }
                }
                showProgress(force: outcomes.count == total)
                if next < counters.count, full == nil, !giveUp.gaveUp, !Task.isCancelled { launch() }
            }
            if full != nil || giveUp.gaveUp { unstarted = Array(counters[next...]) }
        }
        for line in held { activity.note(line) }
        activity.endProgress()
        var gaveUp: SyncError?
        if giveUp.gaveUp {
            let synced = outcomes.filter { $0.failure == nil }.count
            let error = SyncError.hostGone(
                host: host, limit: giveUp.limit, reason: giveUp.lastReason ?? "no connection", synced: synced,
                total: total)
            for counter in unstarted { outcomes.append(SyncOutcome(counterID: counter.id, failure: error)) }
            gaveUp = error
        } else if let full {
            for counter in unstarted { outcomes.append(SyncOutcome(counterID: counter.id, failure: full)) }
            let lost = outcomes.filter { $0.failure.map { ($0 as? StoreError)?.kind == .full } ?? false }.count
            activity.note(
                "Error: \(activity.naming.message(of: full)). \(lost) of \(total) counter\(total == 1 ? "" : "s") not synced."
            )
        }
        return SyncSummary(outcomes: outcomes, requests: client.requestCounter.value, gaveUp: gaveUp)
    }

    /// One counter: from `from` (else its first stored day, else 29 days before its today) up to its today.
    static func sync(_ counter: Counter, loader: HistoryLoader, from: DateExpression?, now: @Sendable () -> Date) async
        -> SyncOutcome
    {
        var outcome = SyncOutcome(counterID: counter.id)
        do {
            let today = MetrikaUseCases.today(for: counter, now: now())
            let start: Day
            if let from {
                start = from.resolve(today: today)
            } else if let first = try await loader.store.firstStoredDay(counterID: counter.id) {
                start = first
            } else {
                start = today.adding(days: -29)
            }
            // Tomorrow in this counter's time zone (today somewhere else): this counter has nothing to sync yet.
            guard start <= today else {
                outcome.failure = SyncError.startAfterToday(start: start, today: today, timeZone: counter.timeZoneName)
                return outcome
            }
            guard let range = DateRange(from: start, to: today) else { return outcome }
            let loaded = try await loader.load(
                counter: counter, range: range, metrics: Metric.everyday, grouping: nil, refresh: false,
                rangeTotals: false, values: false)
            outcome.range = range
            outcome.daysFetched = loaded.daysFetched
            outcome.requests = loaded.requests
        } catch let failure as any MetrikaFailure {
            outcome.failure = failure
        } catch {
            outcome.failure = UnexpectedFailure(error)
        }
        return outcome
    }
}
