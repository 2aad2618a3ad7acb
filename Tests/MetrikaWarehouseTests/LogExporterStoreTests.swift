import Foundation
import MetrikaModel
import MetrikaStore
import Testing

@testable import MetrikaAPI
@testable import MetrikaWarehouse

/// A history database that fails while the exporter forgets a request is said, never passed over
/// (issue 31 item 3): the run's outcome stands, and the note says what a re-run does.
@Suite("Log exporter and a failing history database")
struct LogExporterStoreTests {
    /// A progress store that keeps everything in memory but cannot forget a job (a read-only file).
    final class UnforgettingStore: LogProgressStore, @unchecked Sendable {
        let memory: MemoryProgressStore
        init(_ jobs: [LogJob] = []) { memory = MemoryProgressStore(jobs) }

        func job(counterID: Int, source: LogSource, from: Day, to: Day, fields: String, destination: String) throws
            -> LogJob?
        {
            try memory.job(
                counterID: counterID, source: source, from: from, to: to, fields: fields, destination: destination)
        }
        func saveJob(_ job: LogJob) throws { try memory.saveJob(job) }
        func markLoaded(requestID: Int, part: Int) throws { try memory.markLoaded(requestID: requestID, part: part) }
        func removeJob(requestID: Int) throws { throw StoreError(.readOnly, path: "/data/h.sqlite") }
        func jobs(counterID: Int) throws -> [LogJob] { try memory.jobs(counterID: counterID) }
        func recordLoaded(counterID: Int, source: LogSource, destination: String, from: Day, to: Day, at: Date) throws {
            try memory.recordLoaded(
                counterID: counterID, source: source, destination: destination, from: from, to: to, at: at)
        }
        func load(counterID: Int, source: LogSource, destination: String) throws -> LogLoad? {
            try memory.load(counterID: counterID, source: source, destination: destination)
        }
        func loads(counterID: Int) throws -> [LogLoad] { try memory.loads(counterID: counterID) }
    }

    static let warning = "Warning: the history database could not forget log request 7 ("

    @Test func aFinishedExportWhoseRequestCannotBeForgottenStillSucceedsAndSaysSo() async throws {
        let api = FakeLogsAPI(parts: [0, 1])
        let sleeper = SleepRecorder()
        let notes = NoteRecorder()
        let destination = RecordingDestination(keepsEarlierParts: false)
        let exporter = Fixture.exporter(
            client: Fixture.client(api: api, parts: FakePartServer(), sleeper: sleeper), destination: destination,
            store: UnforgettingStore(),
            notes: notes, sleeper: sleeper)

        let summary = try await exporter.run(Fixture.range)

        #expect(summary.parts == 2)
        #expect(destination.events.last == "finish")
        let line = try #require(notes.lines.first { $0.hasPrefix(Self.warning) }, "\(notes.lines)")
        #expect(line.hasSuffix("); a re-run with the same arguments orders a new log."))
        #expect(line.contains("/data/h.sqlite"))
    }
}
