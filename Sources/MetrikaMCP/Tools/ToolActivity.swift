import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem
import MetrikaUseCases
import Synchronization

/// A use case's `Activity` during one tool call: the notes it makes (a sampled answer, a range that
/// starts on the counter's creation day) are kept for the answer's text, since the person reading
/// stderr is a model here; the progress line's text is not sent (the rows so far are, by
/// `ReportWindow`), but work over counted items (an alert check's counters, a portfolio's) goes to
/// the call's progress notifications as it goes, when the call asked for them (`call`).
final class ToolActivity: Activity {
    let now: @Sendable () -> Date
    private let notes = Mutex<[String]>([])
    private let call: (any MCPCallActivity)?

    var naming: ParameterNaming { .mcp }

    init(now: @escaping @Sendable () -> Date, call: (any MCPCallActivity)? = nil) {
        self.now = now
        self.call = call
    }

    /// `checking: 12/1000 counters` as a progress notification (throttled by the server).
    func progress(_ text: String, done: Int, total: Int) {
        call?.progress(Double(done), total: Double(total), message: text)
    }

    func note(_ line: String) {
        notes.withLock { if $0.count < 50 { $0.append(line) } }
    }

    func progress(_ text: String, force: Bool) {}
    func endProgress() {}

    /// The notes so far, in order.
    var lines: [String] { notes.withLock { $0 } }
}

/// The rows of a report that one answer shows: of each counter's section, `skip` rows are passed
/// over (a time series continued by `offset`: the history gives every day) and at most `take` go to
/// the sinks, and none once the JSON text holds `byteBudget` bytes (`jsonBytes` says how many it
/// holds). Counts every row it sees, so
/// the answer knows how many there were; checks for cancellation between batches and tells the
/// client the rows so far.
final class ReportWindow: ReportSink {
    private let targets: [any ReportSink]
    private let skip: Int
    private let take: Int
    private let jsonBytes: () -> Int
    private let byteBudget: Int
    private let progress: (Int) -> Void
    private var seen = 0
    private var shown = 0
    /// The most rows any section had, and the most shown of one.
    private(set) var rowsSeen = 0
    private(set) var rowsShown = 0
    /// Whether rows were held back because the answer reached its byte budget.
    private(set) var cutByBytes = false
    private var delivered = 0

    init(
        _ targets: [any ReportSink], skip: Int, take: Int, jsonBytes: @escaping () -> Int, byteBudget: Int,
        progress: @escaping (Int) -> Void
    ) {
        self.targets = targets
        self.skip = skip
        self.take = take
        self.jsonBytes = jsonBytes
        self.byteBudget = byteBudget
        self.progress = progress
    }

    /// A window whose JSON is `json`'s text (`report --json`'s sink writing into it).
    convenience init(
        _ targets: [any ReportSink], skip: Int, take: Int, json: OutputWriter, byteBudget: Int,
        progress: @escaping (Int) -> Void
    ) {
        self.init(
            targets, skip: skip, take: take, jsonBytes: { json.byteCount }, byteBudget: byteBudget, progress: progress)
    }

    func begin(_ layout: ReportLayout) throws { for target in targets { try target.begin(layout) } }

    func beginSection(counter: Counter, sampling: Sampling?) throws {
        seen = 0
        shown = 0
        for target in targets { try target.beginSection(counter: counter, sampling: sampling) }
    }

    func compareSection(_ previous: Report.Previous) throws {
        for target in targets { try target.compareSection(previous) }
    }

    func append(_ rows: [Report.Row]) throws {
        if Task.isCancelled { throw CancellationError() }
        var kept: [Report.Row] = []
        for row in rows {
            seen += 1
            guard seen > skip, shown < take, !cutByBytes else { continue }
            if jsonBytes() >= byteBudget {
                cutByBytes = true
                continue
            }
            kept.append(row)
            shown += 1
            // A row at a time near the budget, so one batch cannot overshoot it by much.
            if jsonBytes() + 64 * 1024 >= byteBudget {
                for target in targets { try target.append(kept) }
                kept.removeAll()
            }
        }
        if !kept.isEmpty { for target in targets { try target.append(kept) } }
        rowsSeen = max(rowsSeen, seen)
        rowsShown = max(rowsShown, shown)
        delivered += rows.count
        progress(delivered)
    }

    /// What the report says the rows it did not give add up to (`Other (N rows)`, JSON `other` and
    /// `rows_total`, as `report --json` has them) — passed on only when this window showed every row
    /// it was given; when it held some back itself, those sums would be wrong, and `more` tells.
    func leftOut(_ rest: Report.LeftOut) throws {
        guard !cutByBytes, shown == max(0, seen - skip) else { return }
        for target in targets { try target.leftOut(rest) }
    }

    func missingMetrics(_ missing: [(metric: Metric, days: [Day])]) throws {
        for target in targets { try target.missingMetrics(missing) }
    }

    func endSection(totals: [Quantity], missingDays: [Day]) throws {
        rowsSeen = max(rowsSeen, seen)
        rowsShown = max(rowsShown, shown)
        for target in targets { try target.endSection(totals: totals, missingDays: missingDays) }
    }

    func end() throws { for target in targets { try target.end() } }
}
