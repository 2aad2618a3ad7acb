import Foundation
import Testing

@testable import MetrikaStore

/// The failures of scheduled runs (tables `run_jobs`, `run_failures`, migration 14): under cron a
/// failure is said at its second run in a row, once, and its end once.
@Suite struct RunFailuresTests {
    @Test func aWholeRunFailureIsSaidAtItsSecondRunAndItsCountersWait() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        var at = Date(timeIntervalSince1970: 1_780_000_000)
        let job = "alert --today all"
        let gone = RunFailure(subject: "run", message: "The Metrika API is unavailable.", exitCode: 69)
        let unread = RunFailure(subject: "counter 999", message: "No access to counter 999.", exitCode: 77)
        func record(_ failures: [RunFailure], wholeRun: Bool = false) async throws -> RunFailureVerdict {
            at += 3_600
            return try await store.recordRun(
                job: job, failures: failures, settled: { wholeRun ? $0 == "run" : true }, interactive: false, at: at)
        }
        // The job's first run says what fails.
        #expect(try await record([unread]).say == [unread])
        #expect(try await record([]).recovered.map(\.subject) == ["counter 999"], "its end said once")
        #expect(try await record([unread]) == RunFailureVerdict(quiet: [unread]), "one run: nothing said")
        // The API gone for three runs: said at the second; counter 999's failure waits, not over.
        #expect(try await record([gone], wholeRun: true) == RunFailureVerdict(quiet: [gone]))
        #expect(try await record([gone], wholeRun: true).say == [gone])
        #expect(try await record([gone], wholeRun: true) == RunFailureVerdict(quiet: [gone]))
        let back = try await record([unread])
        #expect(back.recovered.map(\.subject) == ["run"] && back.recovered.first?.runs == 3)
        #expect(back.say == [unread], "counter 999's second failing run")
        // Interactive runs say everything.
        let terminal = try await store.recordRun(
            job: job, failures: [unread], settled: { _ in true }, interactive: true, at: at + 60)
        #expect(terminal.say == [unread])
    }
}
