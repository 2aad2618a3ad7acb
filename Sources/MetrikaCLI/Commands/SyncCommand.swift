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
    static let synopses: [[UsageTerm]] = [
        [
            .optional(.counter), .optional(.from), .optional(.db),
            .optional([.required(.clickhouse), .optional(.cluster)])
        ]
    ]
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
        first failure, after syncing all the others). After 3 counters in a row could not reach the API
        it stops: one line saying how many were synced and how many not, exit 69. Ctrl-C or SIGTERM
        say the same (the synced days are kept) and exit 130 or 143.

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
    static let options: [OptionSpec] =
        [
            CounterOptions.spec(help: "Only these counters (default: every counter you can read)"),
            Option.from.described("Fetch history from this day (YYYY-MM-DD, NdaysAgo; not before 2008-01-01)").spec,
            Option.unsettledDays.described("Recent days that may still change and are refetched (default 2)").spec,
            Option.clickhouse.described(
                "Also mirror the synced days into ClickHouse metrika.daily (default: METRIKA_CLICKHOUSE_URL); one URL per shard with --cluster"
            ).spec,
            Option.cluster.described(
                "Mirror into a sharded ClickHouse: NAME as in remote_servers (default: METRIKA_CLICKHOUSE_CLUSTER)"
            ).spec,
            Option.quiet.spec
        ] + DatabaseOptions.specs + TokenOptions.specs

    /// A sync as the command line asks for it, validated before any request (ClickHouse's target
    /// is the session's: `mirrorTarget`).
    struct Request {
        var sync: SyncRequest
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
        if case .absolute(let day)? = from,
            day > Day(ordinal: Int(((now.timeIntervalSince1970 + 14 * 3600) / 86_400).rounded(.down)))
        {
            throw UsageError(
                "--from \(day.iso) is in the future: sync fetches the days from --from up to today; give a past day (YYYY-MM-DD or NdaysAgo)"
            )
        }
        return Request(
            sync: SyncRequest(counterIDs: explicitIDs, from: from, unsettledDays: try options[.unsettledDays] ?? 2),
            quiet: options[.quiet])
    }

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        let request = try parse(options, now: context.now())
        let mirrorTarget = try mirrorTarget(session: session)
        let client = try await session.services.client()
        let run = SyncRun(
            store: try await session.services.openHistory(), client: client, activity: context,
            stopRequests: SignalTrap.Requests(), describe: describe)
        let summary = try await run.run(request.sync)
        if let mirrorTarget {
            let mirrored = try await HistoryMirror(store: run.store, mirror: mirrorTarget)
                .run(
                    summary.syncedRanges, metrics: Metric.everyday,
                    version: UInt64(max(0, context.now().timeIntervalSince1970 * 1000)))
            if !request.quiet {
                context.note(
                    "ClickHouse: \(mirrored.sent) daily value\(mirrored.sent == 1 ? "" : "s") mirrored into \(mirrorTarget.table) (\(mirrored.unchanged) unchanged, not sent again)."
                )
            }
        }
        // An API that went away: one line saying what was synced and what was not, instead of the summary.
        if let gaveUp = summary.gaveUp { throw gaveUp }
        let (total, failures, days, requests) = (
            summary.total, summary.failures.count, summary.daysFetched, summary.requests
        )
        if !request.quiet {
            context.stdout.write(
                "Synced \(total - failures) of \(total) counter\(total == 1 ? "" : "s"): \(days) day\(days == 1 ? "" : "s") fetched, \(requests) request\(requests == 1 ? "" : "s"), \(failures) failure\(failures == 1 ? "" : "s").\n"
            )
        }
        return summary.failures.first?.failure?.exitCode ?? ExitCode.ok
    }

    /// A counter's failure in the command line's words.
    @Sendable static func describe(_ failure: any MetrikaFailure) -> String {
        if case SyncError.startAfterToday(let start, let today, let timeZone) = failure {
            return "--from \(start.iso) is after this counter's today (\(today.iso) in \(timeZone)); give a past day"
        }
        return ParameterNaming.cli.message(of: failure)
    }

    /// `--clickhouse` (or METRIKA_CLICKHOUSE_URL): the synced days of every counter that synced go to
    /// `metrika.daily` (a ReplacingMergeTree on a version, so a re-synced day replaces the old value).
    /// Where the synced days go, checked before anything is synced (a wrong URL or cluster name is
    /// said at once, not after the night's sync); nil without ClickHouse.
    static func mirrorTarget(session: Session) throws -> ClickHouseDailyMirror? {
        guard let urls = try session.options[.clickhouse] ?? ClickHouseOptions.defaultURL(session: session) else {
            if session.options.contains(.cluster) {
                throw UsageError(
                    "--cluster names the shards' cluster of --clickhouse URL1,URL2,…; give --clickhouse (or METRIKA_CLICKHOUSE_URL)"
                )
            }
            return nil
        }
        let target = try ClickHouseOptions.target(
            urls: urls, table: nil, defaultTable: "daily", source: .visits,
            cluster: try ClickHouseOptions.cluster(session.options, session: session), session: session)
        return ClickHouseDailyMirror(target: target, transport: session.context.streamingTransport)
    }
}

// MARK: - Options of its own

extension Option where Value == Bool {
    /// `-q`, `--quiet` of `sync`: no summary line.
    static var quiet: Option<Bool> { .flag("quiet", short: "q", help: "No summary line (errors are still printed)") }
}
