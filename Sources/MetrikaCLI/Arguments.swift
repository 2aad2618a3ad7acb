import MetrikaKit

/// One option a command accepts.
public struct OptionSpec: Sendable {
    /// The long name without dashes, e.g. `from`.
    public var name: String
    /// A one-letter alias without the dash, e.g. `v`.
    public var short: Character?
    /// The placeholder of its value (`DATE`), or nil for a flag.
    public var valueName: String?
    /// One line of help.
    public var help: String

    public init(_ name: String, short: Character? = nil, value: String? = nil, help: String) {
        self.name = name
        self.short = short
        self.valueName = value
        self.help = help
    }

    var takesValue: Bool { valueName != nil }
}

/// The wrong command line: printed as `Error: …` plus the usage line, exit 64.
public struct UsageError: MetrikaFailure {
    public let message: String
    public var exitCode: Int32 { ExitCode.usage }

    /// Messages quote what the user typed; a newline or terminal escape in it must not break the
    /// one `Error:` line, so control characters become spaces.
    public init(_ message: String) {
        self.message = String(String.UnicodeScalarView(message.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? " " : $0 }))
    }
}

/// What the parser found: option values in order of appearance, flags, and positional words.
public struct ParsedOptions: Sendable {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    /// Words that are not options.
    public var positionals: [String] = []

    /// The last value given for an option (later ones override earlier ones).
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for a repeatable option, comma lists split: `--counter 1,2 --counter 3` → 1,2,3.
    public func list(_ name: String) -> [String] {
        (values[name] ?? []).flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
            .filter { !$0.isEmpty }
    }

    /// Whether a flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Whether an option (flag or valued) was given at all.
    public func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }

    /// An integer option within a range; nil when absent.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }
}

/// A small, strict command-line parser: `--name value`, `--name=value`, flags, `-h`/`-v`, and `--`
/// to end options. Unknown options are errors, never ignored.
public enum ArgumentParser {
    public static func parse(_ arguments: [String], options specs: [OptionSpec]) throws -> ParsedOptions {
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
                guard letters.count == 1, let letter = letters.first else {
                    throw UsageError("Unknown option '\(argument)'")
                }
                spec = specs.first { $0.short == letter }
                name = spec?.name ?? String(letter)
            }
            guard let spec else {
                let hint = suggestion(for: name, among: specs.map(\.name))
                throw UsageError("Unknown option '\(argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument)'" + (hint.map { " (did you mean '--\($0)'?)" } ?? ""))
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

    /// The closest known option name, when a typo is likely (edit distance ≤ 2).
    static func suggestion(for name: String, among names: [String]) -> String? {
        let candidates = names.map { ($0, editDistance(name, $0)) }.filter { $0.1 <= 2 }
        return candidates.min { $0.1 < $1.1 }?.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

import Foundation
