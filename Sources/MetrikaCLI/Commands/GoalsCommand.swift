import MetrikaAPI
import MetrikaModel
import MetrikaRender

/// `metrika goals --counter ID`: a counter's goals, whose ids the goal metrics of reports take.
enum GoalsCommand: Command {
    static let name = "goals"
    static let summary = "List a counter's goals: id, name, type"
    static let usage = "goals --counter ID [--format table|csv|json]"
    static let discussion = """
    The ids are what goal metrics take: --metrics goal<ID>reaches,goal<ID>conversionRate. Reports
    title such columns with the goal's name ("Заказ оформлен — reaches").

    Examples:
      metrika goals --counter 1001
      metrika report --counter 1001 --metrics visits,goal4001reaches,goal4001conversionRate
    """
    static let options: [OptionSpec] = [
        OptionSpec("counter", short: "c", value: "ID", help: "The counter whose goals to list"),
    ] + CommonOptions.format + CommonOptions.token

    static func run(_ options: ParsedOptions, context: CLIContext) async throws -> Int32 {
        guard options.positionals.isEmpty else { throw UsageError("Unexpected argument '\(options.positionals[0])'") }
        let ids = try ReportCommand.parseCounterIDs(options)
        guard ids.count == 1 else { throw UsageError("--counter takes one counter id here, not \(ids.count)") }
        let format = try OutputFormat.from(options)
        let csv = try OutputFormat.csvWriter(options, format: format, toTerminal: context.stdoutIsTerminal)
        let client = try Session(context: context, options: options).client()
        let goals = try await client.fetchGoals(counterID: ids[0])
        let out = context.stdout
        switch format {
        case .table:
            if goals.isEmpty {
                context.note("Counter \(ids[0]) has no goals.")
                return ExitCode.ok
            }
            var table = TextTable(columns: [.init("ID", alignment: .right), .init("Name"), .init("Type")])
            for goal in goals { table.append([String(goal.id), goal.name, goal.type]) }
            out.write(table.render(maxWidth: context.terminalWidth))
        case .csv:
            try csv.write(["id", "name", "type"], to: out.writer)
            for goal in goals { try csv.write([String(goal.id), goal.name, goal.type], to: out.writer) }
        case .json:
            let document = JSONValue.object([
                ("version", .number(1)),
                ("counter_id", .number(Double(ids[0]))),
                ("goals", .array(goals.map { goal in
                    .object([("id", .number(Double(goal.id))), ("name", .string(goal.name)), ("type", .string(goal.type))])
                })),
            ])
            out.write(document.serialized(pretty: true) + "\n")
        }
        return ExitCode.ok
    }

    /// Goal names for the goal metrics among `metrics`, read from the counters' goals lists — one
    /// request per counter, only when there is a goal metric, stopping once every goal is named.
    /// Best effort: a failure leaves the `Goal <ID>` titles and says so in one warning.
    static func names(for metrics: [Metric], counterIDs: [Int], client: MetrikaClient?, context: CLIContext) async -> [Int: String] {
        var wanted = Set(metrics.compactMap(\.goalID))
        guard !wanted.isEmpty, let client else { return [:] }
        var names: [Int: String] = [:]
        for id in counterIDs where !wanted.isEmpty {
            do {
                for goal in try await client.fetchGoals(counterID: id) where wanted.contains(goal.id) {
                    names[goal.id] = goal.name
                    wanted.remove(goal.id)
                }
            } catch let failure as any MetrikaFailure {
                context.note("Warning: could not read counter \(id)'s goals (\(failure.message)); goal columns keep their ids.")
                break
            } catch {
                context.note("Warning: could not read counter \(id)'s goals (\(error)); goal columns keep their ids.")
                break
            }
        }
        return names
    }
}
