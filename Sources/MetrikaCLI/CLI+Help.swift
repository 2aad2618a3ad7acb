import MetrikaModel

extension CLI {
    /// `metrika help [WORDS]`, `metrika --help [WORDS]`: a command's help, a group's, or the top level.
    static func help(for words: [String], context: CLIContext) -> Int32 {
        guard let first = words.first else {
            context.stdout.write(topLevelHelp)
            return ExitCode.ok
        }
        if let command = find(words)?.command {
            context.stdout.write(command.helpText)
            return ExitCode.ok
        }
        if !CommandCatalog.members(of: first).isEmpty, words.count == 1 {
            context.stdout.write(CommandCatalog.groupHelp(first))
            return ExitCode.ok
        }
        return unknownCommand(words, context: context)
    }

    /// Words that select no command: a group's `--help`, or an error naming the choices or the
    /// likeliest typo fix.
    static func unknownCommand(_ arguments: [String], context: CLIContext) -> Int32 {
        let first = arguments.first ?? ""
        let members = CommandCatalog.members(of: first)
        if !members.isEmpty {
            if arguments.count > 1, ["--help", "-h"].contains(arguments[1]) {
                context.stdout.write(CommandCatalog.groupHelp(first))
                return ExitCode.ok
            }
            let given = arguments.count > 1 ? CommandCatalog.unknownCommand(arguments) : "'\(first)' needs a subcommand"
            context.note("Error: \(UsageError(given).message)")
            context.stderr.write("Usage: \(members.map { "metrika " + $0.name }.joined(separator: " | "))\n")
            return ExitCode.usage
        }
        context.note("Error: \(UsageError(CommandCatalog.unknownCommand(arguments)).message)")
        context.stderr.write("Usage: metrika <command> [options]   (see `metrika --help`)\n")
        return ExitCode.usage
    }
}
