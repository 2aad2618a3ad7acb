import Foundation
import MetrikaModel
import MetrikaRender
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
        let path = session.services.databasePath
        guard
            let info = try await HistoryCache(
                path: path, open: { try await session.services.openHistory(readOnly: true) }
            ).info()
        else {
            // Nothing stored yet is an answer, not a failure: a fresh machine, or before the first sync.
            let out = context.stdout
            switch format {
            case .table: out.write(CacheInfoListing.missingText(path: path, naming: .cli))
            case .csv: try writer.write(CacheInfoListing.csvHeader, to: out.writer)
            case .json: out.write(CacheInfoListing.missingJSON(path: path).serialized(pretty: true) + "\n")
            }
            return ExitCode.ok
        }
        let out = context.stdout
        switch format {
        case .table: out.write(CacheInfoListing.text(info, maxWidth: context.terminalWidth))
        case .csv:
            try writer.write(CacheInfoListing.csvHeader, to: out.writer)
            for row in CacheInfoListing.csvRows(info) { try writer.write(row, to: out.writer) }
        case .json: out.write(CacheInfoListing.json(info).serialized(pretty: true) + "\n")
        }
        return ExitCode.ok
    }
}

/// `metrika cache prune --before DATE`: forget history older than a day.
enum CachePruneCommand: Command {
    static let name = "cache prune"
    static let summary = "Delete history older than a day from the history database"
    static let synopses: [[UsageTerm]] = [[.required(.before), .optional(.db)]]
    static let options: [OptionSpec] =
        [
            Option.before.spec
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
            throw UsageError(
                "--before \(day.iso) is after today (\(today.iso)): it would delete the whole history, today included. Give a day up to today, e.g. --before 12monthsAgo; to drop everything, delete the database file"
            )
        }
        let path = session.services.databasePath
        guard
            let deleted = try await HistoryCache(path: path, open: { try await session.services.openHistory() }).prune(
                before: day)
        else {
            throw CLIFailure.nothingToPrune(path: path)
        }
        let out = context.stdout
        out.write("Deleted \(deleted) stored value\(deleted == 1 ? "" : "s") before \(day.iso).\n")
        return ExitCode.ok
    }
}

// MARK: - Options of its own

extension Option where Value == String? {
    /// `--before DATE` of `cache prune`, as written (read as a date expression with today's day).
    static var before: Option<String?> {
        .text(
            "before", value: "DATE",
            help: "Delete daily values of days before this one (YYYY-MM-DD, NdaysAgo, NweeksAgo, NmonthsAgo)")
    }
}
