import MetrikaModel
import MetrikaUseCases

extension ParameterNaming {
    /// The CLI's words: a parameter is its option (`unsettledDays` → `--unsettled-days`), an action
    /// the command that does it.
    static let cli = ParameterNaming(
        name: { "--" + $0.words.joined(separator: "-") },
        action: { action in
            switch action {
            case .sync(let id): return "run metrika sync --counter \(id) (or the report without --offline)"
            case .cleanLogs(let id): return "metrika logs --counter \(id) --clean-all"
            }
        })
}

/// A use case's `WordedFailure` in the CLI's words: the `UsageError` (exit 64, the usage line) of a
/// parameter error, else a failure with the CLI's message. Commands read their options through it,
/// so what they throw is what the CLI prints.
func cliWorded<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as ParameterError {
        throw UsageError(error.message(.cli))
    }
}
