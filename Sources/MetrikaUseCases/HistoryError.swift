import MetrikaModel

/// What stops a report from the history (`HistoryLoader`) before any number is read: a counter or a
/// currency the history does not know. The cases carry the counter; the one-line message and the
/// exit status are derived here only.
package enum HistoryError: WordedFailure, Equatable {
    /// The API's answer did not name the currency counter `counterID` keeps its revenue in.
    case currencyNotSaid(counterID: Int)
    /// Offline, and the history has never learnt counter `counterID`'s currency.
    case currencyUnknown(counterID: Int)
    /// Offline, and counter `counterID` is not in the history at `database`.
    case counterNotInHistory(counterID: Int, database: String)

    package var exitCode: Int32 {
        switch self {
        case .currencyNotSaid: return ExitCode.dataError
        // Nothing was unavailable: the history was never filled for it. A configuration matter.
        case .currencyUnknown, .counterNotInHistory: return ExitCode.config
        }
    }

    package func message(_ naming: ParameterNaming) -> String {
        switch self {
        case .currencyNotSaid(let id):
            return
                "the API did not say which currency counter \(id) keeps its revenue in; pass \(naming[.currency]) RUB, USD, EUR or YND."
        case .currencyUnknown(let id):
            return
                "the history does not know counter \(id)'s currency yet; pass \(naming[.currency]) RUB, USD, EUR or YND, or run once without \(naming[.offline])."
        case .counterNotInHistory(let id, let database):
            return "counter \(id) is not in the history (\(database)); \(naming.action(.sync(counterID: id))) first."
        }
    }
}
