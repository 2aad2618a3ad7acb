import Foundation
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases
@testable import MetrikaWarehouse

/// `metrika logs`' job in-process: the days it works out, the history database it opens (and says so
/// when it cannot), a request to stop that ends it as an `Interruption` naming what was kept, and
/// `--list` / `--clean-all`.
@Suite("Logs load")
struct LogsLoadTests {
    // MARK: - Seams

    /// The Management API's counter and Logs API calls for one log request (id 7) of counter 1001.
    final class LogsAPI: HTTPTransport, Sendable {
        private let state: Mutex<(calls: [String], status: String)>
        /// `--list`'s answer: the statuses of requests 7, 8, ….
        let listed: [String]

        init(startAs status: String = "none", listed: [String] = []) {
            state = Mutex((calls: [], status: status))
            self.listed = listed
        }

        /// `METHOD /path` of every call, in order (paths after `/management/v1/counter/1001`).
        var calls: [String] { state.withLock { $0.calls } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let path = request.url.path.replacingOccurrences(of: "/management/v1/counter/1001", with: "")
            return state.withLock { state in
                state.calls.append("\(request.method) \(path)")
                switch (request.method, path) {
                case ("GET", ""):
                    return Self.json(
                        #"{"counter": {"id": 1001, "name": "Shop", "site": "shop.example", "time_zone_name": "UTC"}}"#)
                case ("GET", "/logrequests/evaluate"):
                    return Self.json(
                        #"{"log_request_evaluation": {"possible": true, "max_possible_day_quantity": 300}}"#)
                case ("POST", "/logrequests"):
                    state.status = "processed"
                    return Self.json(Self.request(7, status: "created"))
                case ("GET", "/logrequest/7"):
                    return Self.json(Self.request(7, status: state.status))
                case ("GET", "/logrequests"):
                    let requests = listed.enumerated().map { Self.requestBody(7 + $0.offset, status: $0.element) }
                    return Self.json(#"{"requests": [\#(requests.joined(separator: ", "))]}"#)
                case ("POST", let path) where path.hasSuffix("/clean") || path.hasSuffix("/cancel"):
                    state.status = path.hasSuffix("/clean") ? "cleaned_by_user" : "canceled"
                    return Self.json(Self.request(7, status: state.status))
                default:
                    return HTTPResponse(
                        status: 404,
                        body: Data(
                            #"{"errors": [{"error_type": "not_found", "message": "no such thing"}], "code": 404}"#.utf8)
                    )
                }
            }
        }

        static func requestBody(_ id: Int, status: String) -> String {
            let parts =
                status == "processed"
                ? #", "parts": [{"part_number": 0, "size": 100}, {"part_number": 1, "size": 100}]"# : ""
            return
                #"{"request_id": \#(id), "counter_id": 1001, "source": "visits", "date1": "2026-11-01", "date2": "2026-11-02", "status": "\#(status)", "size": 200\#(parts)}"#
        }

        static func request(_ id: Int, status: String) -> String {
            #"{"log_request": \#(requestBody(id, status: status))}"#
        }

        static func json(_ text: String) -> HTTPResponse {
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
        }
    }

    /// Part downloads: each part is a header and two rows; with `hangOn`, that part writes its first
    /// row, calls `started` and then waits until its task is cancelled (20 s at most).
    final class PartServer: StreamingHTTPTransport, Sendable {
        let hangOn: Int?
        let started: @Sendable () -> Void

        init(hangOn: Int? = nil, started: @escaping @Sendable () -> Void = {}) {
            self.hangOn = hangOn
            self.started = started
        }

        static let header = "ym:s:visitID\tym:s:counterID\tym:s:date\n"
        static func rows(_ part: Int) -> String { "\(part)1\t1001\t2026-11-01\n\(part)2\t1001\t2026-11-02\n" }

        func exchange(
            _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?,
            receive: ([UInt8]) async throws -> Void
        ) async throws -> StreamedResponseHead {
            let components = request.url.path.split(separator: "/")
            guard let index = components.firstIndex(of: "part"), let part = Int(components[index + 1]) else {
                return StreamedResponseHead(status: 404, errorBody: Data("{}".utf8))
            }
            if part == hangOn {
                try await receive(Array((Self.header + Self.rows(part).split(separator: "\n")[0] + "\n").utf8))
                started()
                // Bounded: a stop that never arrives fails the test instead of hanging it.
                try await Task.sleep(for: .seconds(20))
                throw TransportError.malformed("the part was never stopped")
            }
            try await receive(Array((Self.header + Self.rows(part)).utf8))
            return StreamedResponseHead(status: 200)
        }
    }

    /// Requests to stop sent by hand: `send` calls the handler of the watch in force, if any.
    final class ManualStop: StopRequests {
        private let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)
        private let watches = Mutex(0)

        func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> @Sendable () -> Void {
            self.handler.withLock { $0 = handler }
            watches.withLock { $0 += 1 }
            return { self.handler.withLock { $0 = nil } }
        }

        func send(_ signal: Int32) { handler.withLock { $0 }?(signal) }
        var watching: Bool { handler.withLock { $0 != nil } }
        var watchCount: Int { watches.withLock { $0 } }
    }

    /// Whether the job asked for its API client.
    final class ClientMaker: Sendable {
        private let made = Mutex(0)
        let api: LogsAPI
        let parts: PartServer

        init(api: LogsAPI, parts: PartServer = PartServer()) {
            self.api = api
            self.parts = parts
        }

        var count: Int { made.withLock { $0 } }

        func make() -> MetrikaClient {
            made.withLock { $0 += 1 }
            return MetrikaClient(
                baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: api,
                streamingTransport: parts, requestTimeout: 5, sleep: { _ in }, now: { testNow })
        }
    }

    static func load(_ maker: ClientMaker, database: String, activity: RecordedActivity, stop: ManualStop? = nil)
        -> LogsLoad
    {
        LogsLoad(
            client: { maker.make() }, warehouseTransport: maker.parts, databasePath: database, activity: activity,
            sleep: { _ in },
            stopRequests: stop)
    }

    static func fileRequest(_ path: String) throws -> LogsRequest {
        try LogsRequest(
            counterID: 1001, source: .visits, fields: ["visitID"], target: .file(path: path),
            days: .range(from: .absolute(day("2026-11-01")), to: .absolute(day("2026-11-02"))), firstPollInterval: 0)
    }

    static func table() throws -> ClickHouseSettings {
        try ClickHouseSettings.make(
            url: "http://127.0.0.1:8123", table: nil, source: .visits, environment: [:], timeout: 5)
    }

    static func temporaries(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
    }

    // MARK: - The export

    @Test func aRunWithDatesExportsEveryPartIntoTheFileAndForgetsItsProgress() async throws {
        let home = try TemporaryDatabase()
        let api = LogsAPI()
        let activity = RecordedActivity()
        let file = home.directory + "/v.tsv"

        let outcome = try await Self.load(ClientMaker(api: api), database: home.path, activity: activity).run(
            try Self.fileRequest(file))

        guard case .loaded(let range, let summary) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(range == [days("2026-11-01", "2026-11-02")])
        #expect(summary.parts == 2 && summary.requests == 1 && summary.reused == 0)
        #expect(
            try String(contentsOfFile: file, encoding: .utf8) == PartServer.header + PartServer.rows(0)
                + PartServer.rows(1))
        #expect(api.calls.first == "GET " && api.calls.last == "POST /logrequest/7/clean")
        #expect(try await HistoryStore.open(path: home.path).jobs(counterID: 1001).isEmpty)
        #expect(!activity.notes.contains { $0.hasPrefix("Warning:") })
    }

    @Test func aRunWithDatesWhoseHistoryDatabaseCannotBeOpenedSaysSoAndStillExports() async throws {
        let home = try TemporaryDatabase()
        // The database's directory is a regular file: the store cannot be created.
        let blocker = home.directory + "/not-a-directory"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let activity = RecordedActivity()
        let file = home.directory + "/v.tsv"

        let outcome = try await Self.load(
            ClientMaker(api: LogsAPI()), database: blocker + "/h.sqlite", activity: activity
        ).run(try Self.fileRequest(file))

        guard case .loaded(_, let summary) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(summary.parts == 2)
        let warning = try #require(
            activity.notes.first { $0.hasPrefix("Warning: the history database cannot be opened (") },
            "\(activity.notes)")
        #expect(
            warning.hasSuffix("this run keeps no progress, so if it is interrupted it starts again from the beginning.")
        )
        #expect(FileManager.default.fileExists(atPath: file))
    }

    @Test func aRunWithoutDatesAndWithoutAnEarlierLoadIsAUsageErrorBeforeAnyRequest() async throws {
        let home = try TemporaryDatabase()
        let maker = ClientMaker(api: LogsAPI())
        let request = try LogsRequest(
            counterID: 1001, source: .visits, target: .clickhouse(try Self.table()), days: .continuing(lateDays: 3))

        await #expect(throws: ParameterError.self) {
            try await Self.load(maker, database: home.path, activity: RecordedActivity()).run(request)
        }
        #expect(maker.count == 0)
        #expect(maker.api.calls.isEmpty)
    }

    @Test func aRunWithoutDatesAfterYesterdayWasLoadedHasNothingToLoad() async throws {
        let home = try TemporaryDatabase()
        let table = try Self.table()
        let request = try LogsRequest(
            counterID: 1001, source: .visits, target: .clickhouse(table), days: .continuing(lateDays: 0))
        try await HistoryStore.open(path: home.path).recordLoaded(
            counterID: 1001, source: .visits, destination: request.destinationKey,
            from: day("2026-11-20"), to: day("2026-11-28"), at: testNow)
        let maker = ClientMaker(api: LogsAPI())

        let outcome = try await Self.load(maker, database: home.path, activity: RecordedActivity()).run(request)

        guard case .upToDate(let lastDay) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(lastDay == day("2026-11-28"))
        #expect(maker.api.calls == ["GET "]) // the counter's time zone, and nothing ordered
    }

    // MARK: - Interruption

    @Test(arguments: [SIGINT, SIGTERM])
    func aRequestToStopMidPartRemovesTheTemporaryKeepsTheRequestAndSaysSo(signal: Int32) async throws {
        let home = try TemporaryDatabase()
        let stop = ManualStop()
        let maker = ClientMaker(api: LogsAPI(), parts: PartServer(hangOn: 1, started: { stop.send(signal) }))
        let activity = RecordedActivity()
        let file = home.directory + "/v.tsv"
        let load = Self.load(maker, database: home.path, activity: activity, stop: stop)

        let account =
            "Interrupted: '\(file)' was not written (its temporary file is removed); log request 7 is kept: the same command again reuses it instead of ordering a new log (`metrika logs --counter 1001 --clean-all` frees it)."
        await #expect(throws: Interruption(signal: signal, account: account)) {
            try await load.run(try Self.fileRequest(file))
        }
        #expect(Interruption(signal: signal, account: "").exitCode == 128 + signal)
        #expect(try Self.temporaries(home.directory).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file))
        // Kept for the re-run: the request, with part 1 (the API's 0) loaded.
        let request = try Self.fileRequest(file)
        let store = try await HistoryStore.open(path: home.path)
        #expect(try await store.jobs(counterID: 1001).map(\.requestID) == [7])
        let kept = try await store.job(
            counterID: 1001, source: .visits, from: day("2026-11-01"), to: day("2026-11-02"),
            fields: request.fields.joined(separator: ","), destination: request.destinationKey)
        #expect(kept?.loadedParts == [0])
        #expect(!maker.api.calls.contains { $0.hasSuffix("/clean") || $0.hasSuffix("/cancel") })
        #expect(stop.watchCount == 1 && !stop.watching)
    }

    @Test func aRequestToStopWithoutAHistoryDatabaseSaysTheRequestIsLeftOnTheServer() async throws {
        let home = try TemporaryDatabase()
        let blocker = home.directory + "/not-a-directory"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let stop = ManualStop()
        let maker = ClientMaker(api: LogsAPI(), parts: PartServer(hangOn: 0, started: { stop.send(SIGINT) }))
        let load = Self.load(maker, database: blocker + "/h.sqlite", activity: RecordedActivity(), stop: stop)

        do {
            _ = try await load.run(try Self.fileRequest("-"))
            Issue.record("the run was not interrupted")
        } catch let interruption as Interruption {
            #expect(interruption.signal == SIGINT)
            #expect(
                interruption.account
                    == "Interrupted; log request 7 is left on the server: `metrika logs --counter 1001 --clean-all` frees it."
            )
        }
    }

    @Test func theInterruptionAccountNamesWhatWasKept() {
        #expect(
            LogsLoad.interruptionAccount(
                counterID: 5, request: nil, file: "'a.tsv'", kept: true, naming: RecordedActivity().naming)
                == "Interrupted: 'a.tsv' was not written (its temporary file is removed); no log was ordered yet.")
        #expect(
            LogsLoad.interruptionAccount(
                counterID: 5, request: 9, file: nil, kept: true, naming: RecordedActivity().naming)
                == "Interrupted: the ClickHouse table is unchanged (parts already loaded wait in its staging table); log request 9 is kept: the same command again reuses it instead of ordering a new log (`metrika logs --counter 5 --clean-all` frees it)."
        )
    }

    @Test func aStopRequestedAfterTheExportEndedChangesNothing() async throws {
        let home = try TemporaryDatabase()
        let stop = ManualStop()
        let load = Self.load(ClientMaker(api: LogsAPI()), database: home.path, activity: RecordedActivity(), stop: stop)

        let outcome = try await load.run(try Self.fileRequest(home.directory + "/v.tsv"))
        stop.send(SIGINT)

        guard case .loaded = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(stop.watchCount == 1 && !stop.watching)
        #expect(FileManager.default.fileExists(atPath: home.directory + "/v.tsv"))
    }

    // MARK: - --list and --clean-all

    @Test func listReadsTheDaysLoadedAndSaysWhenTheDatabaseCannotBeRead() async throws {
        let home = try TemporaryDatabase()
        try await HistoryStore.open(path: home.path).recordLoaded(
            counterID: 1001, source: .hits, destination: "clickhouse:h:8123/metrika.hits",
            from: day("2026-11-01"), to: day("2026-11-02"), at: testNow)
        let activity = RecordedActivity()
        let load = Self.load(
            ClientMaker(api: LogsAPI(listed: ["processed", "cleaned_by_user"])), database: home.path, activity: activity
        )

        let listing = try await load.list(counterID: 1001, withLoads: true)
        #expect(listing.requests.map(\.requestID) == [7, 8])
        #expect(listing.loads.map(\.destination) == ["clickhouse:h:8123/metrika.hits"])
        #expect(try await load.list(counterID: 1001, withLoads: false).loads.isEmpty)

        let damaged = home.directory + "/damaged.sqlite"
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: damaged))
        let unreadable = Self.load(
            ClientMaker(api: LogsAPI(listed: ["processed"])), database: damaged, activity: activity)
        let partial = try await unreadable.list(counterID: 1001, withLoads: true)
        #expect(partial.requests.count == 1 && partial.loads.isEmpty)
        #expect(
            activity.notes.contains {
                $0.hasPrefix(
                    "Warning: the days loaded into each table are not listed: the history database cannot be read (")
            }, "\(activity.notes)")
        #expect(activity.notes.count == 1)
    }

    @Test func cleanAllCleansWhatHoldsTheQuotaAndForgetsKeptRuns() async throws {
        let home = try TemporaryDatabase()
        let store = try await HistoryStore.open(path: home.path)
        try await store.saveJob(
            LogJob(
                counterID: 1001, source: .visits, from: day("2026-11-01"), to: day("2026-11-02"),
                fields: "ym:s:visitID",
                destination: "stdout", requestID: 7))
        let api = LogsAPI(startAs: "processed", listed: ["processed", "created", "cleaned_by_user"])
        let activity = RecordedActivity()

        let cleaned = try await Self.load(ClientMaker(api: api), database: home.path, activity: activity).cleanAll(
            counterID: 1001)

        #expect(cleaned == LogsLoad.Cleaned(requests: 2, tables: []))
        #expect(api.calls == ["GET /logrequests", "POST /logrequest/7/clean", "POST /logrequest/8/cancel"])
        #expect(try await store.jobs(counterID: 1001).isEmpty)
        #expect(activity.notes.isEmpty)
    }

    @Test func cleanAllWithoutADatabaseCreatesNone() async throws {
        let home = try TemporaryDatabase()
        let cleaned = try await Self.load(
            ClientMaker(api: LogsAPI(listed: ["processed"])), database: home.path, activity: RecordedActivity()
        )
        .cleanAll(counterID: 1001)
        #expect(cleaned.requests == 1 && cleaned.tables.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: home.path))
    }

    // MARK: - The request

    @Test func theRequestPutsTheRequiredFieldsFirstAndAClusterAlsoAsksForTheShardingField() async throws {
        let fields = try LogsRequest.fields(parsing: "ym:s:UTMSource, browser,browser,", source: .visits)
        #expect(fields == ["ym:s:UTMSource", "ym:s:browser"])
        let file = try LogsRequest(
            counterID: 1, source: .visits, fields: fields, target: .file(path: "-"),
            days: .range(from: .absolute(day("2026-11-01")), to: .absolute(day("2026-11-01"))))
        #expect(file.fields == ["ym:s:counterID", "ym:s:date", "ym:s:visitID", "ym:s:UTMSource", "ym:s:browser"])
        #expect(file.destinationKey == "stdout")
        let cluster = try ClickHouseCluster.make(
            name: "web", urls: ["http://a:8123", "http://b:8123"], table: try Self.table(), environment: [:], timeout: 5
        )
        let sharded = try LogsRequest(
            counterID: 1, source: .visits, fields: fields, target: .cluster(cluster), days: .continuing(lateDays: 3))
        #expect(sharded.fields.last == "ym:s:clientID")
        #expect(sharded.destinationKey == "clickhouse:" + cluster.identity)
        #expect(
            try LogsRequest(
                counterID: 1, source: .hits, target: .file(path: "-"), days: .range(from: .daysAgo(1), to: .daysAgo(1))
            ).fields
                == LogSource.hits.defaultFields)
    }

    @Test(arguments: ["ym:pv:URL", "visit-id", ""])
    func aFieldOfTheOtherSourceOrNotAFieldNameIsRefused(name: String) async throws {
        if name.isEmpty {
            #expect(try LogsRequest.fields(parsing: ",,", source: .visits).isEmpty)
        } else {
            #expect(throws: ParameterError.self) { try LogsRequest.fields(parsing: name, source: .visits) }
        }
    }

    @Test func aRunWithoutDatesIntoAFileIsRefused() {
        #expect(throws: ParameterError.self) {
            try LogsRequest(counterID: 1, source: .visits, target: .file(path: "v.tsv"), days: .continuing(lateDays: 3))
        }
    }
}
