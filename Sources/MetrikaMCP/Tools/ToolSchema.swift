import Foundation
import MetrikaRender

// The one table behind every tool's arguments: each tool lists its arguments as `ToolArgument`
// values, and from that list come both the JSON Schema `tools/list` shows (`inputSchema`) and the
// decoding of a `tools/call`'s arguments (`ToolArguments.decode`) — the way help, the man page and
// completions come from the CLI's option tables. An argument the table does not name, a wrong JSON
// type, a list or text beyond its bound is a `ToolArgumentError` before any work: a tool result with
// `isError: true` the model reads and corrects (SEP-1303, revision 2025-11-25), never JSON-RPC -32602.

/// An argument a tool refuses before any work: one line that names the argument, says what is wrong
/// and what to send. Answered as a tool result with `isError: true`.
package struct ToolArgumentError: Error, Sendable, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
}

/// One argument of a tool: its name, JSON type, description for a model, and bounds.
package struct ToolArgument: Sendable {
    package enum Kind: Sendable, Equatable {
        case string
        case integer
        case boolean
        /// An array of strings.
        case strings
        /// An array of integers.
        case integers
        /// An array of integers, or the text `"all"` (`get_report`'s counter ids: the portfolio):
        /// the schema's `anyOf` of both.
        case integersOrAll
        /// Names as an array of strings or as one comma-separated text (`["a","b"]` or `"a,b"`):
        /// the schema's `anyOf` of both.
        case names
    }

    package var name: String
    package var kind: Kind
    package var description: String
    package var required = false
    /// The values a string (or each string of a list) may take; empty: any text.
    package var choices: [String] = []
    /// Bounds of an integer (or of each integer of a list).
    package var minimum: Int?
    package var maximum: Int?
    /// The longest text (each string of a list) in characters.
    package var maxLength = ToolArgument.defaultMaxLength
    /// The most items of a list.
    package var maxItems = 20
    /// The value used when the argument is left out, as the schema's `default` says.
    package var defaultValue: JSONValue?
    /// What to do instead of passing `maximum` or `maxItems` ("ask for the next rows with offset").
    package var beyondBound: String?
    /// A right value in JSON, for the line that refuses a wrong type (`[1001]`).
    package var example: String?

    /// Text arguments are names, dates and filters: 1,000 characters are far more than any needs.
    package static let defaultMaxLength = 1_000

    package init(
        _ name: String, _ kind: Kind, _ description: String, required: Bool = false, choices: [String] = [],
        minimum: Int? = nil, maximum: Int? = nil, maxLength: Int = ToolArgument.defaultMaxLength, maxItems: Int = 20,
        defaultValue: JSONValue? = nil
    ) {
        self.name = name
        self.kind = kind
        self.description = description
        self.required = required
        self.choices = choices
        self.minimum = minimum
        self.maximum = maximum
        self.maxLength = maxLength
        self.maxItems = maxItems
        self.defaultValue = defaultValue
    }

    /// The argument's JSON Schema.
    var schema: JSONValue {
        func scalar(_ kind: Kind) -> [(String, JSONValue)] {
            switch kind {
            case .string, .strings, .names:
                var members: [(String, JSONValue)] = [
                    ("type", .string("string")), ("maxLength", .number(Double(maxLength)))
                ]
                if !choices.isEmpty { members.append(("enum", .array(choices.map { .string($0) }))) }
                return members
            case .integer, .integers, .integersOrAll:
                var members: [(String, JSONValue)] = [("type", .string("integer"))]
                if let minimum { members.append(("minimum", .number(Double(minimum)))) }
                if let maximum { members.append(("maximum", .number(Double(maximum)))) }
                return members
            case .boolean:
                return [("type", .string("boolean"))]
            }
        }
        var members: [(String, JSONValue)]
        switch kind {
        case .strings, .integers:
            members = [
                ("type", .string("array")), ("items", .object(scalar(kind))), ("minItems", .number(1)),
                ("maxItems", .number(Double(maxItems)))
            ]
        case .integersOrAll:
            let list: [(String, JSONValue)] = [
                ("type", .string("array")), ("items", .object(scalar(.integers))), ("minItems", .number(1)),
                ("maxItems", .number(Double(maxItems)))
            ]
            let all: [(String, JSONValue)] = [("type", .string("string")), ("enum", .array([.string("all")]))]
            members = [("anyOf", .array([.object(list), .object(all)]))]
        case .names:
            let list: [(String, JSONValue)] = [
                ("type", .string("array")), ("items", .object(scalar(.string))), ("minItems", .number(1)),
                ("maxItems", .number(Double(maxItems)))
            ]
            members = [("anyOf", .array([.object(list), .object(scalar(.string))]))]
        case .string, .integer, .boolean:
            members = scalar(kind)
        }
        members.append(("description", .string(description)))
        if let defaultValue { members.append(("default", defaultValue)) }
        return .object(members)
    }
}

/// One tool as the table describes it: `tools/list`'s entry and its arguments.
package struct ToolSpec: Sendable {
    package var name: String
    package var title: String
    package var description: String
    package var arguments: [ToolArgument]
    package var outputSchema: JSONValue?
    /// Whether the tool reaches Yandex.Metrika (annotations.openWorldHint).
    package var openWorld = true

    /// The object schema of the arguments: no member the table does not name.
    package var inputSchema: JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", .string("object")),
            ("properties", .object(arguments.map { ($0.name, $0.schema) }))
        ]
        let required = arguments.filter(\.required).map { JSONValue.string($0.name) }
        if !required.isEmpty { members.append(("required", .array(required))) }
        members.append(("additionalProperties", .bool(false)))
        return .object(members)
    }

    package var toolDescription: MCPToolDescription {
        MCPToolDescription(
            name: name, title: title, description: description, inputSchema: inputSchema, outputSchema: outputSchema,
            readOnly: true, idempotent: true, openWorld: openWorld)
    }
}

/// A call's arguments, checked against its tool's table: read through their typed declarations
/// (`TypedToolArgument`), already of the right type.
package struct ToolArguments: Sendable {
    private var values: [String: JSONValue]

    /// Checks `given` against `spec`'s arguments: every name known and given once, every value of its
    /// type and within its bounds, every required one present. `null` counts as left out.
    package static func decode(_ given: [(String, JSONValue)], for spec: ToolSpec) throws -> ToolArguments {
        var values: [String: JSONValue] = [:]
        for (name, value) in given {
            guard let argument = spec.arguments.first(where: { $0.name == name }) else {
                let known = spec.arguments.map(\.name).joined(separator: ", ")
                throw ToolArgumentError(
                    "\(spec.name) takes no argument '\(Self.quoted(name))'; send only its arguments: \(known.isEmpty ? "none" : known)"
                )
            }
            guard values[name] == nil else { throw ToolArgumentError("\(name) is given twice; send it once") }
            if value == .null { continue }
            try check(value, against: argument, tool: spec.name)
            values[name] = value
        }
        for argument in spec.arguments where argument.required && values[argument.name] == nil {
            throw ToolArgumentError("\(argument.name) is missing; \(spec.name) needs it: \(argument.description)")
        }
        return ToolArguments(values: values)
    }

    private static func check(_ value: JSONValue, against argument: ToolArgument, tool: String) throws {
        let name = argument.name
        let list = argument.kind == .strings || argument.kind == .integers || argument.kind == .integersOrAll
        // The right shape, worded once for every wrong type.
        func send() -> String {
            let like = argument.example ?? Self.example(argument)
            switch argument.kind {
            case .string: return "send text, like \(like)"
            case .integer: return "send a whole number, like \(like)"
            case .boolean: return "send true or false"
            case .strings: return "send a list of texts, like \(like)"
            case .integers: return "send a list of whole numbers, like \(like)"
            case .integersOrAll: return "send a list of whole numbers, like \(like), or \"all\""
            case .names: return "send a list of names or one comma-separated text, like \(like)"
            }
        }
        func wrongType(_ value: JSONValue, item: Bool = true) -> ToolArgumentError {
            ToolArgumentError("\(name) \(list && item ? "holds" : "is") \(describe(value)); \(send())")
        }
        func beyond(_ what: String) -> ToolArgumentError {
            ToolArgumentError("\(name) \(what)" + (argument.beyondBound.map { "; \($0)" } ?? ""))
        }
        func checkString(_ value: JSONValue) throws {
            guard case .string(let text) = value else { throw wrongType(value) }
            guard text.unicodeScalars.count <= argument.maxLength else {
                throw ToolArgumentError(
                    "\(name) is \(text.unicodeScalars.count) characters long; send at most \(argument.maxLength)")
            }
            if !argument.choices.isEmpty, !argument.choices.contains(text) {
                throw ToolArgumentError(
                    "\(name) is '\(quoted(text))', which it does not take; send one of \(argument.choices.joined(separator: ", "))"
                )
            }
        }
        func checkInteger(_ value: JSONValue) throws {
            guard case .number(let number) = value, number.rounded() == number else { throw wrongType(value) }
            // A whole number past what an Int holds exactly is out of range, not of the wrong type.
            guard abs(number) < 1e15 else {
                let bound = argument.maximum.map { "send at most \($0)" } ?? "send one of at most 15 digits"
                throw ToolArgumentError(
                    "\(name) \(list ? "holds" : "is") a whole number of more than 15 digits, out of range; \(bound)"
                        + (argument.beyondBound.map { "; \($0)" } ?? ""))
            }
            let whole = Int(number)
            if let minimum = argument.minimum, whole < minimum {
                throw ToolArgumentError("\(name) is at least \(minimum), not \(whole); send \(minimum) or more")
            }
            if let maximum = argument.maximum, whole > maximum { throw beyond("is at most \(maximum), not \(whole)") }
        }
        func checkList(_ value: JSONValue, each check: (JSONValue) throws -> Void) throws {
            guard case .array(let items) = value else { throw wrongType(value, item: false) }
            guard !items.isEmpty else {
                throw ToolArgumentError("\(name) is an empty list; leave it out or name at least one")
            }
            guard items.count <= argument.maxItems else {
                throw beyond("lists \(items.count) items; send at most \(argument.maxItems)")
            }
            for item in items { try check(item) }
        }
        switch argument.kind {
        case .string: try checkString(value)
        case .integer: try checkInteger(value)
        case .boolean:
            guard case .bool = value else { throw wrongType(value) }
        case .names:
            if case .string = value {
                try checkString(value)
                return
            }
            try checkList(value, each: checkString)
        case .integersOrAll:
            if case .string(let text) = value {
                // Never the text itself: it may be a secret pasted in the wrong place.
                guard text == "all" else {
                    throw ToolArgumentError("\(name) is a string other than \"all\"; \(send())")
                }
                return
            }
            try checkList(value, each: checkInteger)
        case .strings, .integers:
            try checkList(value, each: argument.kind == .strings ? checkString : checkInteger)
        }
    }

    /// A right value of the argument's kind: its default, its first choice, its lowest bound.
    private static func example(_ argument: ToolArgument) -> String {
        switch argument.kind {
        case .string, .strings, .names:
            let text =
                "\""
                + (argument.choices.first
                    ?? (argument.defaultValue.flatMap { if case .string(let s) = $0 { return s } else { return nil } }
                        ?? "…"))
                + "\""
            return argument.kind == .strings ? "[\(text)]" : text
        case .integer, .integers, .integersOrAll:
            var number = argument.minimum ?? 1
            if case .number(let given)? = argument.defaultValue { number = Int(given) }
            return argument.kind == .integer ? String(number) : "[\(number)]"
        case .boolean: return "true"
        }
    }

    /// What a wrong value is, without repeating it (it may be a megabyte).
    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number(let number): return number.rounded() == number ? "a number" : "a fractional number"
        // Never the string itself: it may be a secret pasted in the wrong place (a token would come back).
        case .string: return "a string"
        case .array(let items): return "a list of \(items.count)"
        case .object: return "an object"
        }
    }

    /// Text quoted in a message: at most 40 characters, control characters as spaces.
    static func quoted(_ text: String) -> String {
        let short = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return String(
            String.UnicodeScalarView(short.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }

    /// The value given for `argument`, as its type reads it; nil when left out (or `null`).
    package subscript<Value>(_ argument: TypedToolArgument<Value>) -> Value? {
        values[argument.argument.name].flatMap(argument.read)
    }
}

/// A tool argument with the type its value is read as: the declaration that gives the schema and the
/// reading of a checked value, in one value, so that a tool reads `arguments[Self.limit]` and never
/// an argument by its name. Each tool declares its arguments once, as these, and lists them in its spec.
package struct TypedToolArgument<Value: Sendable>: Sendable {
    /// The declaration: name, JSON type, description and bounds.
    package let argument: ToolArgument
    /// The value of a checked JSON value (`ToolArguments.decode` has refused every wrong type).
    let read: @Sendable (JSONValue) -> Value?

    init(_ argument: ToolArgument, kinds: [ToolArgument.Kind], read: @escaping @Sendable (JSONValue) -> Value?) {
        precondition(kinds.contains(argument.kind), "\(argument.name) is not read as \(Value.self)")
        self.argument = argument
        self.read = read
    }

    static func text(_ value: JSONValue) -> String? {
        if case .string(let text) = value { return text }
        return nil
    }

    static func texts(_ value: JSONValue) -> [String]? {
        guard case .array(let items) = value else { return nil }
        return items.compactMap(text)
    }

    static func whole(_ value: JSONValue) -> Int? {
        if case .number(let number) = value { return Int(number) }
        return nil
    }

    static func wholes(_ value: JSONValue) -> [Int]? {
        guard case .array(let items) = value else { return nil }
        return items.compactMap(whole)
    }
}

extension TypedToolArgument where Value == String {
    /// A text; a `.names` argument as one comma-separated text, whichever form it came in.
    package init(_ argument: ToolArgument) {
        self.init(argument, kinds: [.string, .names]) { value in
            Self.texts(value).map { $0.joined(separator: ",") } ?? Self.text(value)
        }
    }
}

extension TypedToolArgument where Value == Int {
    /// A whole number.
    package init(_ argument: ToolArgument) {
        self.init(argument, kinds: [.integer], read: Self.whole)
    }
}

extension TypedToolArgument where Value == Bool {
    /// A flag.
    package init(_ argument: ToolArgument) {
        self.init(argument, kinds: [.boolean]) { value in
            if case .bool(let flag) = value { return flag }
            return nil
        }
    }
}

extension TypedToolArgument where Value == [String] {
    /// A list of texts.
    package init(_ argument: ToolArgument) {
        self.init(argument, kinds: [.strings], read: Self.texts)
    }
}

extension TypedToolArgument where Value == [Int] {
    /// A list of whole numbers.
    package init(_ argument: ToolArgument) {
        self.init(argument, kinds: [.integers], read: Self.wholes)
    }
}
