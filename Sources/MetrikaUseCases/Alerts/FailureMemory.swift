import Foundation
import MetrikaModel
import MetrikaStore

/// Errors said once per failure (docs/alerts.md, *Errors under cron*): a scheduled job's failures
/// kept in the history database (`HistoryStore.recordRun`). Under cron (stderr no terminal, no
/// `--verbose`) a failure that lasts one run says nothing, one that lasts two or more is said once at
/// its second run, the later failing runs say nothing and still exit non-zero, and the first run
/// without it says once that it is back, naming what was missed. A job's first run says everything.
package struct FailureMemory: Sendable {
    package let store: HistoryStore
    /// What the runs have in common: `alert --today 585858,595959,999`.
    package let job: String
    /// A terminal or `--verbose`: every failure said, every run.
    package let interactive: Bool
    package let naming: ParameterNaming
    package let now: @Sendable () -> Date

    package init(
        store: HistoryStore, job: String, interactive: Bool, naming: ParameterNaming,
        now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.job = job
        self.interactive = interactive
        self.naming = naming
        self.now = now
    }

    /// The job of an alert run: its grain and the counters it was given (all: every counter).
    package static func alertJob(today: Bool, counterIDs: [Int]) -> String {
        let counters = counterIDs.isEmpty ? "all" : counterIDs.sorted().map(String.init).joined(separator: ",")
        return "alert \(today ? "--today" : "day") \(counters)"
    }

    /// The subject of whole-run failures.
    static let run = "run"

    /// A run that failed whole with `failure`: the failure thrown when it is to be said, else its exit
    /// status returned (nothing said). Its counters' failures stay as they were.
    package func runFailed(_ failure: any MetrikaFailure) async throws -> Int32 {
        let verdict = try await store.recordRun(
            job: job,
            failures: [RunFailure(subject: Self.run, message: naming.message(of: failure), exitCode: failure.exitCode)],
            settled: { $0 == FailureMemory.run }, interactive: interactive, at: now())
        if !verdict.say.isEmpty { throw failure }
        return failure.exitCode
    }

    /// A run that went through, with the counters that failed: each failure to say is said as
    /// `Error: counter 999: …`, each failure over as `Back: …`.
    package func ran(failures: [(counterID: Int, failure: any MetrikaFailure)], note: (String) -> Void) async throws {
        let recorded = failures.map {
            RunFailure(
                subject: "counter \($0.counterID)", message: naming.message(of: $0.failure),
                exitCode: $0.failure.exitCode)
        }
        let verdict = try await store.recordRun(
            job: job, failures: recorded, settled: { _ in true }, interactive: interactive, at: now())
        for recovery in verdict.recovered { note(Self.back(recovery)) }
        for failure in verdict.say { note("Error: \(failure.subject): \(failure.message)") }
    }

    /// `Back: the alert check works again after 3 failed runs since 2026-11-30T01:05:00Z (missed: …).`
    static func back(_ recovery: RunRecovery) -> String {
        var reason = recovery.message
        while reason.hasSuffix(".") { reason.removeLast() }
        let runs = "\(recovery.runs) failed run\(recovery.runs == 1 ? "" : "s")"
        let since = RFC3339.format(recovery.since)
        let what =
            recovery.subject == run
            ? "the alert check works again after \(runs) since \(since); their"
            : "\(recovery.subject) is checked again after \(runs) since \(since); its"
        return "Back: \(what) checks were missed (\(reason))."
    }
}
