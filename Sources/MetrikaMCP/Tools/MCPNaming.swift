import MetrikaUseCases

extension ParameterNaming {
    /// The MCP server's words: a parameter is its tool argument (`counter_ids`, `unsettled_days`),
    /// never a CLI option; an action is a tool call.
    static let mcp = ParameterNaming(
        name: { parameter in
            switch parameter {
            case .counter: return "counter_ids"
            default: return parameter.words.joined(separator: "_")
            }
        },
        action: { action in
            switch action {
            case .sync(let id): return "call get_report for counter \(id) without offline to fetch its days"
            case .cleanLogs(let id): return "ask the user to clean the log requests of counter \(id) (they are not reachable through this server)"
            case .watchToday(let id): return "call check_alerts with counter_ids [\(id)] and today true to judge today's hours so far against the same hours of earlier weeks"
            case .fetchOnline: return "call get_report again without offline to fetch it"
            case .compareOtherDays(let id): return "call explain_change for counter \(id) again with against previous or DATE..DATE to compare with other days"
            }
        })
}

extension ToolArgument {
    /// A tool argument from a parameter's declaration: its MCP name, JSON type, bounds, choices and
    /// the description a model reads.
    init<Fields>(declared declaration: ParameterDeclaration<Fields>, required: Bool = false) {
        let naming = ParameterNaming.mcp
        let description = declaration.modelHelp(naming)
        let name = naming[declaration.parameter]
        switch declaration.shape {
        case .flag:
            self.init(name, .boolean, description, required: required)
        case .text(let maxLength):
            self.init(name, .string, description, required: required, choices: declaration.choices, maxLength: maxLength)
        case .integer(let range):
            self.init(name, .integer, description, required: required, minimum: range.lowerBound, maximum: range.upperBound)
        case .list(let maxItems, let maxLength):
            self.init(name, .strings, description, required: required, choices: declaration.choices, maxLength: maxLength, maxItems: maxItems)
        case .ids(let maxItems):
            self.init(name, .integers, description, required: required, minimum: 1, maximum: Int(Int32.max), maxItems: maxItems)
            example = "[1001]"
            beyondBound = "ask for the others in another call"
        }
    }
}

extension TypedToolArgument where Value == [String] {
    /// A declared parameter's argument, read as the words its `read` takes: no words for a flag given
    /// as true, nil for one given as false.
    init<Fields>(words declaration: ParameterDeclaration<Fields>) {
        let argument = ToolArgument(declared: declaration)
        switch declaration.shape {
        case .flag:
            self.init(argument, kinds: [.boolean]) { $0 == .bool(true) ? [] : nil }
        case .text:
            self.init(argument, kinds: [.string]) { Self.text($0).map { [$0] } }
        case .integer:
            self.init(argument, kinds: [.integer]) { Self.whole($0).map { [String($0)] } }
        case .list:
            self.init(argument, kinds: [.strings], read: Self.texts)
        case .ids:
            self.init(argument, kinds: [.integers]) { Self.wholes($0)?.map(String.init) }
        }
    }
}

extension ToolArguments {
    /// Reads every declared parameter that was given into `fields`, in the order declared.
    func read<Fields>(_ declarations: [ParameterDeclaration<Fields>], into fields: inout Fields) throws {
        for declaration in declarations {
            if let words = self[TypedToolArgument(words: declaration)] { try declaration.read(&fields, words) }
        }
    }
}
