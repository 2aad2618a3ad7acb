import MetrikaKit

/// `metrika report`: placeholder until the report pipeline lands.
enum ReportCommand: Command {
    static let name = "report"
    static let summary = "Statistics of one or more counters as a table, CSV or JSON"
    static let usage = "report --counter ID[,ID…] [options]"
    static let options: [OptionSpec] = [OptionSpec("counter", value: "ID", help: "Counter id(s)")] + CommonOptions.format + CommonOptions.token

    static func run(_ options: ParsedOptions, context: CLIContext) async throws -> Int32 {
        throw SimpleFailure("report is not built yet", exitCode: ExitCode.failure)
    }
}
