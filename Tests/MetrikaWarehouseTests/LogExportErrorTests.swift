import Foundation
import MetrikaCLI
import MetrikaModel
import Testing

@testable import MetrikaAPI
@testable import MetrikaWarehouse

/// How a Logs API export ends when the API will not give the log: each way is its own
/// `LogExportError` case carrying the counter or request, with the exit status the case decides.
@Suite("Log export errors")
struct LogExportErrorTests {
    static func exporter(
        _ api: FakeLogsAPI, store: MemoryProgressStore = MemoryProgressStore(),
        destination: RecordingDestination = RecordingDestination(keepsEarlierParts: false)
    )
        -> LogExporter
    {
        let sleeper = SleepRecorder()
        return Fixture.exporter(
            client: Fixture.client(api: api, parts: FakePartServer(), sleeper: sleeper), destination: destination,
            store: store,
            notes: NoteRecorder(), sleeper: sleeper)
    }

    @Test func aCounterWithoutRoomForARequestIsToldToCleanBeforeAnythingIsOrdered() async throws {
        let api = FakeLogsAPI(parts: [0])
        api.evaluation = (possible: false, maxDays: 0)
        let failure = await #expect(throws: LogExportError.noRoom(counterID: 1001, maxDays: 0)) {
            try await Self.exporter(api).run(Fixture.range)
        }
        #expect(failure?.exitCode == ExitCode.tryLater)
        #expect(failure?.message(.cli).contains("`metrika logs --counter 1001 --clean-all`") == true)
        #expect(api.calls == ["GET /logrequests/evaluate"])
    }

    @Test func aProcessedRequestWithoutPartsIsDataTheAPIGotWrong() async throws {
        let api = FakeLogsAPI(parts: [])
        let destination = RecordingDestination(keepsEarlierParts: false)
        let failure = await #expect(throws: LogExportError.noParts(request: 7)) {
            try await Self.exporter(api, destination: destination).run(Fixture.range)
        }
        #expect(failure?.exitCode == ExitCode.dataError)
        #expect(!destination.events.contains { $0.hasPrefix("commit") })
    }

    @Test func aRequestThatEndsOtherwiseThanProcessedIsForgotten() async throws {
        let api = FakeLogsAPI(parts: [0])
        api.endsAs = "processing_failed"
        let store = MemoryProgressStore()
        let failure = await #expect(throws: LogExportError.requestEnded(request: 7, status: "processing_failed")) {
            try await Self.exporter(api, store: store).run(Fixture.range)
        }
        #expect(failure?.exitCode == ExitCode.unavailable)
        #expect(
            failure?.message
                == "log request 7 ended as processing_failed instead of processed; run again to order a new one.")
        #expect(store.jobs.isEmpty)
    }

    @Test func aRequestNeverProcessedStopsAfterThePollsAndIsKeptForTheNextRun() async throws {
        let api = FakeLogsAPI(parts: [0])
        api.endsAs = "created"
        let store = MemoryProgressStore()
        var exporter = Self.exporter(api, store: store)
        exporter.maxPolls = 3
        let failure = await #expect(throws: LogExportError.notProcessed(request: 7, polls: 3)) {
            try await exporter.run(Fixture.range)
        }
        #expect(failure?.exitCode == ExitCode.unavailable)
        #expect(api.calls.filter { $0 == "GET /logrequest/7" }.count >= 3)
    }
}
