import Foundation
import MetrikaModel

/// A typed option: its spec (what help, the usage line, completions and the man page show) and how
/// what was given becomes a value. Commands read options by key, never by name:
///
///     extension Option where Value == Int? {
///         static var limit: Option<Int?> { .integer("limit", value: "N", help: "Rows", in: 1...100) }
///     }
///     let limit = try options[.limit]        // nil when not given; a bad value is a usage error
///
/// A key is declared once, where its group or its command lives, as a static member of the
/// `Option` of its value type (a computed one: generic types keep no stored statics). One name
/// may have one key per meaning (`--to DATE` of dates, `--to ADDR` of mail): the Swift names differ.
package struct Option<Value>: Sendable {
    /// The name, placeholder and help the parser, help and references read.
    package var spec: OptionSpec
    /// Turns what the parser found into the value: nil when the option was not given, the values
    /// in order of appearance when it was (none for a flag).
    private let read: @Sendable (_ given: [String]?) throws -> Value

    /// A key from a spec and its reader (see the `flag`, `text`, `words`, `value`, `list` and
    /// `integer` makers). Keys of `Bool`, `String?` and `[String]` are read as written, without `try`
    /// (given or not; the last value; the words): make them with `flag`, `text` and `words`.
    package init(_ spec: OptionSpec, read: @escaping @Sendable (_ given: [String]?) throws -> Value) {
        self.spec = spec
        self.read = read
    }

    /// The long name without dashes, e.g. `limit`.
    package var name: String { spec.name }

    /// The value of the option when `given` is what the command line held for it.
    package func value(given: [String]?) throws -> Value { try read(given) }

    /// The same option (name, parser) with the wording of one command's help: `--counter ID` of
    /// `goals` is the `--counter ID[,ID…]` of `report`, told differently.
    package func described(_ help: String, value: String? = nil, choices: [String]? = nil) -> Option {
        var copy = self
        copy.spec.help = help
        if let value { copy.spec.valueName = value }
        if let choices { copy.spec.choices = choices }
        return copy
    }
}

// MARK: - Makers

extension Option where Value == Bool {
    /// A flag: true when given.
    package static func flag(_ name: String, short: Character? = nil, help: String) -> Option<Bool> {
        Option(OptionSpec(name, short: short, help: help)) { $0 != nil }
    }
}

extension Option {
    /// A valued option read from its last value (a later one overrides an earlier one); nil when
    /// not given. `parse` throws the usage error of a bad value.
    package static func value<Wrapped>(
        _ name: String, short: Character? = nil, value: String, help: String, choices: [String]? = nil,
        parse: @escaping @Sendable (String) throws -> Wrapped
    ) -> Option<Wrapped?> {
        precondition(
            Wrapped.self != String.self, "--\(name): a value kept as written is a .text key (read without try)")
        return Option<Wrapped?>(OptionSpec(name, short: short, value: value, help: help, choices: choices)) { given in
            try given?.last.map(parse)
        }
    }

    /// A repeatable list: every value given, comma lists split, blanks dropped
    /// (`--counter 1,2 --counter 3` → 1, 2, 3); empty when not given (`ParsedOptions.contains`
    /// tells an empty list given from none).
    package static func list<Element>(
        _ name: String, short: Character? = nil, value: String, help: String, choices: [String]? = nil,
        parse: @escaping @Sendable (String) throws -> Element
    ) -> Option<[Element]> {
        precondition(
            Element.self != String.self, "--\(name): words kept as written are a .words key (read without try)")
        return Option<[Element]>(OptionSpec(name, short: short, value: value, help: help, choices: choices)) { given in
            try ParsedOptions.split(given).map(parse)
        }
    }
}

extension Option {
    /// One of an enumeration's cases by its name, in any case (`--group WEEK`); the value shown is
    /// the cases joined by `|`, and anything else is `--name must be a, b or c, not 'x'`.
    package static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, help: String
    ) -> Option<Choice?> where Choice.RawValue == String {
        let names = Choice.allCases.map(\.rawValue)
        let spelled = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
        return .value(name, value: names.joined(separator: "|"), help: help) { text in
            guard let chosen = Choice(rawValue: text.lowercased()) else {
                throw UsageError("--\(name) must be \(spelled), not '\(text)'")
            }
            return chosen
        }
    }
}

extension Option where Value == String? {
    /// A valued option taken as written: its last value, nil when not given. Reading one cannot fail.
    package static func text(
        _ name: String, short: Character? = nil, value: String, help: String, choices: [String]? = nil
    ) -> Option<String?> {
        Option(OptionSpec(name, short: short, value: value, help: help, choices: choices)) { $0?.last }
    }
}

extension Option where Value == [String] {
    /// A list of words taken as written (comma lists split, blanks dropped). Reading one cannot fail.
    package static func words(
        _ name: String, short: Character? = nil, value: String, help: String, choices: [String]? = nil
    ) -> Option<[String]> {
        Option(OptionSpec(name, short: short, value: value, help: help, choices: choices)) { ParsedOptions.split($0) }
    }
}

extension Option where Value == Int? {
    /// A whole number within `range`; anything else is `--name must be a whole number from … to …`.
    package static func integer(_ name: String, value: String = "N", help: String, in range: ClosedRange<Int>)
        -> Option<Int?>
    {
        .value(name, value: value, help: help) { text in
            guard let number = Int(text), range.contains(number) else {
                throw UsageError(
                    "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return number
        }
    }
}

// MARK: - Reading

extension ParsedOptions {
    /// The option's typed value; a bad value is the option's usage error.
    package subscript<Value>(_ option: Option<Value>) -> Value {
        get throws { try cliWorded { try option.value(given: given(option.name)) } }
    }

    /// A flag: whether it was given (reading one cannot fail).
    package subscript(_ option: Option<Bool>) -> Bool { flags.contains(option.name) }

    /// A `.text` option: its last value as written, nil when not given (reading one cannot fail).
    package subscript(_ option: Option<String?>) -> String? { values[option.name]?.last }

    /// A `.words` option: every word given, comma lists split (reading one cannot fail).
    package subscript(_ option: Option<[String]>) -> [String] { Self.split(values[option.name]) }

    /// `["1,2", " 3 "]` → 1, 2, 3: comma lists split, blanks dropped.
    static func split(_ given: [String]?) -> [String] {
        (given ?? []).flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
            .filter { !$0.isEmpty }
    }

    /// Every value of the option exactly as given, not split at commas (a mail address's display
    /// name may hold one inside quotes); empty when not given.
    package func asGiven<Value>(_ option: Option<Value>) -> [String] { values[option.name] ?? [] }

    /// Whether the option was given at all, with whatever value.
    package func contains<Value>(_ option: Option<Value>) -> Bool { given(option.name) != nil }

    /// Gives the option these values, as if typed (a default the command line did not say: the
    /// counter of METRIKA_COUNTER or a profile).
    package mutating func set<Value>(_ option: Option<Value>, to given: [String]) {
        values[option.name] = given
    }

    /// What the command line held for the option named `name`: nil when absent, a flag's `[]`.
    private func given(_ name: String) -> [String]? {
        values[name] ?? (flags.contains(name) ? [] : nil)
    }
}
