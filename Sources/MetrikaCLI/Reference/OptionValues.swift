import MetrikaModel
import MetrikaUseCases

/// What an option's value can be, as completions and the man page present it. Read from the same
/// `OptionSpec` the parser uses: `day|week|month` lists its choices, a `FILE…`/`PATH` placeholder
/// takes a file name, `--metrics`/`--dimensions` take comma lists of the known names.
enum OptionValues: Equatable, Sendable {
    /// A flag: no value.
    case none
    /// One of these words.
    case choices([String])
    /// A comma-separated list of these names (others are accepted too, e.g. `ym:s:` names).
    case list([String])
    /// A file name.
    case file
    /// Anything (a date, an id, text): nothing to offer.
    case free
}

extension OptionSpec {
    /// The kind of value the option takes.
    var values: OptionValues {
        guard let valueName else { return .none }
        if let choices { return .choices(choices) }
        if name == Option.metrics.name { return .list(Metric.known.map(\.shortName)) }
        // explain's --dimensions takes its own few (one request each), told by its value name.
        if name == Option.explainDimensions.name, valueName == Option.explainDimensions.spec.valueName {
            return .list(ExplainDimension.all.map(\.name))
        }
        if name == ReportFields.dimensions.optionSpec.name { return .list(Dimension.known.map(\.shortName)) }
        let words = valueName.split(separator: "|").map(String.init)
        if words.count > 1, words.allSatisfy({ $0.allSatisfy { $0.isLowercase || $0.isNumber } }) {
            return .choices(words)
        }
        if valueName.hasPrefix("FILE") || valueName == "PATH" { return .file }
        return .free
    }

    /// `--name` and `-x`, as typed.
    var spellings: [String] { ["--" + name] + (short.map { ["-\($0)"] } ?? []) }
}
