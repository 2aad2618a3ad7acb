import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaWarehouse
import Synchronization

/// `metrika logs`' job: opens the history database (the run's progress for a resume, and the days
/// each table holds), works out the days (`--from`/`--to`, or after an earlier load), builds the
/// destination (a TSV file, one ClickHouse table or a cluster's shards), cleans a request a failed
/// night kept for days this run loads, and runs the export (`LogExporter`). Also `--list` and
/// `--clean-all`. Speaks through `Activity`; a request to stop (`StopRequests`) during the export
/// ends it as an `Interruption` that says what was kept.
///
/// A history database that cannot be opened or written is never passed over in silence: a run
/// without dates needs it and fails; a run with dates goes on without a resume and says so.
package struct LogsLoad: Sendable {
    /// The Metrika API client, made when the job first needs it: a run without dates and without an
    /// earlier load is refused before a token is looked for.
    package var client: @Sendable () async throws -> MetrikaClient
    /// ClickHouse statements and inserts.
    package var warehouseTransport: any StreamingHTTPTransport
    /// The history database file.
    package var databasePath: String
    package var activity: any Activity
    /// Waits between polls of a log being prepared.
    package var sleep: @Sendable (Double) async throws -> Void
    /// Requests to stop the export (nil: none are watched).
    package var stopRequests: (any StopRequests)?

    package init(
        client: @escaping @Sendable () async throws -> MetrikaClient, warehouseTransport: any StreamingHTTPTransport,
        databasePath: String,
        activity: any Activity, sleep: @escaping @Sendable (Double) async throws -> Void,
        stopRequests: (any StopRequests)? = nil
    ) {
        self.client = client
        self.warehouseTransport = warehouseTransport
        self.databasePath = databasePath
        self.activity = activity
        self.sleep = sleep
        self.stopRequests = stopRequests
    }

    /// What a run came to.
    package enum Outcome: Sendable {
        /// `ranges` were exported (a run without dates: the gaps it filled, then its continuing range).
        case loaded([DateRange], LogExporter.Summary)
        /// A run without dates found yesterday loaded already and no late days to load again.
        case upToDate(lastDay: Day)
    }

    // MARK: - The export

    package func run(_ request: LogsRequest) async throws -> Outcome {
        let counterID = request.counterID
        let source = request.source
        let key = request.destinationKey
        // The run's progress (resume) and, for a table, the days loaded into it (what a dateless run continues).
        let store: HistoryStore?
        var earlier: LogLoad?
        // A dateless run's range moves on every day, so a failed night's kept request is not
        // resumed by the next night; its days are in the new range, so it is cleaned (below).
        switch request.days {
        case .continuing:
            let opened = try await HistoryStore.open(path: databasePath)
            store = opened
            earlier = try await opened.load(counterID: counterID, source: source, destination: key)
            guard earlier != nil else {
                let sentence =
                    "no earlier load of counter \(counterID)'s \(source.rawValue) into \(request.targetDescription) is recorded in \(databasePath)"
                throw ParameterError(.from, .malformed(value: "")) {
                    "\(sentence); give \($0[.from]) DATE (and \($0[.to])) for the first load, later runs continue from it"
                }
            }
        case .range:
            store = await progressStore()
        }

        let client = try await client()
        let counter = try await client.fetchCounter(id: counterID)
        let now = activity.now()
        let today = MetrikaUseCases.today(for: counter, now: now)
        let ranges: [DateRange]
        switch request.days {
        case .continuing(let lateDays):
            guard let earlier else { preconditionFailure("a run without dates has found its earlier load above") }
            let plan = LogsContinuation.plan(after: earlier, lateDays: lateDays, today: today)
            guard !plan.ranges.isEmpty else { return .upToDate(lastDay: earlier.lastDay) }
            ranges = plan.ranges
            if !plan.gaps.isEmpty {
                let missing = plan.gaps.map(Self.text).joined(separator: ", ")
                activity.note(
                    "logs: counter \(counterID), \(source.rawValue): \(missing) never loaded between the days loaded before; loading \(plan.gaps.count == 1 ? "it" : "them") first."
                )
            }
            if let next = plan.next {
                activity.note(
                    "logs: counter \(counterID), \(source.rawValue): loaded up to \(earlier.lastDay.iso) before; loading \(next.from.iso)…\(next.to.iso)."
                )
            }
        case .range(let from, let to):
            let range = try resolveRange(from: from, to: to, counter: counter, now: now)
            guard range.to < today else {
                throw ParameterError(.to, .badDay(value: range.to.iso)) {
                    "\($0[.to]) \(range.to.iso) is not before today (\(today.iso)) for counter \(counterID): the Logs API serves finished days only; use \($0[.to]) yesterday"
                }
            }
            ranges = [range]
        }

        let destination = try await makeDestination(request)
        if earlier != nil, let store {
            do {
                for range in ranges {
                    try await cleanSuperseded(
                        by: range, request: request, store: store, client: client, destination: destination)
                }
            } catch {
                destination.abandon()
                throw error
            }
        }
        // The one progress line (terminal only, sanitized, erased around notes and at the end).
        let activity = self.activity
        var exporter = LogExporter(
            client: client, destination: destination, destinationKey: key, counterID: counterID, source: source,
            fields: request.fields,
            store: store, firstPollInterval: request.firstPollInterval, sleep: sleep,
            progress: { activity.progress($0, force: false) }, note: { activity.note($0) })
        let current = CurrentLogRequest()
        exporter.onRequest = { current.id = $0 }
        exporter.naming = activity.naming
        var summary = LogExporter.Summary()
        for range in ranges {
            let part = try await export(range, with: exporter) { signal in
                // Nothing half-written stays behind (the exporter removed a file's temporary), the
                // progress line is erased, and the person is told what was kept for the re-run.
                activity.endProgress()
                let file: String? = if case .file = request.target { request.targetDescription } else { nil }
                return Interruption(
                    signal: signal,
                    account: Self.interruptionAccount(
                        counterID: counterID, request: current.id, file: file, kept: store != nil,
                        naming: activity.naming))
            }
            summary.requests += part.requests
            summary.reused += part.reused
            summary.parts += part.parts
            summary.bytes += part.bytes
        }
        activity.endProgress()
        return .loaded(ranges, summary)
    }

    /// `2026-05-30` or `2026-05-30…2026-05-31`.
    package static func text(_ range: DateRange) -> String {
        range.from == range.to ? range.from.iso : "\(range.from.iso)…\(range.to.iso)"
    }

    /// Runs the export; a request to stop meanwhile cancels it, and once it has unwound (its
    /// destination abandoned) `interruption` makes the error that ends the run.
    private func export(
        _ range: DateRange, with exporter: LogExporter, interruption: @Sendable (Int32) -> Interruption
    ) async throws -> LogExporter.Summary {
        guard let stopRequests else { return try await exporter.run(range) }
        let running = Task { try await exporter.run(range) }
        let stopped = StopSignal()
        let endWatch = stopRequests.watch { signal in
            if stopped.receive(signal) { running.cancel() }
        }
        defer { endWatch() }
        do {
            return try await withTaskCancellationHandler {
                try await running.value
            } onCancel: {
                running.cancel()
            }
        } catch {
            guard let signal = stopped.signal else { throw error }
            throw interruption(signal)
        }
    }

    /// The history database for a run with dates: its progress makes an interrupted run resumable.
    /// One that cannot be opened is said (the run goes on, as a file export needs no history).
    func progressStore() async -> HistoryStore? {
        do {
            return try await HistoryStore.open(path: databasePath)
        } catch {
            activity.note(
                "Warning: the history database cannot be opened (\(message(error))); this run keeps no progress, so if it is interrupted it starts again from the beginning."
            )
            return nil
        }
    }

    func makeDestination(_ request: LogsRequest) async throws -> any LogDestination {
        switch request.target {
        case .file(let path):
            return try TSVFileDestination(path: path)
        case .clickhouse(let settings):
            return try await ClickHouseDestination.prepare(
                settings, counterID: request.counterID, source: request.source, fields: request.fields,
                transport: warehouseTransport)
        case .cluster(let cluster):
            return try await ClickHouseClusterDestination.prepare(
                cluster, counterID: request.counterID, source: request.source, fields: request.fields,
                transport: warehouseTransport)
        }
    }

    /// A run without dates starts where the last load ended, so its range moves on every day: a
    /// request a failed night kept for its resume (same table, days inside this range) would never be
    /// resumed. It is cleaned (or cancelled), forgotten, and its staging tables dropped; this run
    /// loads its days.
    func cleanSuperseded(
        by range: DateRange, request: LogsRequest, store: HistoryStore, client: MetrikaClient,
        destination: any LogDestination
    ) async throws {
        let counterID = request.counterID
        for job in try await store.jobs(counterID: counterID)
        where job.source == request.source && job.destination == request.destinationKey
            && (job.from != range.from || job.to != range.to)
            && job.from >= range.from && job.to <= range.to
        {
            if let info = try? await client.logRequest(counter: counterID, id: job.requestID),
                info.status == "processed" || info.status == "created"
            {
                _ = try? await client.finishLogRequest(
                    counter: counterID, id: job.requestID, cancel: info.status == "created")
            }
            try await destination.discardRange(from: job.from, to: job.to)
            try await store.removeJob(requestID: job.requestID)
            activity.note(
                "Note: log request \(job.requestID) (\(job.from.iso)…\(job.to.iso)), kept by a failed run, is cleaned: this run loads its days."
            )
        }
    }

    /// What an interrupted run leaves: no file (its temporary removed), the target table unchanged,
    /// and the log request, which the same command reuses instead of ordering a new log.
    package static func interruptionAccount(
        counterID: Int, request: Int?, file: String?, kept: Bool, naming: ParameterNaming
    ) -> String {
        let written =
            file.map {
                $0 == "standard output"
                    ? "Interrupted" : "Interrupted: \($0) was not written (its temporary file is removed)"
            }
            ?? "Interrupted: the ClickHouse table is unchanged (parts already loaded wait in its staging table)"
        guard let request else { return written + "; no log was ordered yet." }
        guard kept else {
            return written
                + "; log request \(request) is left on the server: `\(naming.action(.cleanLogs(counterID: counterID)))` frees it."
        }
        return written
            + "; log request \(request) is kept: the same command again reuses it instead of ordering a new log (`\(naming.action(.cleanLogs(counterID: counterID)))` frees it)."
    }

    // MARK: - --list and --clean-all

    /// A counter's log requests and, when `withLoads`, the days each table holds (from the history
    /// database, when there is one).
    package struct Listing: Sendable {
        package var requests: [LogRequest]
        package var loads: [LogLoad]

        /// As `logs --list` shows it (Render's `LogsListing`): each table's days as ranges and the gaps between them.
        package func view(counterID: Int) -> LogsListing {
            LogsListing(
                counterID: counterID,
                requests: requests.map {
                    LogsListing.Request(
                        requestID: $0.requestID, status: $0.status, source: $0.source, date1: $0.date1, date2: $0.date2,
                        size: $0.size)
                },
                loads: loads.map { load in
                    let loaded = LogsContinuation.ranges(of: load.days)
                    // `127.0.0.1:8123/metrika.visits` for the destination key
                    // `clickhouse:127.0.0.1:8123/metrika.visits`.
                    let into =
                        load.destination.hasPrefix("clickhouse:")
                        ? String(load.destination.dropFirst("clickhouse:".count)) : load.destination
                    return LogsListing.Load(
                        source: load.source, loadedInto: into, firstDay: load.firstDay, lastDay: load.lastDay,
                        loadedAt: load.loadedAt,
                        rows: load.rows, loaded: loaded, missing: LogsContinuation.gaps(loaded))
                })
        }
    }

    package func list(counterID: Int, withLoads: Bool) async throws -> Listing {
        let requests = try await client().logRequests(counter: counterID)
        guard withLoads, FileManager.default.fileExists(atPath: databasePath) else {
            return Listing(requests: requests, loads: [])
        }
        do {
            return Listing(
                requests: requests, loads: try await HistoryStore.open(path: databasePath).loads(counterID: counterID))
        } catch {
            activity.note(
                "Warning: the days loaded into each table are not listed: the history database cannot be read (\(message(error)))."
            )
            return Listing(requests: requests, loads: [])
        }
    }

    /// What `--clean-all` did.
    package struct Cleaned: Sendable, Equatable {
        /// Log requests cleaned or cancelled.
        package var requests = 0
        /// Staging tables (and their helpers) dropped, as `db.table`.
        package var tables: [String] = []

        package init(requests: Int = 0, tables: [String] = []) {
            self.requests = requests
            self.tables = tables
        }
    }

    /// Cleans (or cancels) every request of the counter still holding its quota, forgets the runs
    /// kept for a resume, and drops every staging table of the counter in the databases of
    /// `clickhouse` (one settings per server or shard; none without ClickHouse).
    package func cleanAll(counterID: Int, clickhouse: [ClickHouseSettings] = []) async throws -> Cleaned {
        var result = Cleaned()
        result.requests = try await cleanRequests(counterID: counterID)
        for settings in clickhouse {
            let dropped = try await ClickHouseStagingTables.drop(
                counterID: counterID, settings: settings, transport: warehouseTransport)
            result.tables += dropped.map { "\(settings.database).\($0)" }
        }
        return result
    }

    private func cleanRequests(counterID: Int) async throws -> Int {
        let client = try await client()
        var cleaned = 0
        for request in try await client.logRequests(counter: counterID)
        where request.status == "processed" || request.status == "created" {
            _ = try await client.finishLogRequest(
                counter: counterID, id: request.requestID, cancel: request.status == "created")
            cleaned += 1
        }
        // Without a database file no run was kept; none is created for nothing.
        guard FileManager.default.fileExists(atPath: databasePath) else { return cleaned }
        do {
            let store = try await HistoryStore.open(path: databasePath)
            for job in try await store.jobs(counterID: counterID) {
                try await store.removeJob(requestID: job.requestID)
            }
        } catch {
            activity.note(
                "Warning: the history database still remembers counter \(counterID)'s interrupted runs (\(message(error))); a re-run finds their requests cleaned and orders new logs."
            )
        }
        return cleaned
    }

    /// An error's one line for a note, in the entry point's words.
    func message(_ error: any Error) -> String {
        activity.naming.reason(error)
    }
}

/// The log request the export is on, for the interruption's account: set on the export's task, read
/// after it has ended.
final class CurrentLogRequest: Sendable {
    private let value = Mutex<Int?>(nil)
    var id: Int? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
