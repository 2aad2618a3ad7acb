import MetrikaModel

/// What stopped a Logs API export (`LogExporter`), in words a user can act on. The cases carry the
/// request, counter and part; the one-line message (its commands and options in the entry point's
/// words) and the exit status are derived here only.
package enum LogExportError: WordedFailure, Equatable {
    /// Evaluate says counter `counterID` has no room for a log request (`maxDays`, the API's
    /// `max_possible_day_quantity`, below 1): its 10 GB of prepared logs is full.
    case noRoom(counterID: Int, maxDays: Int)
    /// Log request `request` is processed but lists no parts.
    case noParts(request: Int)
    /// Log request `request` ended as `status` (as shown) instead of processed.
    case requestEnded(request: Int, status: String)
    /// Log request `request` was still not processed after `polls` polls.
    case notProcessed(request: Int, polls: Int)
    /// A row of part `part` (1-based, of `count`) of log request `request` cannot be loaded.
    case badRow(LogRowProblem, request: Int, part: Int, of: Int)

    package var exitCode: Int32 {
        switch self {
        case .noRoom: return ExitCode.tryLater
        case .noParts, .badRow: return ExitCode.dataError
        case .requestEnded, .notProcessed: return ExitCode.unavailable
        }
    }

    package func message(_ naming: ParameterNaming) -> String {
        switch self {
        case .noRoom(let counterID, let maxDays):
            return
                "counter \(counterID) has no room for a log request now (max_possible_day_quantity \(maxDays)): its 10 GB of prepared logs is full. "
                + "Run `\(naming.action(.cleanLogs(counterID: counterID)))` to free it."
        case .noParts(let request):
            return "log request \(request) is processed but lists no parts; run again to order a new one."
        case .requestEnded(let request, let status):
            return "log request \(request) ended as \(status) instead of processed; run again to order a new one."
        case .notProcessed(let request, let polls):
            return "log request \(request) was not processed after \(polls) polls; run again later to resume it."
        case .badRow(let problem, let request, let part, let count):
            return problem.message(request: request, part: part, of: count, naming: naming)
        }
    }
}
