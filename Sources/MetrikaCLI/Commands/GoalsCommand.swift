import MetrikaAPI
import MetrikaModel
import MetrikaRender

/// `metrika goals --counter ID`: a counter's goals, whose ids the goal metrics of reports take.
enum GoalsCommand: Command {
    static let name = "goals"
    static let summary = "List a counter's goals: id, name, type"
    static let synopses: [[UsageTerm]] = [[.required(.counter), .optional(.format)]]
    static let discussion = """
        The ids are what goal metrics take: --metrics goal<ID>reaches,goal<ID>conversionRate. Reports
        title such columns with the goal's name ("Заказ оформлен — reaches").

        Examples:
          metrika goals --counter 1001
          metrika report --counter 1001 --metrics visits,goal4001reaches,goal4001conversionRate
        """
    static let options: [OptionSpec] =
        [
            CounterOptions.spec(value: "ID", help: "The counter whose goals to list")
        ] + FormatOptions.specs + TokenOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let id = try CounterOptions.one(options)
        let output = try FormatOptions.parse(options, toTerminal: context.stdoutIsTerminal)
        let (format, csv) = (output.format, output.csv)
        let client = try await session.services.client()
        let goals = try await client.fetchGoals(counterID: id)
        let out = context.stdout
        switch format {
        case .table:
            if goals.isEmpty {
                context.note(GoalListing.emptyText(counterID: id))
                return ExitCode.ok
            }
            out.write(GoalListing.table(goals).render(maxWidth: context.terminalWidth))
        case .csv:
            try csv.write(GoalListing.csvHeader, to: out.writer)
            for goal in goals { try csv.write(GoalListing.csvRow(goal), to: out.writer) }
        case .json:
            out.write(
                GoalListing.document(counterID: id, goals: goals, versioned: true).serialized(pretty: true) + "\n")
        }
        return ExitCode.ok
    }
}
