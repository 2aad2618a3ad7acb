/// The command tree as data — commands, the groups of two-word commands, their options — from which
/// `--help`, typo suggestions, shell completions and the man page are all built, so none of them can
/// drift from what the parser accepts.
enum CommandCatalog {
    /// The options `metrika` itself takes before a command.
    static let globalOptions: [OptionSpec] =
        [
            OptionSpec("help", short: "h", help: "Show help (also: metrika help COMMAND)"),
            OptionSpec("version", short: "V", help: "Print the version")
        ] + optionsBeforeCommand

    /// Options of the command that may also come before it (`metrika -v report …`, as in `git -p log`):
    /// the parser moves them after the command word(s); completions skip them to find the command.
    static let optionsBeforeCommand: [OptionSpec] = [CommonOptions.verbose]

    /// `-v`, `--verbose`: how `optionsBeforeCommand` are spelt.
    static var spellingsBeforeCommand: [String] { optionsBeforeCommand.flatMap(\.spellings) }

    /// What each group of two-word commands (`cache info`, `auth status`) is about.
    static let groupSummaries: [String: String] = [
        "cache": "The history database: what it holds, forgetting old days",
        "auth": "The stored sign-in"
    ]

    /// The first word of a command name: `cache` of `cache info`.
    static func firstWord(of command: any Command.Type) -> String {
        String(command.name.split(separator: " ")[0])
    }

    /// Every first word `metrika` accepts — commands and groups — in the order help lists them.
    static var firstWords: [String] {
        var seen: Set<String> = []
        return CLI.commands.map(firstWord(of:)).filter { seen.insert($0).inserted }
    }

    /// The commands of a group (`cache` → cache info, cache prune); empty when `word` is no group.
    static func members(of word: String) -> [any Command.Type] {
        CLI.commands.filter { $0.name.hasPrefix(word + " ") }
    }

    /// The summary of a first word: the command's own, or its group's.
    static func summary(of word: String) -> String {
        if let command = CLI.commands.first(where: { $0.name == word }) { return command.summary }
        return groupSummaries[word] ?? members(of: word).map { $0.summary }.joined(separator: "; ")
    }

    /// `metrika cache --help`: the group's commands with their summaries.
    static func groupHelp(_ word: String) -> String {
        let members = members(of: word)
        let subcommands = members.map { String($0.name.dropFirst(word.count + 1)) }
        var text =
            "\(summary(of: word))\n\nUsage: metrika \(word) <command> [options]   (\(subcommands.joined(separator: ", ")))\n\nCommands:\n"
        let width = (members.map { $0.name.count }.max() ?? 0) + 4
        for command in members {
            text +=
                "  " + command.name + String(repeating: " ", count: width - command.name.count) + command.summary + "\n"
        }
        text += "\nRun `metrika \(word) <command> --help` for a command's options.\n"
        return text
    }

    /// The error for words that name no command, with the closest name when a typo is likely:
    /// `Unknown command 'reprot'. Did you mean 'report'?`.
    static func unknownCommand(_ arguments: [String]) -> String {
        let first = arguments.first ?? ""
        if first.hasPrefix("-") {
            let name = String(first.drop { $0 == "-" })
            let suggestion =
                first.hasPrefix("--")
                ? ArgumentParser.suggestion(for: name, among: globalOptions.map(\.name)).map { "--" + $0 } : nil
            return ArgumentParser.unknown("option", first, suggestion: suggestion)
        }
        let members = members(of: first)
        if !members.isEmpty, arguments.count > 1 {
            let subcommands = members.map { String($0.name.dropFirst(first.count + 1)) }
            let suggestion = ArgumentParser.suggestion(for: arguments[1], among: subcommands).map { first + " " + $0 }
            return ArgumentParser.unknown("command", first + " " + arguments[1], suggestion: suggestion)
        }
        return ArgumentParser.unknown(
            "command", first, suggestion: ArgumentParser.suggestion(for: first, among: firstWords + ["help"]))
    }
}
