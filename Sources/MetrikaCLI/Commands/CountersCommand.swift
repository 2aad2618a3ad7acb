import MetrikaModel
import MetrikaRender

/// `metrika counters`: the counters the token can see.
enum CountersCommand: Command {
    static let name = "counters"
    static let summary = "List the counters you can read: id, name, site, status, permission"
    static let synopses: [[UsageTerm]] = [[.optional(.search), .optional(.status), .optional(.format)]]
    static let discussion = """
    Examples:
      metrika counters
      metrika counters --search shop --csv
    """
    static let options: [OptionSpec] = [
        Option.search.spec, Option.status.spec,
    ] + FormatOptions.specs + TokenOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let output = try FormatOptions.parse(options, toTerminal: context.stdoutIsTerminal)
        let (format, csv) = (output.format, output.csv)
        let status = try options[.status]
        let client = try await session.client()
        let (counters, warning) = try await client.fetchCounterList(search: options[.search], status: status?.apiValue)
        try render(counters, format: format, csv: csv, context: context)
        if let warning { context.note(warning) }
        return ExitCode.ok
    }

    static func render(_ counters: [Counter], format: OutputFormat, csv writer: CSVWriter, context: CLIContext) throws {
        let out = context.stdout
        switch format {
        case .table:
            if counters.isEmpty {
                context.note("No counters found.")
                return
            }
            var table = TextTable(columns: [
                .init("ID", alignment: .right), .init("Name"), .init("Site"), .init("Status"), .init("Permission"),
            ])
            for counter in counters {
                table.append([String(counter.id), counter.displayName, counter.site, counter.status, counter.permission])
            }
            out.write(table.render(maxWidth: context.terminalWidth))
        case .csv:
            try writer.write(["id", "name", "site", "status", "permission", "owner_login", "time_zone"], to: out.writer)
            for counter in counters {
                try writer.write([String(counter.id), counter.name, counter.site, counter.status, counter.permission, counter.ownerLogin, counter.timeZoneName], to: out.writer)
            }
        case .json:
            let document = JSONValue.object([
                ("version", .number(1)),
                ("counters", .array(counters.map { counter in
                    .object([
                        ("id", .number(Double(counter.id))),
                        ("name", .string(counter.name)),
                        ("site", .string(counter.site)),
                        ("status", .string(counter.status)),
                        ("permission", .string(counter.permission)),
                        ("owner_login", .string(counter.ownerLogin)),
                        ("time_zone", .string(counter.timeZoneName)),
                    ])
                })),
            ])
            out.write(document.serialized(pretty: true) + "\n")
        }
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
    static var search: Option<String?> { .text("search", value: "TEXT", help: "Only counters whose id, name or site contains TEXT") }
}
