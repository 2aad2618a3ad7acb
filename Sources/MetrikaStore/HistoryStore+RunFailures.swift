import Foundation

/// One failure of a scheduled run, as the run found it: what failed (`subject`: `run`, `counter
/// 999`), its one-line message and its exit status.
package struct RunFailure: Sendable, Equatable {
    package var subject: String
    package var message: String
    package var exitCode: Int32

    package init(subject: String, message: String, exitCode: Int32) {
        self.subject = subject
        self.message = message
        self.exitCode = exitCode
    }
}

/// A failure that had been said and is over.
package struct RunRecovery: Sendable, Equatable {
    package var subject: String
    /// The failure's message as last said.
    package var message: String
    /// The failing runs in a row.
    package var runs: Int
    package var since: Date
}

/// What a run of a job must say about its failures (`HistoryStore.recordRun`).
package struct RunFailureVerdict: Sendable, Equatable {
    /// Failures to say now, in the order given.
    package var say: [RunFailure] = []
    /// Failures said before and over now.
    package var recovered: [RunRecovery] = []
    /// Failures held back (the first failing run of a job that ran before, or said already).
    package var quiet: [RunFailure] = []
}

/// The history database remembers the failures of scheduled runs (tables `run_jobs`, `run_failures`),
/// so that under cron each failure is said once (docs/alerts.md, *Errors under cron*).
extension HistoryStore {
    /// Records a run of `job` with its `failures` and decides what it says. A job that ran before (and
    /// `interactive` false: cron's stderr is mailed) says a failure once, at its second run in a row,
    /// and nothing at the first or the later ones; a failure said and not found by this run is
    /// recovered (unless `settled` leaves its subject unknown: a run stopped wholesale says nothing
    /// of its counters). `interactive` runs, and a job's first run ever, say every failure.
    package func recordRun(
        job: String, failures: [RunFailure], settled: @escaping @Sendable (String) -> Bool, interactive: Bool,
        at date: Date
    ) async throws -> RunFailureVerdict {
        try await withLock { database in
            try database.inTransaction {
                let now = date.timeIntervalSince1970
                let ranBefore =
                    try database.scalar(
                        "SELECT last_run_at FROM run_jobs WHERE job = ?", [.text(job)]) != nil
                let quietable = ranBefore && !interactive
                var verdict = RunFailureVerdict()
                var seen: Set<String> = []
                for failure in failures where seen.insert(failure.subject).inserted {
                    let row = try database.rows(
                        "SELECT runs, said_at FROM run_failures WHERE job = ? AND subject = ?",
                        [.text(job), .text(failure.subject)]
                    ).first
                    let runs = (row?[0].int ?? 0) + 1
                    let said = row.map { $0[1] != .null } ?? false
                    let say = !quietable || (!said && runs >= 2)
                    try database.execute(
                        """
                        INSERT INTO run_failures (job, subject, message, exit_code, first_at, last_at, runs, said_at)
                        VALUES (?, ?, ?, ?, ?, ?, 1, ?)
                        ON CONFLICT (job, subject) DO UPDATE SET message = excluded.message,
                            exit_code = excluded.exit_code, last_at = excluded.last_at, runs = runs + 1,
                            said_at = coalesce(said_at, excluded.said_at)
                        """,
                        [
                            .text(job), .text(failure.subject), .text(failure.message), .int(Int(failure.exitCode)),
                            .real(now), .real(now), say ? .real(now) : .null
                        ])
                    if say { verdict.say.append(failure) } else { verdict.quiet.append(failure) }
                }
                let open = try database.rows(
                    """
                    SELECT subject, message, runs, first_at, said_at FROM run_failures WHERE job = ?
                    ORDER BY first_at, subject
                    """,
                    [.text(job)])
                for row in open {
                    guard let subject = row[0].string, !seen.contains(subject), settled(subject) else { continue }
                    try database.execute(
                        "DELETE FROM run_failures WHERE job = ? AND subject = ?", [.text(job), .text(subject)])
                    if row[4] != .null {
                        verdict.recovered.append(
                            RunRecovery(
                                subject: subject, message: row[1].string ?? "", runs: row[2].int ?? 1,
                                since: Date(timeIntervalSince1970: row[3].double ?? now)))
                    }
                }
                try database.execute(
                    """
                    INSERT INTO run_jobs (job, last_run_at) VALUES (?, ?)
                    ON CONFLICT (job) DO UPDATE SET last_run_at = excluded.last_run_at
                    """, [.text(job), .real(now)])
                return verdict
            }
        }
    }
}
