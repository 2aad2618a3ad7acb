import Foundation
import MetrikaAPI
import MetrikaModel

/// Where the rows of `metrika logs` go: a TSV file (or stdout) or a ClickHouse table.
///
/// The exporter calls `load` once per part with a `feed` that runs the download and hands every chunk
/// of the part (header line included) to the writer it is given; `commitRange` after the last part
/// of a date range, `finish` after the last range. Nothing is held whole: a chunk is at most 64 KiB.
///
/// A part whose download fails transiently is fetched again: the exporter first calls `discardPart`,
/// which takes back what the failed attempt wrote, then `load` again, so its rows are replaced, never
/// duplicated.
package protocol LogDestination: Sendable {
    /// A range starts; `resuming` when earlier parts of it were loaded by an interrupted run. Returns
    /// whether those parts are still there (false: load every part again).
    func beginRange(from: Day, to: Day, resuming: Bool) async throws -> Bool
    /// Loads part `part` (the API's number, 0-based; users read it as `part + 1 of count`) of the
    /// range `from…to`.
    func load(part: Int, of count: Int, from: Day, to: Day, feed: (StreamWriter) async throws -> Void) async throws
    /// The last `load` of `part` failed: undo what it wrote so that `load` can run again. False when
    /// that cannot be done (bytes already went into a pipe): the part is then not retried.
    func discardPart(part: Int, from: Day, to: Day) async -> Bool
    /// Every part of `from…to` is loaded: make the range visible (replace what was there).
    func commitRange(from: Day, to: Day, parts: Int) async throws
    /// The run succeeded.
    func finish() async throws
    /// The run failed: drop anything half-written that a re-run cannot reuse.
    func abandon()
    /// Whether the days loaded here are remembered (`LogProgressStore.recordLoaded`) so that a run
    /// without dates continues from them: a table keeps what earlier runs loaded, a file does not.
    var remembersLoadedDays: Bool { get }
    /// A kept range of an earlier failed run will not be resumed (a newer range covers its days):
    /// drop what that run left for its resume.
    func discardRange(from: Day, to: Day) async throws
    /// The rows each day of `from…to` holds now (after `commitRange`), for `--list`; nil when the
    /// destination does not count them (a file).
    func rowsPerDay(from: Day, to: Day) async throws -> [Day: Int]?
}

extension LogDestination {
    package var remembersLoadedDays: Bool { false }
    package func discardRange(from: Day, to: Day) async throws {}
    package func rowsPerDay(from: Day, to: Day) async throws -> [Day: Int]? { nil }
}
