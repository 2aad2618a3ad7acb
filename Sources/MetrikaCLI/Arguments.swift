import Foundation
import MetrikaModel

/// One option a command accepts.
package struct OptionSpec: Sendable {
    /// The long name without dashes, e.g. `from`.
    package var name: String
    /// A one-letter alias without the dash, e.g. `v`.
    package var short: Character?
    /// The placeholder of its value (`DATE`), or nil for a flag.
    package var valueName: String?
    /// One line of help.
    package var help: String
    /// The values completions offer, when the placeholder does not list them (`--period NAME`).
    package var choices: [String]?

    package init(_ name: String, short: Character? = nil, value: String? = nil, help: String, choices: [String]? = nil)
    {
        self.name = name
        self.short = short
        self.valueName = value
        self.help = help
        self.choices = choices
    }

    var takesValue: Bool { valueName != nil }
}

/// What the parser found: option values in order of appearance, flags, and positional words.
package struct ParsedOptions: Sendable {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    /// Words that are not options.
    package var positionals: [String] = []
    /// Where `--counter` came from when it was not given (METRIKA_COUNTER, a profile, the config
    /// file), so that a message about it names that place, not an option the user never typed.
    var counterDefaultSource: String?
}

/// A small, strict command-line parser: `--name value`, `--name=value`, `-c value`, `-c1001`, flags,
/// and `--` to end options. Unknown options are errors, never ignored.
package enum ArgumentParser {
    package static func parse(_ arguments: [String], options specs: [OptionSpec]) throws -> ParsedOptions {
        var parsed = ParsedOptions()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name: String
            var inlineValue: String?
            let spec: OptionSpec?
            if argument.hasPrefix("--") {
                name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                spec = specs.first { $0.name == name }
            } else {
                let letters = argument.dropFirst()
                guard let letter = letters.first else { throw UsageError("Unknown option '\(argument)'") }
                spec = specs.first { $0.short == letter }
                name = spec?.name ?? String(letter)
                if letters.count > 1 {
                    // `-c1001`, as getopt reads it: the rest of the word is the value of a short option
                    // that takes one. Flags are not bundled (`-vh`): said, not guessed.
                    guard let spec else { throw UsageError("Unknown option '\(argument)'") }
                    guard spec.takesValue else {
                        throw UsageError(
                            "Option '-\(letter)' (--\(spec.name)) takes no value; write each flag on its own, not '\(argument)'"
                        )
                    }
                    inlineValue = String(letters.dropFirst())
                }
            }
            guard let spec else {
                let given = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
                throw UsageError(
                    unknown(
                        "option", given, suggestion: suggestion(for: name, among: specs.map(\.name)).map { "--" + $0 }))
            }
            if spec.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw UsageError("Option '--\(spec.name)' needs a value (\(spec.valueName!))")
                    }
                    value = arguments[index]
                    index += 1
                }
                parsed.values[spec.name, default: []].append(value)
            } else {
                if inlineValue != nil { throw UsageError("Option '--\(spec.name)' takes no value") }
                parsed.flags.insert(spec.name)
            }
        }
        return parsed
    }

    /// `Unknown command 'reprot'. Did you mean 'report'?` — the one wording of every "unknown" error.
    static func unknown(_ kind: String, _ given: String, suggestion: String?) -> String {
        "Unknown \(kind) '\(given)'" + (suggestion.map { ". Did you mean '\($0)'?" } ?? "")
    }

    /// The closest known name, when a typo is likely: one edit for names of up to four letters, two
    /// for longer ones (a farther "suggestion" would only puzzle). Ties go to the earlier name. A
    /// beginning of exactly one name (`auth stat` → `status`) is the likeliest of all.
    static func suggestion(for name: String, among names: [String]) -> String? {
        let lowered = name.lowercased()
        let extended = names.filter { $0.count > name.count && $0.lowercased().hasPrefix(lowered) }
        if name.count >= 2, extended.count == 1 { return extended[0] }
        let allowed = name.count <= 4 ? 1 : 2
        var best: (name: String, distance: Int)?
        for candidate in names where candidate != name {
            let distance = editDistance(name.lowercased(), candidate.lowercased())
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`: the optimal
    /// string alignment distance, so the commonest typo, two swapped letters, costs one.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var rows = [
            Array(0...b.count), Array(repeating: 0, count: b.count + 1), Array(repeating: 0, count: b.count + 1)
        ]
        for i in 1...a.count {
            let (current, previous, beforePrevious) = (i % 3, (i - 1) % 3, (i + 1) % 3)
            rows[current][0] = i
            for j in 1...b.count {
                var distance = min(
                    rows[previous][j] + 1, rows[current][j - 1] + 1,
                    rows[previous][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    distance = min(distance, rows[beforePrevious][j - 2] + 1)
                }
                rows[current][j] = distance
            }
        }
        return rows[a.count % 3][b.count]
    }
}
