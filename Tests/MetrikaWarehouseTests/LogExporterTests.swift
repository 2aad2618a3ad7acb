import Foundation
import MetrikaModel
import Testing

@testable import MetrikaAPI
@testable import MetrikaWarehouse

/// `LogExporter` against fake transports: the request lifecycle, resuming, and how a part that fails
/// is retried (its rows replaced) or ends the run (the request kept).
@Suite("Log exporter")
struct LogExporterTests {
    /// The TSV a whole export of `parts` writes: one header, every part's rows once.
    static func expectedTSV(parts: [Int]) -> String {
        FakePartServer.header + parts.flatMap(FakePartServer.rows).joined()
    }

    @Test func ordersPollsDownloadsEveryPartAndCleans() async throws {
        let api = FakeLogsAPI(parts: [0, 1])
        let server = FakePartServer()
        let sleeper = SleepRecorder()
        let notes = NoteRecorder()
        let home = try TemporaryDirectory()
        let file = home.path + "/v.tsv"
        let store = MemoryProgressStore()
        let exporter = Fixture.exporter(
            client: Fixture.client(api: api, parts: server, sleeper: sleeper),
            destination: try TSVFileDestination(path: file), store: store,
            notes: notes, sleeper: sleeper)

        let summary = try await exporter.run(Fixture.range)

        #expect(
            api.calls == [
                "GET /logrequests/evaluate", "POST /logrequests", "GET /logrequest/7", "GET /logrequest/7",
                "POST /logrequest/7/clean"
            ])
        #expect(server.downloads == [0, 1])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == Self.expectedTSV(parts: [0, 1]))
        #expect(summary.parts == 2 && summary.requests == 1)
        #expect(store.jobs.isEmpty)
        #expect(sleeper.waits == [1]) // one poll interval, no retry
    }

    @Test func resumingSkipsThePartsAlreadyLoaded() async throws {
        let api = FakeLogsAPI(parts: [0, 1, 2], startAs: "processed")
        let server = FakePartServer()
        let sleeper = SleepRecorder()
        let notes = NoteRecorder()
        let store = MemoryProgressStore([Fixture.job(loaded: [0, 2])])
        let destination = RecordingDestination(keepsEarlierParts: true)
        let exporter = Fixture.exporter(
            client: Fixture.client(api: api, parts: server, sleeper: sleeper), destination: destination, store: store,
            notes: notes, sleeper: sleeper)

        let summary = try await exporter.run(Fixture.range)

        #expect(server.downloads == [1])
        #expect(destination.events == ["begin resuming", "load 1", "commit 3", "finish"])
        #expect(api.calls == ["GET /logrequests/evaluate", "GET /logrequest/7", "POST /logrequest/7/clean"])
        #expect(summary.reused == 1 && summary.requests == 0 && summary.parts == 1)
        #expect(notes.lines.contains { $0.contains("resuming log request 7 (2 parts already loaded)") })
        #expect(store.jobs.isEmpty)
    }

    @Test func aPartCutMidwayThenRefusedIsFetchedAgainAndItsRowsAreNotDuplicated() async throws {
        let api = FakeLogsAPI(parts: [0, 1])
        // Part 1: cut after two rows, then a 503, then whole.
        let server = FakePartServer { part, attempt in
            guard part == 1 else { return .whole }
            switch attempt {
            case 1: return .cut(rows: 2)
            case 2:
                return .status(
                    503, #"{"errors": [{"error_type": "backend_error", "message": "try later"}], "code": 503}"#)
            default: return .whole
            }
        }
        let sleeper = SleepRecorder()
        let notes = NoteRecorder()
        let home = try TemporaryDirectory()
        let file = home.path + "/v.tsv"
        let client = Fixture.client(api: api, parts: server, sleeper: sleeper)
        let exporter = Fixture.exporter(
            client: client, destination: try TSVFileDestination(path: file), store: MemoryProgressStore(), notes: notes,
            sleeper: sleeper)

        let summary = try await exporter.run(Fixture.range)

        #expect(server.downloads == [0, 1, 1, 1])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == Self.expectedTSV(parts: [0, 1]))
        // The poll interval, then the retry policy's two waits (equal jitter at random 0.5: 0.375, 0.75).
        #expect(sleeper.waits == [1, 0.375, 0.75])
        #expect(
            summary.parts == 2
                && summary.bytes == Self.expectedTSV(parts: [0, 1]).utf8.count + FakePartServer.header.utf8.count)
        #expect(api.calls.last == "POST /logrequest/7/clean")
    }

    @Test func aPartCutAfterALongDownloadStillGetsItsRetries() async throws {
        let api = FakeLogsAPI(parts: [0])
        let server = FakePartServer { _, attempt in attempt == 1 ? .cut(rows: 2) : .whole }
        let sleeper = SleepRecorder()
        let notes = NoteRecorder()
        // Every reading of the clock is an hour later: the first attempt took hours before it was cut.
        let clock = JumpingClock(step: 3600)
        let client = MetrikaClient(
            baseURL: Fixture.baseURL, token: "original-token", transport: api, streamingTransport: server,
            sleep: { sleeper.sleep($0) }, random: { 0.5 }, now: { clock.now() })
        let destination = RecordingDestination(keepsEarlierParts: false)
        let exporter = Fixture.exporter(
            client: client, destination: destination, store: nil, notes: notes, sleeper: sleeper)

        _ = try await exporter.run(Fixture.range)
        #expect(server.downloads == [0, 0])
        #expect(destination.rows == FakePartServer.rows(0))
    }

    @Test func aPartThatKeepsFailingEndsTheRunAfterThePolicysAttemptsAndKeepsTheRequest() async throws {
        let api = FakeLogsAPI(parts: [0, 1])
        let server = FakePartServer { part, _ in part == 1 ? .cut(rows: 1) : .whole }
        let sleeper = SleepRecorder()
        let notes = NoteRecorder()
        let home = try TemporaryDirectory()
        let file = home.path + "/v.tsv"
        let store = MemoryProgressStore()
        var client = Fixture.client(api: api, parts: server, sleeper: sleeper)
        client.retryPolicy = RetryPolicy(maxAttempts: 3)
        let exporter = Fixture.exporter(
            client: client, destination: try TSVFileDestination(path: file), store: store, notes: notes,
            sleeper: sleeper)

        await #expect(
            throws: APIError.unavailable(
                "log request 7, part 2 of 2: the connection broke mid-answer (Connection reset by peer), 3 attempts")
        ) {
            try await exporter.run(Fixture.range)
        }
        #expect(server.downloads == [0, 1, 1, 1])
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(store.jobs.map(\.loadedParts) == [[0]])
        #expect(!api.calls.contains { $0.hasSuffix("/clean") || $0.hasSuffix("/cancel") })
        #expect(notes.lines.contains { $0.contains("log request 7 is kept") })
    }

    @Test func aPermanentRefusalOfAPartFailsAtOnceAndKeepsTheRequest() async throws {
        let api = FakeLogsAPI(parts: [0, 1])
        let server = FakePartServer { part, _ in
            part == 1
                ? .status(
                    400,
                    #"{"errors": [{"error_type": "invalid_parameter", "message": "Only log of requests in status 'processed' can be downloaded"}], "code": 400}"#
                ) : .whole
        }
        let sleeper = SleepRecorder()
        let notes = NoteRecorder()
        let store = MemoryProgressStore()
        let destination = RecordingDestination(keepsEarlierParts: false)
        let exporter = Fixture.exporter(
            client: Fixture.client(api: api, parts: server, sleeper: sleeper), destination: destination, store: store,
            notes: notes, sleeper: sleeper)

        await #expect(
            throws: APIError.badRequest(
                type: "invalid_parameter", message: "Only log of requests in status 'processed' can be downloaded")
        ) {
            try await exporter.run(Fixture.range)
        }
        #expect(server.downloads == [0, 1])
        #expect(sleeper.waits == [1]) // no retry wait
        #expect(destination.events == ["begin", "load 0", "load 1", "discard 1", "abandon"])
        #expect(store.jobs.map(\.loadedParts) == [[0]])
        #expect(!api.calls.contains { $0.hasSuffix("/clean") })
    }

    @Test func aCutPartThatCannotBeTakenBackIsNotRetried() async throws {
        let api = FakeLogsAPI(parts: [0, 1])
        let server = FakePartServer { part, _ in part == 1 ? .cut(rows: 1) : .whole }
        let sleeper = SleepRecorder()
        let notes = NoteRecorder()
        let destination = RecordingDestination(keepsEarlierParts: false, canDiscard: false)
        let exporter = Fixture.exporter(
            client: Fixture.client(api: api, parts: server, sleeper: sleeper), destination: destination,
            store: MemoryProgressStore(), notes: notes, sleeper: sleeper)

        await #expect(
            throws: APIError.unavailable(
                "log request 7, part 2 of 2: the connection broke mid-answer (Connection reset by peer)")
        ) {
            try await exporter.run(Fixture.range)
        }
        #expect(server.downloads == [0, 1])
    }

    @Test func aPartRefusedBeforeAnyByteIsRetriedEvenIntoAPipe() async throws {
        let api = FakeLogsAPI(parts: [0])
        let server = FakePartServer { _, attempt in
            attempt == 1
                ? .status(
                    429, #"{"errors": [{"error_type": "quota_requests_by_ip", "message": "slow down"}], "code": 429}"#)
                : .whole
        }
        let sleeper = SleepRecorder()
        let notes = NoteRecorder()
        let destination = RecordingDestination(keepsEarlierParts: false, canDiscard: false)
        let exporter = Fixture.exporter(
            client: Fixture.client(api: api, parts: server, sleeper: sleeper), destination: destination, store: nil,
            notes: notes, sleeper: sleeper)

        _ = try await exporter.run(Fixture.range)
        #expect(server.downloads == [0, 0])
        #expect(destination.rows == FakePartServer.rows(0))
    }
}

/// A destination that records what the exporter asks of it and keeps the rows of each part.
final class RecordingDestination: LogDestination, @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [String] = []
    private var partRows: [Int: [String]] = [:]
    private var attemptBytes = 0
    let keepsEarlierParts: Bool
    let canDiscard: Bool

    init(keepsEarlierParts: Bool, canDiscard: Bool = true) {
        self.keepsEarlierParts = keepsEarlierParts
        self.canDiscard = canDiscard
    }

    var events: [String] { lock.withLock { _events } }
    /// Every loaded row (headers dropped), parts in order.
    var rows: [String] { lock.withLock { partRows.keys.sorted().flatMap { partRows[$0]! } } }

    private func record(_ event: String) { lock.withLock { _events.append(event) } }

    func beginRange(from: Day, to: Day, resuming: Bool) async throws -> Bool {
        record(resuming ? "begin resuming" : "begin")
        return keepsEarlierParts
    }

    func load(part: Int, of count: Int, from: Day, to: Day, feed: (StreamWriter) async throws -> Void) async throws {
        record("load \(part)")
        var bytes: [UInt8] = []
        lock.withLock { attemptBytes = 0 }
        try await feed { chunk in
            bytes += chunk
            self.lock.withLock { self.attemptBytes += chunk.count }
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst().map { String($0) + "\n" }
        lock.withLock { partRows[part] = lines }
    }

    /// Like a pipe when `canDiscard` is false: only an attempt that wrote nothing can be taken back.
    func discardPart(part: Int, from: Day, to: Day) async -> Bool {
        record("discard \(part)")
        return canDiscard || lock.withLock { attemptBytes == 0 }
    }

    func commitRange(from: Day, to: Day, parts: Int) async throws { record("commit \(parts)") }
    func finish() async throws { record("finish") }
    func abandon() { record("abandon") }
}

/// A clock that moves on by `step` seconds each time it is read.
final class JumpingClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_781_524_800)
    let step: Double

    init(step: Double) { self.step = step }

    func now() -> Date {
        lock.withLock {
            current += step
            return current
        }
    }
}
