import MetrikaUseCases

extension ParameterNaming {
    /// The MCP server's words: a parameter is its tool argument (`counter_ids`, `unsettled_days`),
    /// never a CLI option; an action is a tool call.
    static let mcp = ParameterNaming(
        name: { parameter in
            switch parameter {
            case .counter: return "counter_ids"
            default: return parameter.words.joined(separator: "_")
            }
        },
        action: { action in
            switch action {
            case .sync(let id): return "call get_report for counter \(id) without offline to fetch its days"
            case .cleanLogs(let id): return "clean the log requests of counter \(id) with the metrika command line"
            }
        })
}
