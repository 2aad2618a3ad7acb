import Foundation
import MetrikaModel

/// `metrika cache info`: what the history database holds, as a table, CSV or JSON (times in UTC,
/// `RFC3339.format`: the one timestamp text of lists, `alert --status`'s too).
package enum CacheInfoListing {
    package static let csvHeader = ["counter_id", "name", "first_day", "last_day", "days", "last_fetch"]

    /// No database at `path` yet: what the table says (it is an answer, not a failure), naming what
    /// creates it in the entry point's words.
    package static func missingText(path: String, naming: ParameterNaming) -> String {
        "No history database yet at \(TerminalText.sanitize(path)): \(naming.action(.createHistory)) creates it.\n"
    }

    /// The JSON of no database at `path`.
    package static func missingJSON(path: String) -> JSONValue {
        .object([("version", .number(1)), ("path", .string(path)), ("exists", .bool(false)), ("counters", .array([]))])
    }

    /// The summary lines and, when counters are stored, their table (fitted to `maxWidth`).
    package static func text(_ info: CacheInfo, maxWidth: Int?) -> String {
        var text = "Database:     \(info.path)\n"
        text += "Size:         \(humanSize(info.sizeBytes))\n"
        text += "Schema:       version \(info.schemaVersion)\n"
        text += "Last sync:    \(info.lastSync.map(RFC3339.format) ?? "never")\n"
        text += "Counters:     \(info.counters.count)\n"
        if !info.counters.isEmpty {
            var table = TextTable(columns: [
                .init("ID", alignment: .right), .init("Name"), .init("First day"), .init("Last day"),
                .init("Days", alignment: .right), .init("Last fetch")
            ])
            for counter in info.counters {
                table.append([
                    String(counter.id), counter.name, counter.firstDay?.iso ?? "—", counter.lastDay?.iso ?? "—",
                    String(counter.dayCount), counter.lastFetchedAt.map(RFC3339.format) ?? "—"
                ])
            }
            text += "\n" + table.render(maxWidth: maxWidth)
        }
        return text
    }

    package static func csvRows(_ info: CacheInfo) -> [[String]] {
        info.counters.map { counter in
            [
                String(counter.id), counter.name, counter.firstDay?.iso ?? "", counter.lastDay?.iso ?? "",
                String(counter.dayCount), counter.lastFetchedAt.map(RFC3339.format) ?? ""
            ]
        }
    }

    package static func json(_ info: CacheInfo) -> JSONValue {
        .object([
            ("version", .number(1)),
            ("path", .string(info.path)),
            ("exists", .bool(true)),
            ("size_bytes", .number(Double(info.sizeBytes))),
            ("schema_version", .number(Double(info.schemaVersion))),
            ("last_sync", .string(info.lastSync.map(RFC3339.format))),
            (
                "counters",
                .array(
                    info.counters.map { counter in
                        .object([
                            ("counter_id", .number(Double(counter.id))), ("name", .string(counter.name)),
                            ("first_day", .string(counter.firstDay?.iso)), ("last_day", .string(counter.lastDay?.iso)),
                            ("days", .number(Double(counter.dayCount))),
                            ("last_fetch", .string(counter.lastFetchedAt.map(RFC3339.format)))
                        ])
                    })
            )
        ])
    }

    /// `512 B`, `1.5 KiB`, `12.0 MiB`.
    package static func humanSize(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return DecimalText.format(Double(bytes) / 1024, fractionDigits: 1) + " KiB" }
        return DecimalText.format(Double(bytes) / 1024 / 1024, fractionDigits: 1) + " MiB"
    }
}
