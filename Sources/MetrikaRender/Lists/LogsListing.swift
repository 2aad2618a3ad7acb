import Foundation
import MetrikaModel

/// `metrika logs --list`: a counter's log requests, then what each table holds (the loaded days as
/// ranges, the gaps between them, rows, the last load) — aligned tables on a terminal (sizes in MB),
/// TSV in a pipe (sizes in bytes), or one JSON object.
package struct LogsListing: Sendable {
    /// One log request as the Logs API lists it.
    package struct Request: Sendable {
        package var requestID: Int
        package var status: String
        package var source: String?
        package var date1: String?
        package var date2: String?
        package var size: Int?

        package init(requestID: Int, status: String, source: String?, date1: String?, date2: String?, size: Int?) {
            (self.requestID, self.status, self.source, self.date1, self.date2, self.size) = (
                requestID, status, source, date1, date2, size
            )
        }
    }

    /// What one table holds of the counter's logs.
    package struct Load: Sendable {
        package var source: LogSource
        /// `127.0.0.1:8123/metrika.visits`, or a file's path.
        package var loadedInto: String
        package var firstDay: Day
        package var lastDay: Day
        package var loadedAt: Date
        package var rows: Int?
        /// The days loaded, as ranges; the days missing between them.
        package var loaded: [DateRange]
        package var missing: [DateRange]

        package init(
            source: LogSource, loadedInto: String, firstDay: Day, lastDay: Day, loadedAt: Date, rows: Int?,
            loaded: [DateRange], missing: [DateRange]
        ) {
            self.source = source
            self.loadedInto = loadedInto
            self.firstDay = firstDay
            self.lastDay = lastDay
            self.loadedAt = loadedAt
            self.rows = rows
            self.loaded = loaded
            self.missing = missing
        }
    }

    package var counterID: Int
    package var requests: [Request]
    package var loads: [Load]

    package init(counterID: Int, requests: [Request], loads: [Load]) {
        self.counterID = counterID
        self.requests = requests
        self.loads = loads
    }

    /// What a terminal shows when the counter has no requests (a note, not data).
    package var noRequestsText: String { "Counter \(counterID) has no log requests." }

    /// `2026-05-20…2026-05-29`, or one day alone.
    package static func text(_ range: DateRange) -> String {
        range.from == range.to ? range.from.iso : "\(range.from.iso)…\(range.to.iso)"
    }

    /// `2026-05-20/2026-05-29` (ISO 8601).
    package static func interval(_ range: DateRange) -> String { "\(range.from.iso)/\(range.to.iso)" }

    /// The requests' table; nil when there are none.
    package func requestsTable() -> TextTable? {
        guard !requests.isEmpty else { return nil }
        var table = TextTable(columns: [
            .init("Request", alignment: .right), .init("Status"), .init("Source"), .init("From"), .init("To"),
            .init("Size", alignment: .right)
        ])
        for request in requests {
            table.append([
                String(request.requestID), request.status, request.source ?? "", request.date1 ?? "",
                request.date2 ?? "",
                request.size.map { ByteSize.megabytes($0) + " MB" } ?? ""
            ])
        }
        return table
    }

    /// The loads' table; nil when nothing was loaded.
    package func loadsTable() -> TextTable? {
        guard !loads.isEmpty else { return nil }
        var table = TextTable(columns: [
            .init("Source"), .init("Loaded into"), .init("Days"), .init("Rows", alignment: .right), .init("Last load")
        ])
        for load in loads {
            let days =
                load.loaded.map(Self.text).joined(separator: ", ")
                + (load.missing.isEmpty ? "" : "; missing " + load.missing.map(Self.text).joined(separator: ", "))
            table.append([
                load.source.rawValue, load.loadedInto, days, load.rows.map { DigitGroups.group(String($0)) } ?? "?",
                RFC3339.format(load.loadedAt)
            ])
        }
        return table
    }

    /// The TSV of a pipe: the requests, then (after an empty line) the loads when there are any.
    package func tsv() -> String {
        var text = "request_id\tstatus\tsource\tdate1\tdate2\tsize\n"
        for request in requests {
            let cells = [
                String(request.requestID), request.status, request.source ?? "", request.date1 ?? "",
                request.date2 ?? "", request.size.map(String.init) ?? ""
            ]
            text += cells.map { TerminalText.quote($0) }.joined(separator: "\t") + "\n"
        }
        if !loads.isEmpty {
            // first_day…last_day spans the loads; `loaded` and `missing` are ISO 8601 intervals (a/b), comma-separated.
            text += "\nsource\tloaded_into\tfirst_day\tlast_day\tloaded_at\trows\tloaded\tmissing\n"
            for load in loads {
                let cells = [
                    load.source.rawValue, load.loadedInto, load.firstDay.iso, load.lastDay.iso,
                    RFC3339.format(load.loadedAt), load.rows.map(String.init) ?? "",
                    load.loaded.map(Self.interval).joined(separator: ","),
                    load.missing.map(Self.interval).joined(separator: ",")
                ]
                text += cells.map { TerminalText.quote($0) }.joined(separator: "\t") + "\n"
            }
        }
        return text
    }

    /// `{"requests": [...], "loads": [...]}`: every value as in the TSV, ranges as `{"from", "to"}`.
    package func json() -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        func ranges(_ list: [DateRange]) -> JSONValue {
            .array(list.map { .object([("from", .string($0.from.iso)), ("to", .string($0.to.iso))]) })
        }
        return .object([
            (
                "requests",
                .array(
                    requests.map { request in
                        .object([
                            ("request_id", .number(Double(request.requestID))), ("status", .string(request.status)),
                            ("source", text(request.source)),
                            ("date1", text(request.date1)), ("date2", text(request.date2)),
                            ("size", request.size.map { .number(Double($0)) } ?? .null)
                        ])
                    })
            ),
            (
                "loads",
                .array(
                    loads.map { load in
                        .object([
                            ("source", .string(load.source.rawValue)), ("loaded_into", .string(load.loadedInto)),
                            ("first_day", .string(load.firstDay.iso)),
                            ("last_day", .string(load.lastDay.iso)),
                            ("loaded_at", .string(RFC3339.format(load.loadedAt))),
                            ("rows", load.rows.map { .number(Double($0)) } ?? .null), ("loaded", ranges(load.loaded)),
                            ("missing", ranges(load.missing))
                        ])
                    })
            )
        ])
    }
}
