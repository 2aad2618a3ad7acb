import MetrikaModel

/// `metrika completions bash|zsh|fish`: prints a shell completion script, generated from the same
/// option tables the parser uses.
enum CompletionsCommand: Command {
    static let name = "completions"
    static let summary = "Print a shell completion script (bash, zsh or fish)"
    static let synopses: [[UsageTerm]] = [[.argument]]
    static let discussion = """
        Completes commands, options, option values (--group day|week|month, --format table|csv|json)
        and metric and dimension names. `scripts/install` puts all three where the shells look; or:

          metrika completions bash > ~/.local/share/bash-completion/completions/metrika
          metrika completions zsh > ~/.zfunc/_metrika     (a directory in $fpath, before compinit)
          metrika completions fish > ~/.config/fish/completions/metrika.fish
        """
    static let options: [OptionSpec] = []
    static var argumentChoices: [String] { CompletionScript.shells }

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        guard let shell = options.positionals.first else {
            throw UsageError("Name a shell: bash, zsh or fish")
        }
        guard options.positionals.count == 1 else {
            throw UsageError("Unexpected argument '\(options.positionals[1])'")
        }
        guard let script = CompletionScript.script(for: shell) else {
            let hint = ArgumentParser.suggestion(for: shell, among: CompletionScript.shells)
            throw UsageError(
                "No completions for '\(shell)': choose bash, zsh or fish"
                    + (hint.map { ". Did you mean '\($0)'?" } ?? ""))
        }
        context.stdout.write(script)
        return ExitCode.ok
    }
}
