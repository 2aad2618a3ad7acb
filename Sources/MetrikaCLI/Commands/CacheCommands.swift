import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaUseCases

/// `metrika cache info`: what the history database holds.
enum CacheInfoCommand: Command {
    static let name = "cache info"
    static let summary = "Show the history database: path, size, counters, date span, last sync"
    static let synopses: [[UsageTerm]] = [[.optional(.db), .optional(.format)]]
    static let options: [OptionSpec] = FormatOptions.specs + DatabaseOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let output = try FormatOptions.parse(options, toTerminal: context.stdoutIsTerminal)
        let (format, writer) = (output.format, output.csv)
        let path = session.databasePath
        guard FileManager.default.fileExists(atPath: path) else {
            // Nothing stored yet is an answer, not a failure: a fresh machine, or before the first sync.
            let out = context.stdout
            switch format {
            case .table: out.write("No history database yet at \(TerminalText.sanitize(path)): `metrika sync` or `metrika report` creates it.\n")
            case .csv: try writer.write(infoCSVHeader, to: out.writer)
            case .json:
                let document = JSONValue.object([("version", .number(1)), ("path", .string(path)), ("exists", .bool(false)), ("counters", .array([]))])
                out.write(document.serialized(pretty: true) + "\n")
            }
            return ExitCode.ok
        }
        let store = try HistoryStore(path: path, readOnly: true)
        // Its summary reads only indexes, so it would call a file with damaged values healthy: check it all.
        try store.verifyIntegrity()
        let info = try store.info()
        let out = context.stdout
        switch format {
        case .table:
            out.write("Database:     \(info.path)\n")
            out.write("Size:         \(humanSize(info.sizeBytes))\n")
            out.write("Schema:       version \(info.schemaVersion)\n")
            out.write("Last sync:    \(info.lastSync.map(timestamp) ?? "never")\n")
            out.write("Counters:     \(info.counters.count)\n")
            if !info.counters.isEmpty {
                var table = TextTable(columns: [.init("ID", alignment: .right), .init("Name"), .init("First day"), .init("Last day"), .init("Days", alignment: .right), .init("Last fetch")])
                for counter in info.counters {
                    table.append([String(counter.id), counter.name, counter.firstDay?.iso ?? "—", counter.lastDay?.iso ?? "—", String(counter.dayCount), counter.lastFetchedAt.map(timestamp) ?? "—"])
                }
                out.write("\n" + table.render(maxWidth: context.terminalWidth))
            }
        case .csv:
            try writer.write(infoCSVHeader, to: out.writer)
            for counter in info.counters {
                try writer.write([String(counter.id), counter.name, counter.firstDay?.iso ?? "", counter.lastDay?.iso ?? "", String(counter.dayCount), counter.lastFetchedAt.map(timestamp) ?? ""], to: out.writer)
            }
        case .json:
            let document = JSONValue.object([
                ("version", .number(1)),
                ("path", .string(info.path)),
                ("exists", .bool(true)),
                ("size_bytes", .number(Double(info.sizeBytes))),
                ("schema_version", .number(Double(info.schemaVersion))),
                ("last_sync", .string(info.lastSync.map(timestamp))),
                ("counters", .array(info.counters.map { counter in
                    .object([
                        ("counter_id", .number(Double(counter.id))), ("name", .string(counter.name)),
                        ("first_day", .string(counter.firstDay?.iso)), ("last_day", .string(counter.lastDay?.iso)),
                        ("days", .number(Double(counter.dayCount))), ("last_fetch", .string(counter.lastFetchedAt.map(timestamp))),
                    ])
                })),
            ])
            out.write(document.serialized(pretty: true) + "\n")
        }
        return ExitCode.ok
    }

    static let infoCSVHeader = ["counter_id", "name", "first_day", "last_day", "days", "last_fetch"]

    static func humanSize(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return DecimalText.format(Double(bytes) / 1024, fractionDigits: 1) + " KiB" }
        return DecimalText.format(Double(bytes) / 1024 / 1024, fractionDigits: 1) + " MiB"
    }

    /// UTC, ISO 8601, to the second.
    static func timestamp(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let day = Day(ordinal: Int((Double(seconds) / 86_400).rounded(.down)))
        let rest = seconds - day.ordinal * 86_400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(day.iso)T\(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))Z"
    }
}

/// `metrika cache prune --before DATE`: forget history older than a day.
enum CachePruneCommand: Command {
    static let name = "cache prune"
    static let summary = "Delete history older than a day from the history database"
    static let synopses: [[UsageTerm]] = [[.required(.before), .optional(.db)]]
    static let options: [OptionSpec] = [
        Option.before.spec,
    ] + DatabaseOptions.specs
    static let discussion = """
    Relative dates count back from today on this machine (its local time zone), not a counter's.
    A day after today is refused (exit 64): it would delete the whole history, today included.

    Example (crontab, keep a year): 0 4 1 * *  metrika cache prune --before 12monthsAgo
    """

    /// Today in the machine's time zone: the history holds several counters, each in its own zone.
    static func localToday(_ now: Date) -> Day {
        let seconds = Int(now.timeIntervalSince1970.rounded(.down)) + TimeZone.current.secondsFromGMT(for: now)
        return Day(ordinal: Int((Double(seconds) / 86_400).rounded(.down)))
    }

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        guard let text = options[.before] else { throw UsageError("Missing --before DATE") }
        let today = localToday(context.now())
        let day = try DateExpression(parsing: text, option: "before").resolve(today: today)
        try DateExpression.checkNotBeforeMetrika(day, option: "before")
        // Every stored day is before a future date: today's and yesterday's rows would go too, which
        // is never what "keep the recent history" means. Dropping everything is deleting the file.
        if day > today {
            throw UsageError("--before \(day.iso) is after today (\(today.iso)): it would delete the whole history, today included. Give a day up to today, e.g. --before 12monthsAgo; to drop everything, delete the database file")
        }
        let path = session.databasePath
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIFailure.nothingToPrune(path: path)
        }
        let store = try HistoryStore(path: path)
        // A bulk delete touches pages all over the file: refuse a damaged one before writing.
        try store.verifyIntegrity()
        let deleted = try store.prune(before: day)
        let out = context.stdout
        out.write("Deleted \(deleted) stored value\(deleted == 1 ? "" : "s") before \(day.iso).\n")
        return ExitCode.ok
    }
}

// MARK: - Options of its own

extension Option where Value == String? {
    /// `--before DATE` of `cache prune`, as written (read as a date expression with today's day).
    static var before: Option<String?> {
        .text("before", value: "DATE", help: "Delete daily values of days before this one (YYYY-MM-DD, NdaysAgo, NweeksAgo, NmonthsAgo)")
    }
}
