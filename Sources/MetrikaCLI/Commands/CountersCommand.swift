import MetrikaModel
import MetrikaRender
import MetrikaUseCases

/// `metrika counters`: the counters the token can see.
enum CountersCommand: Command {
    static let name = "counters"
    static let summary = "List the counters you can read: id, name, site, status, permission"
    static let synopses: [[UsageTerm]] = [[.optional(.search), .optional(.status), .optional(.format)]]
    static let discussion = """
        Examples:
          metrika counters
          metrika counters --search shop --csv
          metrika counters --profile all
        With --profile all (or NAME,NAME) the list is the union of the profiles' counters, each read by
        the profile that owns it (else the first in the config file that can read it): a Profile column
        (JSON: "profile") says which.
        """
    static let options: [OptionSpec] =
        [
            Option.search.spec, Option.status.spec
        ] + FormatOptions.specs + TokenOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let output = try FormatOptions.parse(options, toTerminal: context.stdoutIsTerminal)
        let (format, csv) = (output.format, output.csv)
        let status = try options[.status]
        let client = try await session.services.client()
        // The currency each counter's revenue is kept in, where the history has seen it (none without one).
        let history = try? await session.services.historyLoader(offline: true).store
        let (items, warning) = try await CounterList.fetch(
            client: client, search: options[.search], status: status?.apiValue, history: history)
        let out = context.stdout
        switch format {
        case .table:
            if items.isEmpty {
                context.note(CounterListing.emptyText)
            } else {
                out.write(CounterListing.table(items).render(maxWidth: context.terminalWidth))
            }
        case .csv:
            try csv.write(CounterListing.csvHeader(items), to: out.writer)
            for item in items { try csv.write(CounterListing.csvRow(item), to: out.writer) }
        case .json:
            out.write(CounterListing.document(items).serialized(pretty: true) + "\n")
        }
        if let warning { context.note(warning) }
        return ExitCode.ok
    }
}

// MARK: - Options of its own

/// `--status` of `counters`: which counters the API lists.
enum CounterStatus: String, Sendable, CaseIterable {
    case active, deleted

    /// The value of the API's `status` parameter.
    var apiValue: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}

extension Option where Value == CounterStatus? {
    /// `--status active|deleted`, in any case.
    static var status: Option<CounterStatus?> {
        .choice("status", help: "Counters of this status (default active)")
    }
}

extension Option where Value == String? {
    /// `--search TEXT` of `counters`.
    static var search: Option<String?> {
        .text("search", value: "TEXT", help: "Only counters whose id, name or site contains TEXT")
    }
}
