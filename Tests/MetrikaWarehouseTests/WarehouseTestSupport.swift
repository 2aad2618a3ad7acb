import Foundation
import MetrikaModel
import MetrikaStore

@testable import MetrikaAPI
@testable import MetrikaWarehouse

// MARK: - The Logs API, faked at both seams

/// The Logs API's JSON calls for one log request (id 7, counter 1001): evaluate, create, info (one
/// `created` poll, then `processed` with `parts`), clean and cancel. Records every call in order.
final class FakeLogsAPI: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var _calls: [String] = []
    private var polls = 0
    private var status = "none"
    let parts: [Int]
    /// Answers every info call with this status instead (a request the API still has from a past run).
    var startAs: String?
    /// What evaluate answers: whether the range fits one request, and the most days one may have.
    var evaluation = (possible: true, maxDays: 300)
    /// The status a created request reaches after its first poll (`created` again: it never ends).
    var endsAs = "processed"

    init(parts: [Int], startAs: String? = nil) {
        self.parts = parts
        self.startAs = startAs
        if let startAs { status = startAs }
    }

    /// `METHOD /path` of every JSON call, in order (paths after `/management/v1/counter/1001`).
    var calls: [String] { lock.withLock { _calls } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.url.path.replacingOccurrences(of: "/management/v1/counter/1001", with: "")
        return lock.withLock {
            _calls.append("\(request.method) \(path)")
            switch (request.method, path) {
            case ("GET", "/logrequests/evaluate"):
                return Self.json(
                    #"{"log_request_evaluation": {"possible": \#(evaluation.possible), "max_possible_day_quantity": \#(evaluation.maxDays)}}"#
                )
            case ("POST", "/logrequests"):
                status = "created"
                return Self.json(requestJSON())
            case ("GET", "/logrequest/7"):
                if status == "created" {
                    polls += 1
                    if polls > 1 { status = endsAs }
                }
                return Self.json(requestJSON())
            case ("POST", "/logrequest/7/clean"):
                status = "cleaned_by_user"
                return Self.json(requestJSON())
            case ("POST", "/logrequest/7/cancel"):
                status = "canceled"
                return Self.json(requestJSON())
            default:
                return HTTPResponse(
                    status: 404,
                    body: Data(
                        #"{"errors": [{"error_type": "not_found", "message": "no such thing"}], "code": 404}"#.utf8))
            }
        }
    }

    private func requestJSON() -> String {
        let partList =
            status == "processed"
            ? #", "parts": ["# + parts.map { #"{"part_number": \#($0), "size": 100}"# }.joined(separator: ", ") + "]"
            : ""
        return
            #"{"log_request": {"request_id": 7, "counter_id": 1001, "source": "visits", "date1": "2026-06-01", "date2": "2026-06-02", "status": "\#(status)"\#(partList)}}"#
    }

    static func json(_ text: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }
}

/// Part downloads: each attempt at a part gets what `script(part, attempt)` says (attempts from 1).
final class FakePartServer: StreamingHTTPTransport, @unchecked Sendable {
    enum Answer {
        /// 200 and the whole TSV, in two chunks.
        case whole
        /// 200, the first `rows` rows, then the connection breaks.
        case cut(rows: Int)
        /// A non-2xx answer with this body.
        case status(Int, String)
    }

    private let lock = NSLock()
    private var attempts: [Int: Int] = [:]
    private var _log: [(part: Int, authorization: String)] = []
    let script: @Sendable (_ part: Int, _ attempt: Int) -> Answer

    init(script: @escaping @Sendable (_ part: Int, _ attempt: Int) -> Answer = { _, _ in .whole }) {
        self.script = script
    }

    /// The part of every download attempt, in order.
    var downloads: [Int] { lock.withLock { _log.map(\.part) } }
    /// The Authorization header of every download attempt, in order.
    var authorizations: [String] { lock.withLock { _log.map(\.authorization) } }

    static let header = "ym:s:counterID\tym:s:date\tym:s:visitID\n"

    /// The rows of `part`: three visits a part, ids `part*100 + 1…3`.
    static func rows(_ part: Int) -> [String] {
        (1...3).map { "1001\t2026-06-01\t\(part * 100 + $0)\n" }
    }

    func exchange(
        _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?, receive: ([UInt8]) async throws -> Void
    ) async throws -> StreamedResponseHead {
        let components = request.url.path.split(separator: "/")
        guard let index = components.firstIndex(of: "part"), let part = Int(components[index + 1]) else {
            return StreamedResponseHead(status: 404, errorBody: Data("{}".utf8))
        }
        let attempt = lock.withLock { () -> Int in
            attempts[part, default: 0] += 1
            _log.append((part, request.headers["Authorization"] ?? ""))
            return attempts[part]!
        }
        let rows = Self.rows(part)
        switch script(part, attempt) {
        case .whole:
            try await receive(Array((Self.header + rows[0]).utf8))
            try await receive(Array(rows.dropFirst().joined().utf8))
            return StreamedResponseHead(status: 200)
        case .cut(let count):
            try await receive(Array((Self.header + rows.prefix(count).joined()).utf8))
            throw TransportError.connectionLost("Connection reset by peer")
        case .status(let status, let body):
            return StreamedResponseHead(status: status, errorBody: Data(body.utf8))
        }
    }
}

/// `LogProgressStore` in memory.
final class MemoryProgressStore: LogProgressStore, @unchecked Sendable {
    private let lock = NSLock()
    private var saved: [Int: LogJob] = [:]

    init(_ jobs: [LogJob] = []) {
        for job in jobs { saved[job.requestID] = job }
    }

    var jobs: [LogJob] { lock.withLock { saved.values.sorted { $0.requestID < $1.requestID } } }

    func job(counterID: Int, source: LogSource, from: Day, to: Day, fields: String, destination: String) throws
        -> LogJob?
    {
        lock.withLock {
            saved.values.first {
                $0.counterID == counterID && $0.source == source && $0.from == from && $0.to == to
                    && $0.fields == fields && $0.destination == destination
            }
        }
    }

    func saveJob(_ job: LogJob) throws { lock.withLock { saved[job.requestID] = job } }
    func markLoaded(requestID: Int, part: Int) throws {
        lock.withLock { _ = saved[requestID]?.loadedParts.insert(part) }
    }
    func removeJob(requestID: Int) throws { lock.withLock { saved[requestID] = nil } }
    func jobs(counterID: Int) throws -> [LogJob] { jobs.filter { $0.counterID == counterID } }

    private var _loads: [LogLoad] = []
    var loads: [LogLoad] { lock.withLock { _loads } }
    func recordLoaded(counterID: Int, source: LogSource, destination: String, from: Day, to: Day, at: Date) throws {
        lock.withLock {
            if let index = _loads.firstIndex(where: {
                $0.counterID == counterID && $0.source == source && $0.destination == destination
            }) {
                _loads[index].firstDay = min(_loads[index].firstDay, from)
                _loads[index].lastDay = max(_loads[index].lastDay, to)
                _loads[index].loadedAt = at
            } else {
                _loads.append(
                    LogLoad(
                        counterID: counterID, source: source, destination: destination, firstDay: from, lastDay: to,
                        loadedAt: at))
            }
        }
    }
    func load(counterID: Int, source: LogSource, destination: String) throws -> LogLoad? {
        loads.first { $0.counterID == counterID && $0.source == source && $0.destination == destination }
    }
    func loads(counterID: Int) throws -> [LogLoad] { loads.filter { $0.counterID == counterID } }
}

/// Waits asked for, without waiting.
final class SleepRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _waits: [Double] = []
    var waits: [Double] { lock.withLock { _waits } }
    func sleep(_ seconds: Double) { lock.withLock { _waits.append(seconds) } }
}

/// Lines a run noted for stderr.
final class NoteRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _lines: [String] = []
    var lines: [String] { lock.withLock { _lines } }
    func note(_ line: String) { lock.withLock { _lines.append(line) } }
}

enum Fixture {
    static let from = Day(iso: "2026-06-01")!
    static let to = Day(iso: "2026-06-02")!
    static let range = DateRange(from: from, to: to)!
    static let fields = ["ym:s:counterID", "ym:s:date", "ym:s:visitID"]
    static let baseURL = URL(string: "https://api-metrika.yandex.net")!

    static func client(api: any HTTPTransport, parts: any StreamingHTTPTransport, sleeper: SleepRecorder)
        -> MetrikaClient
    {
        MetrikaClient(
            baseURL: baseURL, token: "original-token", transport: api, streamingTransport: parts,
            sleep: { sleeper.sleep($0) }, random: { 0.5 })
    }

    static func exporter(
        client: MetrikaClient, destination: any LogDestination, store: (any LogProgressStore)?, notes: NoteRecorder,
        sleeper: SleepRecorder,
        key: String = "test"
    ) -> LogExporter {
        LogExporter(
            client: client, destination: destination, destinationKey: key, counterID: 1001, source: .visits,
            fields: fields, store: store,
            firstPollInterval: 1, sleep: { sleeper.sleep($0) }, progress: nil, note: { notes.note($0) })
    }

    static func job(loaded: Set<Int> = [], key: String = "test") -> LogJob {
        LogJob(
            counterID: 1001, source: .visits, from: from, to: to, fields: fields.joined(separator: ","),
            destination: key, requestID: 7, loadedParts: loaded)
    }
}

/// A temporary directory, removed when released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "metrika-warehouse-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
