import MetrikaModel
import MetrikaRender

/// What an answer costs the model that reads it, estimated as bench/mcp-answers measures it: ASCII
/// characters / 4 + other characters / 1.5 (Cyrillic costs more), over the text blocks and the
/// `structuredContent` JSON together (an image block's bytes are not text the model reads as tokens).
/// Claude Code warns above 10,000 tokens per tool result and cuts at 25,000: every tool's default
/// answer stays under `target`, and none passes `ceiling`.
package enum TokenBudget {
    /// A default answer stays under this.
    package static let target = 10_000
    /// No answer passes this.
    package static let ceiling = 25_000
    /// The most bytes of `structuredContent` an answer may hold: even at its costliest (two-byte
    /// Cyrillic, a token per 3 bytes) it leaves room for the compact text beside it.
    package static let jsonBytes = 54_000

    /// The estimated tokens of a text.
    package static func tokens(_ text: String) -> Int {
        var ascii = 0
        var other = 0
        for scalar in text.unicodeScalars {
            if scalar.isASCII { ascii += 1 } else { other += 1 }
        }
        return Int((Double(ascii) / 4 + Double(other) / 1.5).rounded(.up))
    }

    /// The estimated tokens of a tool result: its text blocks and its `structuredContent` as sent.
    package static func tokens(_ result: MCPToolResult) -> Int {
        var total = 0
        for block in result.content {
            if case .text(let text) = block { total += tokens(text) }
        }
        if let structured = result.structuredContent { total += tokens(structured.serialized()) }
        return total
    }
}

/// A report sink that passes on only the first `rows` rows of each counter's section (and all the
/// rest: layout, comparison, totals): the compact table of an answer whose JSON holds the rows.
final class HeadSink: ReportSink {
    private let target: any ReportSink
    private let rows: Int
    private var passed = 0

    init(_ target: any ReportSink, rows: Int) {
        self.target = target
        self.rows = rows
    }

    func begin(_ layout: ReportLayout) throws { try target.begin(layout) }
    func beginSection(counter: Counter, sampling: Sampling?) throws {
        passed = 0
        try target.beginSection(counter: counter, sampling: sampling)
    }
    func compareSection(_ previous: Report.Previous) throws { try target.compareSection(previous) }
    func append(_ rows: [Report.Row]) throws {
        let room = max(0, self.rows - passed)
        guard room > 0 else { return }
        let kept = Array(rows.prefix(room))
        passed += kept.count
        try target.append(kept)
    }
    func missingMetrics(_ missing: [(metric: Metric, days: [Day])]) throws { try target.missingMetrics(missing) }
    func endSection(totals: [Quantity], missingDays: [Day]) throws {
        try target.endSection(totals: totals, missingDays: missingDays)
    }
    func end() throws { try target.end() }
}
