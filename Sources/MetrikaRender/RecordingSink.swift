import MetrikaModel

/// Holds a report's calls until every counter's data is in, then plays them into the real sink: a
/// multi-counter report whose later counter fails (403 `access_denied`, a network error) leaves
/// nothing on stdout instead of a document cut inside `rows`. Single-counter reports stream.
package final class RecordingSink: ReportSink {
    private enum Call {
        case begin(ReportLayout)
        case beginSection(Counter, Sampling?)
        case append([Report.Row])
        case endSection([Quantity], [Day])
        case leftOut(Report.LeftOut)
        case missingMetrics([(metric: Metric, days: [Day])])
        case compareSection(Report.Previous)
    }

    package init() {}

    private var calls: [Call] = []

    package func begin(_ layout: ReportLayout) { calls.append(.begin(layout)) }
    package func beginSection(counter: Counter, sampling: Sampling?) { calls.append(.beginSection(counter, sampling)) }
    package func append(_ rows: [Report.Row]) { calls.append(.append(rows)) }
    package func endSection(totals: [Quantity], missingDays: [Day]) { calls.append(.endSection(totals, missingDays)) }
    package func leftOut(_ rest: Report.LeftOut) { calls.append(.leftOut(rest)) }
    package func missingMetrics(_ missing: [(metric: Metric, days: [Day])]) { calls.append(.missingMetrics(missing)) }
    /// A compared dimension report of several counters: each section's previous period is played too.
    package func compareSection(_ previous: Report.Previous) { calls.append(.compareSection(previous)) }
    /// `end` is the real sink's: the recording is played first.
    package func end() {}

    /// Plays every recorded call into `sink`, in order (without `end`).
    package func replay(into sink: any ReportSink) throws {
        for call in calls {
            switch call {
            case .begin(let layout): try sink.begin(layout)
            case .beginSection(let counter, let sampling): try sink.beginSection(counter: counter, sampling: sampling)
            case .append(let rows): try sink.append(rows)
            case .endSection(let totals, let missing): try sink.endSection(totals: totals, missingDays: missing)
            case .leftOut(let rest): try sink.leftOut(rest)
            case .missingMetrics(let missing): try sink.missingMetrics(missing)
            case .compareSection(let previous): try sink.compareSection(previous)
            }
        }
        calls = []
    }
}
