import Foundation
import MetrikaRender

/// What a client that reads only `structuredContent` hands the model. Claude Code and VS Code pass
/// on `JSON.stringify(structuredContent)` alone when a result has one, and drop the text blocks,
/// while Claude.ai and most SDK-based agents read the text blocks: so each view must be complete on
/// its own. Two rules, MCP-only (the CLI's `--json` keeps its document as docs/json.md says):
/// - every note the text adds for a model (a period not over yet, sampling, a metric the history
///   lacks, rows left out and how to get them, a counter that could not be read) is also the
///   document's `notes` array of sentences;
/// - numbers keep `decimals` decimal places, two more than any table shows (rates 1, money and
///   pages per visit 2, durations none), so nothing a model reads is lost and a rate is not 17 digits.
enum StructuredView {
    static let decimals = 4

    /// The document with `notes` added at its end (none when there are no notes).
    static func adding(notes: [String], to document: JSONValue) -> JSONValue {
        guard !notes.isEmpty, case .object(var members) = document else { return document }
        members.removeAll { $0.0 == "notes" }
        members.append(("notes", .array(notes.map { .string($0) })))
        return .object(members)
    }

    /// Every number rounded to `decimals` places (half away from zero); integers and strings as they are.
    static func compact(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let number):
            guard number.isFinite, number.rounded() != number, abs(number) < 1e12 else { return value }
            let scale = pow(10, Double(decimals))
            return .number((number * scale).rounded() / scale)
        case .array(let items): return .array(items.map(compact))
        case .object(let members): return .object(members.map { ($0.0, compact($0.1)) })
        default: return value
        }
    }

    /// get_report's document as its structured view gives it: the `query` echo left out (the model's
    /// own arguments again; `period` says the days they meant, `columns` the API's names), a row's
    /// `"incomplete": false` left out (only a row of a period not over yet says it, and `notes` does)
    /// and a counter's empty `missing_days` (no day missing). Numbers are `compact`ed with every tool's.
    /// `ReportDocumentSink` builds the document this way from the start; this is the rule as a
    /// rewrite of `report --json`'s document, which the tests hold the built one to.
    static func report(_ document: JSONValue) -> JSONValue {
        guard case .object(let members) = document else { return document }
        return .object(
            members.compactMap { name, value in
                switch (name, value) {
                case ("query", _): return nil
                case ("rows", .array(let rows)):
                    return (name, .array(rows.map { dropping($0) { $0 == "incomplete" && $1 == .bool(false) } }))
                case ("counters", .array(let counters)):
                    return (name, .array(counters.map { dropping($0) { $0 == "missing_days" && $1 == .array([]) } }))
                default: return (name, value)
                }
            })
    }

    private static func dropping(_ value: JSONValue, where leftOut: (String, JSONValue) -> Bool) -> JSONValue {
        guard case .object(let members) = value else { return value }
        return .object(members.filter { !leftOut($0.0, $0.1) })
    }

    /// An object's member (nil when the value is no object or lacks it).
    static func member(_ name: String, of value: JSONValue) -> JSONValue? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.0 == name }?.1
    }

    /// The notes' sentences of a text: its non-empty lines.
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }
}
