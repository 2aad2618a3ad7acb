import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases
import MetrikaWarehouse

/// `metrika logs`: raw visits or hits through the Logs API, streamed into a TSV file or ClickHouse.
enum LogsCommand: Command {
    static let name = "logs"
    static let summary = "Export raw visits or hits (Logs API) to a TSV file or into ClickHouse, streamed"
    static let synopses: [[UsageTerm]] = [
        [
            .required(Option.counter), .required(Option.source), .required(Option.from), .required(Option.to),
            .optional(Option.fields),
            .group([
                .oneOf([
                    [.required(Option.output)],
                    [.required(Option.clickhouse), .optional(Option.cluster), .optional(Option.table)]
                ])
            ])
        ],
        [.required(Option.counter), .required(Option.source), .required(Option.clickhouse), .optional(Option.lateDays)],
        [
            .required(Option.counter),
            .group([
                .oneOf([
                    [.required(Option.listRequests), .optional(Option.json)],
                    [.required(Option.cleanAll), .optional(Option.clickhouse), .optional(Option.table)]
                ])
            ])
        ]
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
        counter's time zone. Days missing between earlier loads (a gap --list names) are loaded first, and
        the run says so. Without an earlier load it is a usage error (64): give --from the first time.

        An interrupted run (Ctrl-C, kill, network loss) keeps its prepared request in the history database;
        the same command again resumes it and loads only the missing parts. On Ctrl-C or SIGTERM a file's
        temporary is removed and the run says what it kept. --list shows a counter's log requests (a table
        on a terminal, TSV with sizes in bytes in a pipe, --json) and, for each table, the days loaded into it
        as ranges, the days missing between them, the rows and the last load;
        --clean-all cleans (or cancels) every request and, with --clickhouse (or METRIKA_CLICKHOUSE_URL),
        drops every staging table of the counter that failed runs left in the table's database.

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
    static let options: [OptionSpec] =
        [
            CounterOptions.spec(value: "ID", help: "The counter"),
            Option.source.spec,
            Option.from.described("First day (YYYY-MM-DD, yesterday, NdaysAgo)").spec,
            Option.to.described("Last day, before today (default: yesterday)").spec,
            Option.lateDays.spec,
            Option.fields.spec,
            Option.output.described("Write the TSV here (- = stdout)", value: "FILE|-").spec,
            Option.clickhouse.described(
                "Load into ClickHouse over HTTP (e.g. http://127.0.0.1:8123); one URL per shard with --cluster"
            ).spec,
            Option.cluster.described(
                "Load a sharded ClickHouse: NAME as in remote_servers (default: METRIKA_CLICKHOUSE_CLUSTER)"
            ).spec,
            Option.table.spec,
            Option.listRequests.spec,
            Option.json.described("With --list: one JSON object (requests, and the days each table holds)").spec,
            Option.cleanAll.spec
        ] + TokenOptions.specs + DatabaseOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        // One counter: a profile's list of several is refused naming the profile, never cut to its last id.
        let counterID = try CounterOptions.one(options)
        let load = LogsLoad(
            client: { try await session.services.client() }, warehouseTransport: context.streamingTransport,
            databasePath: session.services.databasePath,
            activity: context, sleep: context.sleep, stopRequests: SignalTrap.Requests())
        if options[.listRequests] {
            return try await list(counterID, json: options[.json], load: load, context: context)
        }
        if options[.json] {
            throw UsageError("--json goes with --list (a load writes its rows to the table or --output)")
        }
        if options[.cleanAll] {
            let targets = try cleanTargets(options, session: session)
            let cleaned = try await load.cleanAll(counterID: counterID, clickhouse: targets)
            let tables = cleaned.tables.count
            let dropped =
                targets.isEmpty
                ? ""
                : "; \(tables) staging table\(tables == 1 ? "" : "s") dropped"
                    + (tables == 0 ? "" : " (\(cleaned.tables.joined(separator: ", ")))")
            context.note(
                "logs: counter \(counterID): \(cleaned.requests) log request\(cleaned.requests == 1 ? "" : "s") cleaned or cancelled\(dropped)."
            )
            return ExitCode.ok
        }
        let request = try request(options, counterID: counterID, session: session)
        switch try await load.run(request) {
        case .upToDate(let lastDay):
            context.note(
                "logs: counter \(counterID), \(request.source.rawValue): nothing to load, \(lastDay.iso) (yesterday) is loaded and --late-days is 0."
            )
        case .loaded(let ranges, let summary):
            context.note(
                "logs: counter \(counterID), \(request.source.rawValue) \(ranges.map { "\($0.from.iso)…\($0.to.iso)" }.joined(separator: ", ")): \(summary.parts) part\(summary.parts == 1 ? "" : "s"), \(ByteSize.megabytes(summary.bytes)) MB, \(summary.requests) request\(summary.requests == 1 ? "" : "s") ordered\(summary.reused > 0 ? ", \(summary.reused) resumed" : "")"
            )
        }
        return ExitCode.ok
    }

    /// The options as one checked request: where the rows go (`--output`, or ClickHouse from
    /// `--clickhouse`, the environment or the config file), which days, which fields.
    static func request(_ options: ParsedOptions, counterID: Int, session: Session) throws -> LogsRequest {
        let context = session.context
        let source = try options[.source] ?? .visits
        let fields = try options[.fields].map { try LogsRequest.fields(parsing: $0, source: source) }
        let output = options[.output]
        let clickhouseURL =
            try options[.clickhouse] ?? (output != nil ? nil : ClickHouseOptions.defaultURL(session: session))
        if output != nil && options[.clickhouse] != nil { throw UsageError("Choose one of --output and --clickhouse") }
        guard output != nil || clickhouseURL != nil else {
            throw UsageError("Missing --output FILE|- or --clickhouse URL")
        }
        let lateDays = try options[.lateDays]
        let dateless = !options.contains(.from)
        if dateless {
            if options.contains(.to) {
                throw UsageError(
                    "--to needs --from; without both, logs continues the last load into the table (--clickhouse)")
            }
        } else if lateDays != nil {
            throw UsageError(
                "--late-days applies to a run without --from/--to (it continues an earlier load); drop --late-days or the dates"
            )
        }
        let firstPoll = try pollInterval(context.environment)
        let clusterName = try ClickHouseOptions.cluster(options, session: session)
        if output != nil, options.contains(.cluster) {
            throw UsageError("--cluster loads ClickHouse shards; it does not go with --output")
        }
        let target: LogsRequest.Target
        if let output {
            target = .file(path: output)
        } else {
            switch try ClickHouseOptions.target(
                urls: clickhouseURL!, table: options[.table], source: source, cluster: clusterName, session: session)
            {
            case .server(let settings): target = .clickhouse(settings)
            case .cluster(let cluster): target = .cluster(cluster)
            }
        }
        let days: LogsRequest.Days
        if dateless {
            days = .continuing(lateDays: lateDays ?? LogsContinuation.defaultLateDays)
        } else {
            days = .range(
                from: try DateExpression(parsing: options[.from] ?? "", option: "from"),
                to: try DateExpression(parsing: options[.to] ?? "yesterday", option: "to"))
        }
        return try LogsRequest(
            counterID: counterID, source: source, fields: fields, target: target, days: days,
            firstPollInterval: firstPoll)
    }

    /// Where `--clean-all` looks for staging tables: the database of `--table` (default metrika) on
    /// every server of `--clickhouse` (or the environment's, the config file's); none without one.
    static func cleanTargets(_ options: ParsedOptions, session: Session) throws -> [ClickHouseSettings] {
        guard let text = try options[.clickhouse] ?? ClickHouseOptions.defaultURL(session: session) else { return [] }
        let servers = try ClickHouseEndpoint.servers(
            urls: text, table: options[.table], environment: session.context.environment,
            timeout: try session.services.requestTimeout())
        for server in servers { session.context.secrets.add(server.password) }
        return servers
    }

    static func pollInterval(_ environment: [String: String]) throws -> Double {
        guard let text = environment["METRIKA_LOGS_POLL"], !text.isEmpty else { return 10 }
        guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
            throw ConfigError.badVariable(
                variable: "METRIKA_LOGS_POLL", value: text, expected: "a number of seconds between 0 and 3600")
        }
        return seconds
    }

    /// `--list`: the counter's log requests, then what each table holds (Render's `LogsListing`):
    /// aligned tables on a terminal, TSV in a pipe, or one JSON object with `--json`.
    static func list(_ counterID: Int, json: Bool, load: LogsLoad, context: CLIContext) async throws -> Int32 {
        let listing = try await load.list(counterID: counterID, withLoads: true).view(counterID: counterID)
        let out = context.stdout
        if json {
            out.write(listing.json().serialized(pretty: context.stdoutIsTerminal) + "\n")
        } else if context.stdoutIsTerminal {
            if let table = listing.requestsTable() {
                out.write(table.render(maxWidth: context.terminalWidth))
            } else {
                context.note(listing.noRequestsText)
            }
            if let table = listing.loadsTable() {
                if !listing.requests.isEmpty { out.write("\n") }
                out.write(table.render(maxWidth: context.terminalWidth))
            }
        } else {
            out.write(listing.tsv())
        }
        return ExitCode.ok
    }
}

// MARK: - Options of logs alone

extension Option where Value == LogSource? {
    /// `--source visits|hits` (default visits, said by the command).
    fileprivate static var source: Option<LogSource?> {
        .value("source", value: "visits|hits", help: "Rows to export (default: visits)") { text in
            let lowered = text.lowercased()
            guard let source = LogSource(rawValue: lowered) else {
                throw UsageError("--source must be visits or hits, not '\(lowered)'")
            }
            return source
        }
    }
}

extension Option where Value == Int? {
    /// `--late-days N`: a run without dates loads the last N loaded days again.
    fileprivate static var lateDays: Option<Int?> {
        .integer("late-days", help: "Without --from/--to: loaded days to load again (default 3)", in: 0...60)
    }
}

extension Option where Value == String? {
    /// `--fields LIST`, as written (`LogsRequest.fields(parsing:source:)` reads it for the source).
    fileprivate static var fields: Option<String?> {
        .text("fields", value: "LIST", help: "Comma-separated fields, with or without the ym:s:/ym:pv: prefix")
    }
    /// `--table NAME`, as written (`ClickHouseSettings` checks it).
    fileprivate static var table: Option<String?> {
        .text(
            "table", value: "NAME", help: "ClickHouse table, db.table or table (default: metrika.visits / metrika.hits)"
        )
    }
}

extension Option where Value == Bool {
    /// `--list`: the counter's log requests (named so beside the `list` maker of keys).
    fileprivate static var listRequests: Option<Bool> { .flag("list", help: "List the counter's log requests") }
    /// `--clean-all`.
    fileprivate static var cleanAll: Option<Bool> {
        .flag("clean-all", help: "Clean (or cancel) every log request of the counter")
    }
}
