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
            case .watchToday(let id): return "see today against the same hours of earlier weeks with `metrika live --counter \(id)`"
            case .fetchOnline: return "run without --offline to fetch it"
            case .compareOtherDays(let id): return "compare with other days: metrika explain --counter \(id) --against previous (or DATE..DATE)"
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

extension ParameterDeclaration {
    /// The CLI option of a declared parameter: `--` and its words joined by `-`, its value's name,
    /// the help for a person, the completions. Help, the usage line, completions and the man page
    /// read it as they read every `OptionSpec`.
    var optionSpec: OptionSpec {
        let name = String(ParameterNaming.cli[parameter].dropFirst(2))
        if shape == .flag { return OptionSpec(name, short: short, help: help(.cli)) }
        return OptionSpec(name, short: short, value: valueName, help: help(.cli), choices: completions)
    }
}

extension ParsedOptions {
    /// What the command line held for a declared parameter, as the words its `read` takes: nil when
    /// not given, none for a flag; a list's comma lists split, a single value's last one.
    func words<Fields>(for declaration: ParameterDeclaration<Fields>) -> [String]? {
        let name = declaration.optionSpec.name
        switch declaration.shape {
        case .flag: return flags.contains(name) ? [] : nil
        case .list, .ids: return values[name].map { Self.split($0) }
        case .text, .integer: return values[name]?.last.map { [$0] }
        }
    }

    /// Reads every declared parameter that was given into `fields`, in the order declared; a bad
    /// value is the CLI's usage error.
    func read<Fields>(_ declarations: [ParameterDeclaration<Fields>], into fields: inout Fields) throws {
        for declaration in declarations {
            guard let words = words(for: declaration) else { continue }
            try cliWorded { try declaration.read(&fields, words) }
        }
    }
}

extension Option where Value == Int? {
    /// `--unsettled-days N` of report and sync: recent days refetched, as `ReportFields` declares it.
    static var unsettledDays: Option<Int?> {
        Option(ReportFields.unsettledDays.optionSpec) { given in
            guard let text = given?.last else { return nil }
            var fields = ReportFields()
            try ReportFields.unsettledDays.read(&fields, [text])
            return fields.unsettledDays
        }
    }
}
