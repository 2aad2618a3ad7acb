import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaUseCases
import MetrikaWarehouse

/// `metrika logs`: raw visits or hits through the Logs API, streamed into a TSV file or ClickHouse.
enum LogsCommand: Command {
    static let name = "logs"
    static let summary = "Export raw visits or hits (Logs API) to a TSV file or into ClickHouse, streamed"
    static let synopses: [[UsageTerm]] = [
        [.option("counter"), .option("source"), .option("from"), .option("to"), .optional([.option("fields")]),
         .group([.oneOf([[.option("output")], [.option("clickhouse"), .optional([.option("cluster")]), .optional([.option("table")])]])])],
        [.option("counter"), .option("source"), .option("clickhouse"), .optional([.option("late-days")])],
        [.option("counter"), .group([.oneOf([[.option("list")], [.option("clean-all")]])])],
    ]
    static let discussion = """
    Orders a log (evaluate → create), waits until Metrika has prepared it (polling with a growing
    interval; progress on a terminal), downloads every part and cleans the request, so it stops
    counting against the counter's 10 GB of prepared logs. A range too long for one request is split
    by what evaluate allows. --to must be before today (the Logs API serves finished days).

    --output FILE writes the TSV as received (one header line of field names, then rows; TabSeparated
    escaping, arrays as [1,2] and ['a','b']), streamed; a file appears only when complete, a device or
    FIFO is written into, a symbolic link is followed. - is stdout (a closed pipe ends quietly, 141).
    --clickhouse URL loads into ClickHouse (default table metrika.visits / metrika.hits); re-running a
    range replaces it. Parts are loaded as the API meant them (its header checked and dropped, quoted
    arrays undone); a row that cannot be loaded stops the run naming part, row and field. The table
    is checked before a log is ordered: a Distributed table, a table that is not a MergeTree
    partitioned by (counter_id, date) (what metrika creates), (counter_id, toYYYYMM(date)) or
    toYYYYMM(date), or one without a column for a requested field is refused (exit 78). See
    docs/clickhouse.md.

    A sharded ClickHouse: --clickhouse URL1,URL2,… --cluster NAME, one URL per shard in the order of
    the cluster's shards in remote_servers. metrika creates metrika.visits_local on every shard (the
    rows of a client on shard client_id % shards, loaded by metrika itself over HTTP, replaced per
    shard as on one server) and metrika.visits as a Distributed table over them: query that one.

    Without --from and --to (ClickHouse only), the run continues an earlier load of the same counter
    and source into the same table: it loads again the last --late-days days loaded (default 3:
    visits keep changing for about three days), then every finished day up to yesterday in the
    counter's time zone. Without an earlier load it is a usage error (64): give --from the first time.

    An interrupted run (Ctrl-C, kill, network loss) keeps its prepared request in the history database;
    the same command again resumes it and loads only the missing parts. On Ctrl-C or SIGTERM a file's
    temporary is removed and the run says what it kept. --list shows a counter's log requests (a table
    on a terminal, TSV with sizes in bytes in a pipe) and, for each table, the days loaded into it;
    --clean-all cleans (or cancels) every request.

    Default fields: visits — visitID, counterID, date, dateTime, clientID, isNewUser, pageViews,
    visitDuration, bounce, startURL, referer, lastTrafficSource, UTMSource, UTMMedium, UTMCampaign,
    regionCountry, regionCity, deviceCategory, browser, goalsID; hits — watchID, counterID, date,
    dateTime, clientID, URL, title, referer, isPageView, UTMSource, regionCountry, regionCity,
    deviceCategory, browser, goalsID. counterID, date and the id are always requested.

    Environment: METRIKA_CLICKHOUSE_URL (default for --clickhouse; URL,URL… for shards),
    METRIKA_CLICKHOUSE_CLUSTER (default for --cluster; both also as clickhouse_url and
    clickhouse_cluster in config.json), METRIKA_CLICKHOUSE_USER,
    METRIKA_CLICKHOUSE_PASSWORD (never on the command line), METRIKA_LOGS_POLL (first poll wait in
    seconds, default 10).

    Examples:
      metrika logs --counter 1001 --source visits --from 2026-11-01 --to yesterday --output visits.tsv
      metrika logs --counter 1001 --source hits --from 7daysAgo --to yesterday --clickhouse http://127.0.0.1:8123
      metrika logs --counter 1001 --source visits --clickhouse http://127.0.0.1:8123      # nightly, from cron
    """
    static let options: [OptionSpec] = [
        CounterOptions.spec(value: "ID", help: "The counter"),
        OptionSpec("source", value: "visits|hits", help: "Rows to export (default: visits)"),
        OptionSpec("from", value: "DATE", help: "First day (YYYY-MM-DD, yesterday, NdaysAgo)"),
        OptionSpec("to", value: "DATE", help: "Last day, before today (default: yesterday)"),
        OptionSpec("late-days", value: "N", help: "Without --from/--to: loaded days to load again (default 3)"),
        OptionSpec("fields", value: "LIST", help: "Comma-separated fields, with or without the ym:s:/ym:pv: prefix"),
        OptionSpec("output", short: "o", value: "FILE|-", help: "Write the TSV here (- = stdout)"),
        OptionSpec("clickhouse", value: "URL[,URL…]", help: "Load into ClickHouse over HTTP (e.g. http://127.0.0.1:8123); one URL per shard with --cluster"),
        OptionSpec("cluster", value: "NAME", help: "Load a sharded ClickHouse: NAME as in remote_servers (default: METRIKA_CLICKHOUSE_CLUSTER)"),
        OptionSpec("table", value: "NAME", help: "ClickHouse table, db.table or table (default: metrika.visits / metrika.hits)"),
        OptionSpec("list", help: "List the counter's log requests"),
        OptionSpec("clean-all", help: "Clean (or cancel) every log request of the counter"),
    ] + TokenOptions.specs + DatabaseOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        // One counter: a profile's list of several is refused naming the profile, never cut to its last id.
        let counterID = try CounterOptions.one(options)
        if options.flag("list") { return try await list(counterID, session: session) }
        if options.flag("clean-all") { return try await cleanAll(counterID, session: session) }

        let sourceText = (options.value("source") ?? "visits").lowercased()
        guard let source = LogSource(rawValue: sourceText) else { throw UsageError("--source must be visits or hits, not '\(sourceText)'") }
        var fields = try parseFields(options.value("fields"), source: source)
        let clickhouseURL = try options.value("clickhouse") ?? (options.has("output") ? nil : ClickHouseOptions.defaultURL(session: session))
        let output = options.value("output")
        if output != nil && options.value("clickhouse") != nil { throw UsageError("Choose one of --output and --clickhouse") }
        guard output != nil || clickhouseURL != nil else { throw UsageError("Missing --output FILE|- or --clickhouse URL") }
        let lateDays = try options.integer("late-days", in: 0...60)
        let dateless = !options.has("from")
        if dateless {
            if options.has("to") { throw UsageError("--to needs --from; without both, logs continues the last load into the table (--clickhouse)") }
            guard clickhouseURL != nil else { throw UsageError("Missing --from DATE (a run without dates continues a ClickHouse table; a file needs --from)") }
        } else if lateDays != nil {
            throw UsageError("--late-days applies to a run without --from/--to (it continues an earlier load); drop --late-days or the dates")
        }
        let firstPoll = try pollInterval(context.environment)
        let clusterName = try ClickHouseOptions.cluster(options, session: session)
        if output != nil, options.has("cluster") { throw UsageError("--cluster loads ClickHouse shards; it does not go with --output") }

        var warehouse: ClickHouseSettings?
        var cluster: ClickHouseCluster?
        let key: String
        if let output {
            key = output == "-" ? "stdout" : "file:" + URL(fileURLWithPath: output).standardizedFileURL.path
        } else {
            let urls = clickhouseURL!.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let timeout = try session.requestTimeout()
            let settings = try ClickHouseSettings.make(url: urls[0], table: options.value("table"), source: source, environment: context.environment, timeout: timeout)
            context.secrets.add(settings.password)
            if let clusterName {
                let shards = try ClickHouseCluster.make(name: clusterName, urls: urls, table: settings, environment: context.environment, timeout: timeout)
                cluster = shards
                key = "clickhouse:" + shards.identity
                // The shard of a row is its client's: always requested in cluster mode.
                let sharding = ClickHouseClusterDestination.shardingField(source)
                if !fields.contains(sharding) { fields.append(sharding) }
            } else {
                guard urls.count == 1 else {
                    throw UsageError("--clickhouse names \(urls.count) URLs: a sharded ClickHouse also needs --cluster NAME (as in the servers' remote_servers)")
                }
                key = "clickhouse:" + settings.identity
            }
            warehouse = settings
        }
        // The run's progress (resume) and, for a table, the days loaded into it (what a dateless run continues).
        let store: HistoryStore?
        var earlier: LogLoad?
        // A dateless run's range moves on every day, so a failed night's kept request is not
        // resumed by the next night; its days are in the new range, so it is cleaned (below).
        if dateless {
            store = try HistoryStore(path: session.databasePath)
            earlier = try store?.load(counterID: counterID, source: source, destination: key)
            guard earlier != nil else {
                throw UsageError(
                    "no earlier load of counter \(counterID)'s \(source.rawValue) into \(cluster?.identity ?? warehouse?.identity ?? key) is recorded in \(session.databasePath); give --from DATE (and --to) for the first load, later runs continue from it")
            }
        } else {
            store = try? HistoryStore(path: session.databasePath)
        }

        let client = try session.client()
        let counter = try await client.fetchCounter(id: counterID)
        let today = MetrikaUseCases.today(for: counter, now: context.now())
        let range: DateRange
        if let earlier {
            guard let next = LogsContinuation.range(after: earlier, lateDays: lateDays ?? LogsContinuation.defaultLateDays, today: today) else {
                context.note("logs: counter \(counterID), \(source.rawValue): nothing to load, \(earlier.lastDay.iso) (yesterday) is loaded and --late-days is 0.")
                return ExitCode.ok
            }
            range = next
            context.note("logs: counter \(counterID), \(source.rawValue): loaded up to \(earlier.lastDay.iso) before; loading \(range.from.iso)…\(range.to.iso).")
        } else {
            let from = try DateExpression(parsing: options.value("from")!, option: "from")
            let to = try DateExpression(parsing: options.value("to") ?? "yesterday", option: "to")
            range = try resolveRange(from: from, to: to, counter: counter, now: context.now())
            guard range.to < today else {
                throw UsageError("--to \(range.to.iso) is not before today (\(today.iso)) for counter \(counterID): the Logs API serves finished days only; use --to yesterday")
            }
        }

        let destination: any LogDestination
        if let output {
            destination = try TSVFileDestination(path: output)
        } else {
            if let cluster {
                destination = try await ClickHouseClusterDestination.prepare(cluster, counterID: counterID, source: source, fields: fields, transport: context.streamingTransport)
            } else {
                destination = try await ClickHouseDestination.prepare(warehouse!, counterID: counterID, source: source, fields: fields, transport: context.streamingTransport)
            }
        }
        if earlier != nil, let store {
            try await cleanSuperseded(by: range, counterID: counterID, source: source, key: key, store: store, client: client, destination: destination, context: context)
        }
        // The one progress line (terminal only, sanitized, erased around notes and at the end).
        let progressContext = context
        let progress: (@Sendable (String) -> Void)? = { progressContext.progress($0) }
        let noteContext = context
        let note: @Sendable (String) -> Void = { noteContext.note($0) }
        var exporter = LogExporter(
            client: client, destination: destination, destinationKey: key, counterID: counterID,
            source: source, fields: fields, store: store, firstPollInterval: firstPoll, sleep: context.sleep,
            progress: progress, note: note)
        // Ctrl-C or SIGTERM: nothing half-written stays behind (a file's temporary is removed), the
        // progress line is erased, and the user is told what was kept for the re-run.
        let current = CurrentLogRequest()
        exporter.onRequest = { current.id = $0 }
        let what = output.map { $0 == "-" ? "standard output" : "'\(TerminalText.quote($0))'" }
        let trap = SignalTrap { number in
            destination.abandon()
            context.endProgress()
            context.note(interruptionNote(counterID: counterID, request: current.id, file: what, kept: store != nil))
            try? context.stderr.writer.flush()
            exit(128 + number)
        }
        defer { trap.cancel() }
        let summary = try await exporter.run(range)
        context.endProgress()
        context.note("logs: counter \(counterID), \(source.rawValue) \(range.from.iso)…\(range.to.iso): \(summary.parts) part\(summary.parts == 1 ? "" : "s"), \(LogExporter.megabytes(summary.bytes)) MB, \(summary.requests) request\(summary.requests == 1 ? "" : "s") ordered\(summary.reused > 0 ? ", \(summary.reused) resumed" : "")")
        return ExitCode.ok
    }

    /// A run without dates starts where the last load ended, so its range moves on every day: a
    /// request a failed night kept for its resume (same table, days inside this range) would never be
    /// resumed. It is cleaned (or cancelled), forgotten, and its staging tables dropped; this run
    /// loads its days.
    static func cleanSuperseded(
        by range: DateRange, counterID: Int, source: LogSource, key: String, store: HistoryStore, client: MetrikaClient, destination: any LogDestination,
        context: CLIContext
    ) async throws {
        for job in try store.jobs(counterID: counterID)
        where job.source == source && job.destination == key && (job.from != range.from || job.to != range.to) && job.from >= range.from && job.to <= range.to {
            if let info = try? await client.logRequest(counter: counterID, id: job.requestID), info.status == "processed" || info.status == "created" {
                _ = try? await client.finishLogRequest(counter: counterID, id: job.requestID, cancel: info.status == "created")
            }
            try await destination.discardRange(from: job.from, to: job.to)
            try store.removeJob(requestID: job.requestID)
            context.note("Note: log request \(job.requestID) (\(job.from.iso)…\(job.to.iso)), kept by a failed run, is cleaned: this run loads its days.")
        }
    }

    /// What an interrupted run leaves: no file (its temporary removed), the target table unchanged,
    /// and the log request, which the same command reuses instead of ordering a new log.
    static func interruptionNote(counterID: Int, request: Int?, file: String?, kept: Bool) -> String {
        let written = file.map { $0 == "standard output" ? "Interrupted" : "Interrupted: \($0) was not written (its temporary file is removed)" }
            ?? "Interrupted: the ClickHouse table is unchanged (parts already loaded wait in its staging table)"
        guard let request else { return written + "; no log was ordered yet." }
        guard kept else { return written + "; log request \(request) is left on the server: `metrika logs --counter \(counterID) --clean-all` frees it." }
        return written + "; log request \(request) is kept: the same command again reuses it instead of ordering a new log (`metrika logs --counter \(counterID) --clean-all` frees it)."
    }

    /// `--fields`: names with or without the prefix; the warehouse key's fields are always added.
    static func parseFields(_ text: String?, source: LogSource) throws -> [String] {
        guard let text else { return source.defaultFields }
        var fields: [String] = []
        for raw in text.split(separator: ",") {
            var name = raw.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            let other = source == .visits ? LogSource.hits.prefix : LogSource.visits.prefix
            if name.hasPrefix(other) { throw UsageError("--fields '\(name)' belongs to the other source (\(source.rawValue) fields start with \(source.prefix))") }
            if !name.hasPrefix(source.prefix) { name = source.prefix + name }
            guard name.dropFirst(source.prefix.count).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), name.count > source.prefix.count else {
                throw UsageError("--fields '\(name)' is not a field name such as \(source.prefix)date")
            }
            if !fields.contains(name) { fields.append(name) }
        }
        for required in source.requiredFields.reversed() where !fields.contains(required) { fields.insert(required, at: 0) }
        return fields
    }

    static func pollInterval(_ environment: [String: String]) throws -> Double {
        guard let text = environment["METRIKA_LOGS_POLL"], !text.isEmpty else { return 10 }
        guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
            throw SimpleFailure("METRIKA_LOGS_POLL must be a number of seconds between 0 and 3600, not '\(text)'.", exitCode: ExitCode.config)
        }
        return seconds
    }

    /// `--list`: an aligned table on a terminal (sizes in MB), TSV with sizes in bytes in a pipe, as
    /// scripts read it.
    static func list(_ counterID: Int, session: Session) async throws -> Int32 {
        let context = session.context
        let requests = try await session.client().logRequests(counter: counterID)
        let out = context.stdout
        if context.stdoutIsTerminal {
            guard !requests.isEmpty else {
                context.note("Counter \(counterID) has no log requests.")
                return ExitCode.ok
            }
            var table = TextTable(columns: [
                .init("Request", alignment: .right), .init("Status"), .init("Source"), .init("From"), .init("To"), .init("Size", alignment: .right),
            ])
            for request in requests {
                table.append([String(request.requestID), request.status, request.source ?? "", request.date1 ?? "", request.date2 ?? "",
                              request.size.map { LogExporter.megabytes($0) + " MB" } ?? ""])
            }
            out.write(table.render(maxWidth: context.terminalWidth))
            return ExitCode.ok
        }
        out.write("request_id\tstatus\tsource\tdate1\tdate2\tsize\n")
        for request in requests {
            let cells = [String(request.requestID), request.status, request.source ?? "", request.date1 ?? "", request.date2 ?? "", request.size.map(String.init) ?? ""]
            out.write(cells.map { TerminalText.quote($0) }.joined(separator: "\t") + "\n")
        }
        // The days each table holds: where a run without dates continues (after a blank line).
        let loads = FileManager.default.fileExists(atPath: session.databasePath) ? ((try? HistoryStore(path: session.databasePath).loads(counterID: counterID)) ?? []) : []
        if !loads.isEmpty {
            out.write("\nsource\tloaded_into\tfirst_day\tlast_day\tloaded_at\n")
            for load in loads {
                let into = load.destination.hasPrefix("clickhouse:") ? String(load.destination.dropFirst("clickhouse:".count)) : load.destination
                let cells = [load.source.rawValue, into, load.firstDay.iso, load.lastDay.iso, RFC3339.format(load.loadedAt)]
                out.write(cells.map { TerminalText.quote($0) }.joined(separator: "\t") + "\n")
            }
        }
        return ExitCode.ok
    }

    static func cleanAll(_ counterID: Int, session: Session) async throws -> Int32 {
        let client = try session.client()
        let requests = try await client.logRequests(counter: counterID)
        var cleaned = 0
        for request in requests where request.status == "processed" || request.status == "created" {
            _ = try await client.finishLogRequest(counter: counterID, id: request.requestID, cancel: request.status == "created")
            cleaned += 1
        }
        if let store = try? HistoryStore(path: session.databasePath) {
            for job in (try? store.jobs(counterID: counterID)) ?? [] { try? store.removeJob(requestID: job.requestID) }
        }
        session.context.note("logs: counter \(counterID): \(cleaned) log request\(cleaned == 1 ? "" : "s") cleaned or cancelled.")
        return ExitCode.ok
    }
}

/// The log request the run is on, for the interruption note (set from the exporter's task, read by
/// the signal handler).
final class CurrentLogRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var _id: Int?
    var id: Int? {
        get { lock.withLock { _id } }
        set { lock.withLock { _id = newValue } }
    }
}
