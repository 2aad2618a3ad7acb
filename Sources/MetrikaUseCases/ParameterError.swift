import MetrikaModel

// A use case refuses what it was asked in terms of its parameters, never of one entry point's
// syntax: the error names a `Parameter` (a neutral identity, MetrikaModel's Wording.swift) and carries
// the data (the value, the range or the choices allowed, the parameters it contradicts); each entry
// point words it with its own `ParameterNaming` — the CLI says `--from`, the MCP server `from`, a chat
// bot its command's words.

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
    package init(
        _ parameter: Parameter, _ problem: Problem, _ sentence: @escaping @Sendable (ParameterNaming) -> String
    ) {
        self.parameter = parameter
        self.problem = problem
        self.sentence = sentence
    }

    /// One line (what the user typed may hold control characters: they become spaces, as in `UsageError`).
    package func message(_ naming: ParameterNaming) -> String { UsageError(sentence(naming)).message }

    package var exitCode: Int32 { ExitCode.usage }
}
