import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore
import MetrikaUseCases
import MetrikaWarehouse

/// `metrika sync`: brings the history database up to date for every counter (or the named ones), for cron.
enum SyncCommand: Command {
    static let name = "sync"
    static let summary = "Bring the history database up to date for all (or --counter) counters; for cron"
    static let synopses: [[UsageTerm]] = [[.optional(.counter), .optional(.from), .optional(.db), .optional([.required(.clickhouse), .optional(.cluster)])]]
    static let discussion = """
    For each counter, fetches the days missing from the history plus the still-changing recent days
    (today and yesterday by default), one request per counter when the history is warm. At most 3
    requests are in flight (Metrika's per-user parallel quota). Each fetched range is written in one
    transaction, so an interrupted sync leaves no partial range and a re-run completes it.

    The range starts at --from, else at the counter's first stored day, else 29daysAgo; never before
    the counter was created (its create_time, in its time zone) nor before 2008-01-01. A --from after
    today is refused (exit 64): before any request, or for a counter whose today it is not yet.
    On a terminal, one line on stderr shows the counters done, the requests sent and any retry wait
    (and why, counting down); it is erased when done or interrupted (Ctrl-C, SIGTERM), and never
    written when stderr is not a terminal (cron).
    Prints one summary line; exits 0 only when every counter synced (otherwise the exit code of the
    first failure, after syncing all the others).

    With --clickhouse URL (or METRIKA_CLICKHOUSE_URL, or clickhouse_url in config.json) the synced days are also written to ClickHouse
    table metrika.daily (counter_id, date, metric by its CSV name, value in API units, version): a
    ReplacingMergeTree, so read it with FINAL. Only values that changed since the last sync sent them
    are sent (the history database remembers what went to each table). With --cluster NAME and one
    URL per shard, every shard gets metrika.daily_local (a counter's rows on shard counter_id % shards)
    and metrika.daily as a Distributed table over them. See docs/clickhouse.md.

    Example (crontab): 15 3 * * *  metrika sync && metrika mail --counter 1001 --to me@example.com
    """
    /// No --counter means every counter, never the configured default one.
    static let usesDefaultCounter = false
    static let options: [OptionSpec] = [
        CounterOptions.spec(help: "Only these counters (default: every counter you can read)"),
        Option.from.described("Fetch history from this day (YYYY-MM-DD, NdaysAgo; not before 2008-01-01)").spec,
        Option.unsettledDays.described("Recent days that may still change and are refetched (default 2)").spec,
        Option.clickhouse.described("Also mirror the synced days into ClickHouse metrika.daily (default: METRIKA_CLICKHOUSE_URL); one URL per shard with --cluster").spec,
        Option.cluster.described("Mirror into a sharded ClickHouse: NAME as in remote_servers (default: METRIKA_CLICKHOUSE_CLUSTER)").spec,
        Option.quiet.spec,
    ] + DatabaseOptions.specs + TokenOptions.specs

    /// Requests in flight at once: Metrika allows 3 parallel requests per user.
    static let parallelLimit = 3

    struct Outcome: Sendable {
        var counterID: Int
        var daysFetched = 0
        var requests = 0
        var failure: (any MetrikaFailure)?
        /// The days synced (for the ClickHouse mirror).
        var range: DateRange?
    }

    /// A sync as the command line asks for it, validated before any request (ClickHouse's target
    /// is the session's: `mirrorTarget`).
    struct Request {
        /// `--counter`: these counters; empty: every counter the token can read.
        var counterIDs: [Int]
        /// `--from`: fetch from this day; nil: what the history lacks.
        var from: DateExpression?
        var unsettledDays: Int
        /// `--quiet`: no summary lines.
        var quiet: Bool
    }

    static func parse(_ options: ParsedOptions, now: Date) throws -> Request {
        try options.requireNoPositionals()
        let explicitIDs = options.contains(.counter) ? try CounterOptions.ids(options) : []
        let from = try options[.from].map { try DateExpression(parsing: $0, option: "from") }
        try from?.checkNotBeforeMetrika(option: "from", now: now)
        // A day after today everywhere on Earth (UTC+14) can only be a mistake: said before any request
        // rather than quietly syncing today alone.
        if case .absolute(let day)? = from, day > Day(ordinal: Int(((now.timeIntervalSince1970 + 14 * 3600) / 86_400).rounded(.down))) {
            throw UsageError("--from \(day.iso) is in the future: sync fetches the days from --from up to today; give a past day (YYYY-MM-DD or NdaysAgo)")
        }
        return Request(counterIDs: explicitIDs, from: from, unsettledDays: try options[.unsettledDays] ?? 2, quiet: options[.quiet])
    }

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        let request = try parse(options, now: context.now())
        let (explicitIDs, from, unsettled) = (request.counterIDs, request.from, request.unsettledDays)
        let mirrorTarget = try mirrorTarget(session: session)
        let store = try session.openHistory()
        // A bulk writer reads the whole file once first, so it never adds a night's history to a damaged one.
        try store.verifyIntegrity()
        let client = try await session.client()
        let loader = HistoryLoader(store: store, client: client, now: context.now, unsettledDays: unsettled)

        var counters: [Counter]
        // A counter whose metadata cannot be read (a foreign id, a typo) is one failure among the others,
        // not the end of the night's sync.
        var outcomes: [Outcome] = []
        if explicitIDs.isEmpty {
            let list = try await client.fetchCounterList()
            counters = list.counters
            if let warning = list.warning { context.note(warning) }
            try store.upsertCounters(counters)
        } else {
            counters = []
            for id in explicitIDs {
                do {
                    counters.append(try await loader.counter(id: id))
                } catch let failure as any MetrikaFailure {
                    context.note("Error: counter \(id): \(failure.message)")
                    outcomes.append(Outcome(counterID: id, failure: failure))
                }
            }
        }

        let total = outcomes.count + counters.count
        func showProgress(force: Bool) {
            let requests = client.requestCounter.value
            context.progress("Syncing: \(outcomes.count)/\(total) counters, \(requests) request\(requests == 1 ? "" : "s")", force: force)
        }
        if !counters.isEmpty { showProgress(force: true) }
        var full: (any MetrikaFailure)?
        var unstarted: [Counter] = []
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            var next = 0
            func launch() {
                let counter = counters[next]
                next += 1
                group.addTask { await sync(counter, loader: loader, from: from, context: context) }
            }
            while next < min(parallelLimit, counters.count) { launch() }
            while let outcome = try await group.next() {
                outcomes.append(outcome)
                // A full disk fails every counter alike: said once, below, and no more are started.
                if let failure = outcome.failure, (failure as? StoreError)?.kind == .full {
                    full = full ?? failure
                } else if let failure = outcome.failure {
                    context.note("Error: counter \(outcome.counterID): \(failure.message)")
                }
                showProgress(force: outcomes.count == total)
                if next < counters.count, full == nil { launch() }
            }
            if full != nil { unstarted = Array(counters[next...]) }
        }
        context.endProgress()
        if let full {
            for counter in unstarted { outcomes.append(Outcome(counterID: counter.id, failure: full)) }
            let lost = outcomes.filter { $0.failure.map { ($0 as? StoreError)?.kind == .full } ?? false }.count
            context.note("Error: \(full.message). \(lost) of \(total) counter\(total == 1 ? "" : "s") not synced.")
        }
        try await mirror(outcomes, into: mirrorTarget, store: store, quiet: request.quiet, context: context)
        return try finish(outcomes, total: outcomes.count, client: client, quiet: request.quiet, context: context)
    }

    static func sync(_ counter: Counter, loader: HistoryLoader, from: DateExpression?, context: CLIContext) async -> Outcome {
        var outcome = Outcome(counterID: counter.id)
        do {
            let today = MetrikaUseCases.today(for: counter, now: context.now())
            let start: Day
            if let from {
                start = from.resolve(today: today)
            } else if let first = try loader.store.firstStoredDay(counterID: counter.id) {
                start = first
            } else {
                start = today.adding(days: -29)
            }
            // Tomorrow in this counter's time zone (today somewhere else): this counter has nothing to sync yet.
            guard start <= today else {
                outcome.failure = UsageError("--from \(start.iso) is after this counter's today (\(today.iso) in \(counter.timeZoneName)); give a past day")
                return outcome
            }
            guard let range = DateRange(from: start, to: today) else { return outcome }
            let loaded = try await loader.load(counter: counter, range: range, metrics: Metric.everyday, grouping: nil, refresh: false, rangeTotals: false, values: false)
            outcome.range = range
            outcome.daysFetched = loaded.daysFetched
            outcome.requests = loaded.requests
        } catch let failure as any MetrikaFailure {
            outcome.failure = failure
        } catch {
            outcome.failure = CLIFailure.unexpected(typeName: UnexpectedFailure(error).typeName)
        }
        return outcome
    }

    /// `--clickhouse` (or METRIKA_CLICKHOUSE_URL): the synced days of every counter that synced go to
    /// `metrika.daily` (a ReplacingMergeTree on a version, so a re-synced day replaces the old value).
    /// Where the synced days go, checked before anything is synced (a wrong URL or cluster name is
    /// said at once, not after the night's sync); nil without ClickHouse.
    static func mirrorTarget(session: Session) throws -> ClickHouseDailyMirror? {
        let environment = session.context.environment
        guard let url = try session.options[.clickhouse] ?? ClickHouseOptions.defaultURL(session: session) else {
            if session.options.contains(.cluster) { throw UsageError("--cluster names the shards' cluster of --clickhouse URL1,URL2,…; give --clickhouse (or METRIKA_CLICKHOUSE_URL)") }
            return nil
        }
        let urls = url.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let timeout = try session.requestTimeout()
        var settings = try ClickHouseSettings.make(url: urls[0], table: nil, source: .visits, environment: environment, timeout: timeout)
        settings.table = "daily"
        session.context.secrets.add(settings.password)
        let target: ClickHouseDailyMirror
        if let name = try ClickHouseOptions.cluster(session.options, session: session) {
            let cluster = try ClickHouseCluster.make(name: name, urls: urls, table: settings, environment: environment, timeout: timeout)
            target = ClickHouseDailyMirror(cluster: cluster, transport: session.context.streamingTransport)
        } else {
            guard urls.count == 1 else {
                throw UsageError("--clickhouse names \(urls.count) URLs: a sharded ClickHouse also needs --cluster NAME (as in the servers' remote_servers)")
            }
            target = ClickHouseDailyMirror(settings: settings, transport: session.context.streamingTransport)
        }
        return target
    }

    static func mirror(_ outcomes: [Outcome], into target: ClickHouseDailyMirror?, store: HistoryStore, quiet: Bool, context: CLIContext) async throws {
        guard let target else { return }
        let mirror = HistoryMirror(store: store, mirror: target)
        let version = UInt64(max(0, context.now().timeIntervalSince1970 * 1000))
        let synced = outcomes.compactMap { outcome in outcome.failure == nil ? outcome.range.map { (counterID: outcome.counterID, range: $0) } : nil }
        let summary = try await mirror.run(synced, metrics: Metric.everyday, version: version)
        if !quiet {
            context.note("ClickHouse: \(summary.sent) daily value\(summary.sent == 1 ? "" : "s") mirrored into \(target.table) (\(summary.unchanged) unchanged, not sent again).")
        }
    }

    static func finish(_ outcomes: [Outcome], total: Int, client: MetrikaClient, quiet: Bool, context: CLIContext) throws -> Int32 {
        let failures = outcomes.filter { $0.failure != nil }
        let days = outcomes.reduce(0) { $0 + $1.daysFetched }
        if !quiet {
            let out = context.stdout
            out.write("Synced \(total - failures.count) of \(total) counter\(total == 1 ? "" : "s"): \(days) day\(days == 1 ? "" : "s") fetched, \(client.requestCounter.value) request\(client.requestCounter.value == 1 ? "" : "s"), \(failures.count) failure\(failures.count == 1 ? "" : "s").\n")
        }
        return failures.first?.failure?.exitCode ?? ExitCode.ok
    }
}

// MARK: - Options of its own

extension Option where Value == Bool {
    /// `-q`, `--quiet` of `sync`: no summary line.
    static var quiet: Option<Bool> { .flag("quiet", short: "q", help: "No summary line (errors are still printed)") }
}
