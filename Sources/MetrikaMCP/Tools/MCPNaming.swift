import MetrikaModel
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
        action: { mcpAction($0) })

    /// What a model can do (a tool call), or what it should ask the user: signing in, the history
    /// database and the settings are the server's machine's, not a tool's.
    private static func mcpAction(_ action: SuggestedAction) -> String {
        let signIn =
            "Ask the user to sign in to Yandex.Metrika again on the machine that runs this server (or "
            + "give it another token) and restart the server."
        let database =
            "ask the user to fix it on the machine that runs this server; meanwhile get_report's "
            + "dimension reports (which do not use it) still work"
        switch action {
        case .sync(let id): return "call get_report for counter \(id) without offline to fetch its days"
        case .cleanLogs(let id):
            return "ask the user to clean the log requests of counter \(id) (they are not "
                + "reachable through this server)"
        case .watchToday(let id):
            return "call check_alerts with counter_ids [\(id)] and today true to judge "
                + "today's hours so far against the same hours of earlier weeks"
        case .fetchOnline: return "call get_report again without offline to fetch it"
        case .compareOtherDays(let id):
            return "call explain_change for counter \(id) again with against "
                + "previous or DATE..DATE to compare with other days"
        case .fillHistoryFirst: return "Call get_report without offline to fetch its days first."
        case .alertCheck: return "check_alerts"
        case .useTelegram: return "Telegram delivery"
        case .giveTelegramToken:
            return "ask the user to give this server the bot's token on the machine that runs it"
        case .signIn, .signInOrGiveToken, .signInAgain, .replaceTokenFile, .replaceForeignTokenFile, .protectTokenFile,
            .fixToken, .signInProfile, .signInToKeyring, .giveClientID, .giveClientSecret, .pipeToken, .signInSooner,
            .retrySignIn, .checkClientCredentials, .retrySignInThenDetails, .signInAfterExpiry, .renewToken,
            .storeInKeyringAgain, .keepTokenInFile:
            return signIn
        case .signInAsViewer:
            return "Call list_counters for the counters this server's token can read, or ask the user for "
                + "access to the counter (its owner grants it in Metrika's access settings)."
        case .giveAppCredentials, .giveAppSecret:
            return "ask the user to give this server's OAuth app (its client id and secret) on the machine that runs it"
        case .fillHistory: return "get_report without offline"
        case .createHistory: return "get_report"
        case .checkClock: return "is the server's clock right?"
        case .narrowQuery: return "Ask for fewer days (from/to or period), fewer dimensions, or accuracy low."
        case .checkConnection:
            return "Try the call again later; if it keeps failing, tell the user that the "
                + "machine that runs this server cannot reach it."
        case .retryThenReport: return "Try the call once more; if it persists, tell the user."
        case .checkAPIAddress, .checkTLS, .raiseResponseLimit:
            return "Tell the user: the server's settings (the API's address, its proxy or its limits) need a "
                + "look on the machine that runs it."
        case .reportUnexpected:
            return "Try the call once more; if it fails again, tell the user (the server's "
                + "log has its kind)."
        case .chooseAnotherDatabase, .restoreDatabase, .upgradeForDatabase, .checkDatabaseDirectory,
            .makeDatabaseWritable,
            .freeDatabaseDisk:
            return database
        case .giveClickHouseCredentials, .checkTelegramToken, .checkTelegramAddress:
            return "ask the user to fix the server's settings on the machine that runs it."
        }
    }
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
            self.init(
                name, .string, description, required: required, choices: declaration.choices, maxLength: maxLength)
        case .integer(let range):
            self.init(
                name, .integer, description, required: required, minimum: range.lowerBound, maximum: range.upperBound)
        case .list(let maxItems, let maxLength):
            self.init(
                name, .strings, description, required: required, choices: declaration.choices, maxLength: maxLength,
                maxItems: maxItems)
        case .ids(let maxItems):
            // The report's counters (the one declaration of this shape): ids, or "all" (the portfolio).
            self.init(
                name, .integersOrAll, description, required: required, minimum: 1, maximum: Int(Int32.max),
                maxItems: maxItems)
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
            self.init(argument, kinds: [.integersOrAll]) { value in
                if case .string(let text) = value { return [text] }
                return Self.wholes(value)?.map(String.init)
            }
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
