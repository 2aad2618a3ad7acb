import MetrikaModel

// A use case refuses what it was asked in terms of its parameters, never of one entry point's
// syntax: the error names a `Parameter` (a neutral identity) and carries the data (the value, the
// range or the choices allowed, the parameters it contradicts); each entry point words it with its
// own `ParameterNaming` — the CLI says `--from`, the MCP server `from`, a chat bot its command's words.

/// A parameter of a use case by its neutral name (camelCase words: `from`, `unsettledDays`), not
/// by how any entry point spells it.
package struct Parameter: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let name: String

    package init(_ name: String) { self.name = name }
    package init(stringLiteral name: String) { self.name = name }

    /// The name's words in lower case (`unsettledDays` → unsettled, days): what entry points join.
    package var words: [String] {
        var words: [String] = []
        var current = ""
        for character in name {
            if character.isUppercase, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(Character(character.lowercased()))
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    package var description: String { name }
}

/// How one entry point names parameters and the actions it suggests in its error sentences.
package struct ParameterNaming: Sendable {
    /// The parameter as this entry point spells it (`--from`, `from`).
    package let name: @Sendable (Parameter) -> String
    /// What this entry point offers to do (`metrika sync --counter 1001`, `call get_report …`).
    package let action: @Sendable (SuggestedAction) -> String

    package init(name: @escaping @Sendable (Parameter) -> String, action: @escaping @Sendable (SuggestedAction) -> String) {
        self.name = name
        self.action = action
    }

    package subscript(_ parameter: Parameter) -> String { name(parameter) }

    /// Several parameters as alternatives (`--from/--to`).
    package func alternatives(_ parameters: Parameter...) -> String { parameters.map(name).joined(separator: "/") }

    /// Plain names, for a message outside any entry point (a warning's reason, a log line).
    package static let neutral = ParameterNaming(name: { $0.name }, action: { $0.neutralText })
}

/// An action an error sentence may suggest, worded by the entry point.
package enum SuggestedAction: Sendable, Equatable {
    /// Fill the history with counter `counterID`'s days (sync, or a report that may fetch).
    case sync(counterID: Int)
    /// Free the log requests kept on the server for counter `counterID`.
    case cleanLogs(counterID: Int)
    /// See today so far against the same hours of earlier weeks.
    case watchToday(counterID: Int)
    /// Ask the same report again with the network, so that what the history lacks is fetched (an
    /// offline report's missing days or metrics).
    case fetchOnline
    /// Explain counter `counterID`'s change against other days (its baseline had nothing).
    case compareOtherDays(counterID: Int)

    var neutralText: String {
        switch self {
        case .sync(let id): return "sync counter \(id) (or run the report online)"
        case .cleanLogs(let id): return "clean all log requests of counter \(id)"
        case .watchToday(let id): return "see today against the same hours of earlier weeks (counter \(id))"
        case .fetchOnline: return "run the report online to fetch it"
        case .compareOtherDays: return "compare with other days (against)"
        }
    }
}

/// A failure whose sentence names parameters: each entry point words it (`message(naming)`); the
/// plain `message` uses neutral names.
package protocol WordedFailure: MetrikaFailure {
    func message(_ naming: ParameterNaming) -> String
}

extension WordedFailure {
    package var message: String { message(.neutral) }
}

/// A parameter's value that cannot be asked for: exit 64 (a usage error) in every entry point.
package struct ParameterError: WordedFailure {
    /// What is wrong, with the data an entry point may word differently.
    package enum Problem: Sendable, Equatable {
        /// Not a value of the parameter's type at all.
        case malformed(value: String)
        /// A number outside what is allowed.
        case outOfRange(value: String, allowed: ClosedRange<Int>)
        /// Not one of the choices.
        case notOneOf(value: String, choices: [String])
        /// More items than allowed.
        case tooMany(count: Int, most: Int)
        /// Cannot be given together with these.
        case contradicts([Parameter])
        /// Would change nothing in this request (refused rather than silently ignored).
        case notApplicable
        /// A day outside what can be reported (before 2008, in the future, reversed, not finished).
        case badDay(value: String)
    }

    /// The parameter at fault.
    package let parameter: Parameter
    package let problem: Problem
    private let sentence: @Sendable (ParameterNaming) -> String

    /// An error about `parameter`; `sentence` words it with an entry point's naming.
    package init(_ parameter: Parameter, _ problem: Problem, _ sentence: @escaping @Sendable (ParameterNaming) -> String) {
        self.parameter = parameter
        self.problem = problem
        self.sentence = sentence
    }

    /// One line (what the user typed may hold control characters: they become spaces, as in `UsageError`).
    package func message(_ naming: ParameterNaming) -> String { UsageError(sentence(naming)).message }

    package var exitCode: Int32 { ExitCode.usage }
}

extension ParameterNaming {
    /// The message of any failure as this entry point words it.
    package func message(of failure: any MetrikaFailure) -> String {
        (failure as? any WordedFailure)?.message(self) ?? failure.message
    }
}

extension Parameter {
    // The parameters of a report (and of its chart and mail), and the dates' and logs' others.
    package static let counter: Parameter = "counter"
    package static let from: Parameter = "from"
    package static let to: Parameter = "to"
    package static let period: Parameter = "period"
    package static let group: Parameter = "group"
    package static let metrics: Parameter = "metrics"
    package static let dimensions: Parameter = "dimensions"
    package static let preset: Parameter = "preset"
    package static let filters: Parameter = "filters"
    package static let sort: Parameter = "sort"
    package static let limit: Parameter = "limit"
    package static let lang: Parameter = "lang"
    package static let accuracy: Parameter = "accuracy"
    package static let currency: Parameter = "currency"
    package static let attribution: Parameter = "attribution"
    package static let offline: Parameter = "offline"
    package static let refresh: Parameter = "refresh"
    package static let raw: Parameter = "raw"
    package static let compare: Parameter = "compare"
    package static let unsettledDays: Parameter = "unsettledDays"
    package static let fields: Parameter = "fields"
    package static let last: Parameter = "last"
}
