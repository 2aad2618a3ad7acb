import MetrikaUseCases

/// One piece of a command's usage line (`Usage: metrika report --counter ID[,ID…] [--from DATE] …`).
/// An option is named by its key and shown as the command's own option table shows it (long
/// name and placeholder from the same `OptionSpec`), so a usage line cannot name an option the
/// command does not take, nor spell its value differently from `--help`.
package indirect enum UsageTerm: Sendable {
    /// An option, by name: `--counter ID[,ID…]`, `--dry-run`.
    case option(String)
    /// `[…]`: may be left out.
    case optional([UsageTerm])
    /// `a | b`: one of these (inside `optional` or `group`).
    case oneOf([[UsageTerm]])
    /// `(…)`: a required choice.
    case group([UsageTerm])
    /// The command's argument, from its `argumentChoices`: `bash|zsh|fish`.
    case argument
    /// `[options]`: the options the line leaves out (see the option table).
    case moreOptions

    /// The option `key` must be given.
    package static func required<Value>(_ key: Option<Value>) -> UsageTerm { .option(key.name) }

    /// The option `key` may be given.
    package static func optional<Value>(_ key: Option<Value>) -> UsageTerm { .optional([.option(key.name)]) }
}

/// Renders usage lines from their terms and the command's option specs.
enum UsageLine {
    /// `name terms…`, one line per synopsis joined by ` | `. An option a term names that `specs`
    /// lacks is a broken command declaration (a test renders every command's line).
    static func render(name: String, synopses: [[UsageTerm]], specs: [OptionSpec], arguments: [String]) -> String {
        synopses.map { ([name] + $0.map { text($0, specs: specs, arguments: arguments) }).joined(separator: " ") }
            .joined(separator: " | ")
    }

    static func text(_ term: UsageTerm, specs: [OptionSpec], arguments: [String]) -> String {
        func join(_ terms: [UsageTerm]) -> String {
            terms.map { text($0, specs: specs, arguments: arguments) }.joined(separator: " ")
        }
        switch term {
        case .option(let name):
            guard let spec = specs.first(where: { $0.name == name }) else {
                preconditionFailure("a usage line names --\(name), which the command does not take")
            }
            return "--" + spec.name + (spec.valueName.map { " " + $0 } ?? "")
        case .optional(let terms): return "[" + join(terms) + "]"
        case .oneOf(let alternatives): return alternatives.map(join).joined(separator: " | ")
        case .group(let terms): return "(" + join(terms) + ")"
        case .argument: return arguments.joined(separator: "|")
        case .moreOptions: return "[options]"
        }
    }
}

extension UsageTerm {
    /// A declared parameter's option, optional in a usage line.
    static func optional<Fields>(_ declaration: ParameterDeclaration<Fields>) -> UsageTerm {
        .optional([.option(declaration.optionSpec.name)])
    }
}
