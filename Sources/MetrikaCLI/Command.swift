import MetrikaModel
import MetrikaRender

/// A `metrika` subcommand. Each lives in its own file under Commands/ and is listed in `CLI.commands`.
protocol Command {
    /// The words that select it: `counters`, or `auth status`.
    static var name: String { get }
    /// One line for `metrika --help`.
    static var summary: String { get }
    /// The usage line(s) as terms over its own options (more than one when the command has distinct
    /// forms, as `logs` has); `usage` renders them.
    static var synopses: [[UsageTerm]] { get }
    /// Further help paragraphs (examples, notes); may be empty.
    static var discussion: String { get }
    /// The options it accepts (`--help` is added for every command, `--verbose` where `makesRequests`).
    static var options: [OptionSpec] { get }
    /// The words it takes as its argument (`bash`, `zsh`, `fish` of `completions`); empty for most.
    static var argumentChoices: [String] { get }
    /// Whether a missing `--counter` is filled in from METRIKA_COUNTER, the profile or the config
    /// file. Default: whenever it takes `--counter` (sync, where none means all, says no).
    static var usesDefaultCounter: Bool { get }
    /// Runs it with the run's one `Session` (its options, its context, the services: the config file read once);
    /// returns the exit code or throws a `MetrikaFailure`.
    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32
}

extension Command {
    static var discussion: String { "" }
    static var argumentChoices: [String] { [] }
    static var usesDefaultCounter: Bool { options.contains { $0.name == Option.counter.name } }

    /// Whether it talks to the API or the OAuth server (then `-v`/`--verbose` logs those requests):
    /// every command that signs in, i.e. takes `--profile`.
    static var makesRequests: Bool { options.contains { $0.name == Option.profile.name } }

    /// The options with the common ones: `--verbose` where there are requests to log, `--help` always.
    static var allOptions: [OptionSpec] {
        options + (makesRequests ? [CommonOptions.verbose] : []) + [CommonOptions.help]
    }

    /// The usage line, without the leading `metrika `: generated from `synopses` and the option
    /// specs, so it cannot drift from what the parser accepts.
    static var usage: String {
        UsageLine.render(name: name, synopses: synopses, specs: allOptions, arguments: argumentChoices)
    }

    /// The full `--help` text.
    static var helpText: String {
        var text = "\(summary)\n\nUsage: metrika \(usage)\n\nOptions:\n"
        let rows = allOptions.map { spec -> (String, String) in
            var left = "  "
            if let short = spec.short { left += "-\(short), " }
            left += "--\(spec.name)"
            if let value = spec.valueName { left += " \(value)" }
            return (left, spec.help)
        }
        let width = min(34, (rows.map { $0.0.count }.max() ?? 0) + 2)
        for (left, help) in rows {
            if left.count + 2 > width {
                text += left + "\n" + String(repeating: " ", count: width) + help + "\n"
            } else {
                text += left + String(repeating: " ", count: width - left.count) + help + "\n"
            }
        }
        if !discussion.isEmpty { text += "\n" + discussion + (discussion.hasSuffix("\n") ? "" : "\n") }
        return text
    }
}

/// Options shared by several commands.
package enum CommonOptions {
    /// `-v`: accepted by every command that makes requests, after the command or before it.
    static var verbose: OptionSpec { Option.verbose.spec }
    /// `-h`: accepted by every command.
    static var help: OptionSpec { Option.help.spec }
    /// Both (for tests that parse a group's options outside a command).
    static var always: [OptionSpec] { [verbose, help] }
}

extension Option where Value == Bool {
    /// `-v`, `--verbose`: log each request.
    static var verbose: Option<Bool> {
        .flag("verbose", short: "v", help: "Log each API request (method, URL, status, time) to stderr")
    }
    /// `-h`, `--help`: the command's help.
    static var help: Option<Bool> { .flag("help", short: "h", help: "Show this help") }
}

/// Output formats of data commands.
package enum OutputFormat: String, Sendable {
    case table, csv, json

    /// Reads `--format`, `--csv` and `--json`; contradictory choices are a usage error.
    static func from(_ options: ParsedOptions) throws -> OutputFormat {
        var chosen: [OutputFormat] = []
        if let text = options[.format] {
            guard let format = OutputFormat(rawValue: text.lowercased()) else {
                throw UsageError("--format must be table, csv or json, not '\(text)'")
            }
            chosen.append(format)
        }
        if options[.csv] { chosen.append(.csv) }
        if options[.json] { chosen.append(.json) }
        let distinct = Set(chosen.map(\.rawValue))
        if distinct.count > 1 {
            throw UsageError(
                "Choose one output format: --format \(chosen.map(\.rawValue).joined(separator: ", ")) contradict each other"
            )
        }
        return chosen.first ?? .table
    }

    /// The CSV writer `--crlf` and `--csv-formulas` ask for; they are refused with other formats,
    /// where they would silently do nothing. `toTerminal`: stdout is a terminal (see `CSVWriter.terminal`).
    static func csvWriter(_ options: ParsedOptions, format: OutputFormat, toTerminal: Bool) throws -> CSVWriter {
        var writer = CSVWriter()
        writer.terminal = toTerminal
        if options[.crlf] { writer.lineEnding = .crlf }
        if let formulas = try options[.csvFormulas] { writer.formulas = formulas }
        if format != .csv, let option = csvOnly(options) {
            throw UsageError("--\(option) applies to CSV output only: add --csv")
        }
        return writer
    }

    /// The first CSV-only option given (`crlf`, `csv-formulas`), for the error that refuses it
    /// with another format.
    static func csvOnly(_ options: ParsedOptions) -> String? {
        if options.contains(.crlf) { return Option.crlf.name }
        if options.contains(.csvFormulas) { return Option.csvFormulas.name }
        return nil
    }
}
