import MetrikaModel
import MetrikaRender

/// `metrika counters`: the counters the token can see.
enum CountersCommand: Command {
    static let name = "counters"
    static let summary = "List the counters you can read: id, name, site, status, permission"
    static let synopses: [[UsageTerm]] = [[.optional([.option("search")]), .optional([.option("status")]), .optional([.option("format")])]]
    static let discussion = """
    Examples:
      metrika counters
      metrika counters --search shop --csv
    """
    static let options: [OptionSpec] = [
        OptionSpec("search", value: "TEXT", help: "Only counters whose id, name or site contains TEXT"),
        OptionSpec("status", value: "active|deleted", help: "Counters of this status (default active)"),
    ] + FormatOptions.specs + TokenOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let output = try FormatOptions.parse(options, toTerminal: context.stdoutIsTerminal)
        let (format, csv) = (output.format, output.csv)
        var status: String?
        if let text = options.value("status") {
            switch text.lowercased() {
            case "active": status = "Active"
            case "deleted": status = "Deleted"
            default: throw UsageError("--status must be active or deleted, not '\(text)'")
            }
        }
        let client = try session.client()
        let (counters, warning) = try await client.fetchCounterList(search: options.value("search"), status: status)
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
