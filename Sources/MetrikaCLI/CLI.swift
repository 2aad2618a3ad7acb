import Foundation
import MetrikaKit

/// The entry point: parses the command line, runs one command, maps failures to exit codes.
public enum CLI {
    /// Every command, in the order `metrika --help` lists them.
    static var commands: [any Command.Type] { [
        CountersCommand.self,
        LogsCommand.self,
        ReportCommand.self,
        ChartCommand.self, MailCommand.self,
        SyncCommand.self,
        CacheInfoCommand.self,
        CachePruneCommand.self,
        LoginCommand.self,
        LogoutCommand.self,
        AuthStatusCommand.self,
    ] }

    /// Runs `metrika <arguments>` in `context` and returns the exit code. Never throws, never crashes
    /// on bad input: every failure becomes `Error: …` on stderr and a documented exit code.
    public static func run(arguments: [String], context: CLIContext) async -> Int32 {
        let code = await dispatch(arguments, context: context)
        context.stdout.flush()
        context.stderr.flush()
        return code
    }

    static func dispatch(_ arguments: [String], context: CLIContext) async -> Int32 {
        if let pinned = context.environment["METRIKA_NOW"], !pinned.isEmpty, CLIContext.parseInstant(pinned) == nil {
            context.note("Error: METRIKA_NOW '\(pinned)' is not an ISO 8601 instant such as 2026-11-29T12:00:00Z; fix or unset it.")
            return ExitCode.config
        }
        guard let first = arguments.first else {
            context.stderr.write(topLevelHelp)
            return ExitCode.usage
        }
        switch first {
        case "--help", "-h", "help":
            if arguments.count > 1, let command = find(Array(arguments.dropFirst()))?.command {
                context.stdout.write(command.helpText)
            } else {
                context.stdout.write(topLevelHelp)
            }
            return ExitCode.ok
        case "--version", "-V":
            context.stdout.write("metrika \(MetrikaVersion.current)\n")
            return ExitCode.ok
        default:
            break
        }
        guard let (command, consumed) = find(arguments) else {
            // `metrika cache` / `metrika auth` alone, or with an unknown second word: name the choices.
            let group = commands.map { $0.name }.filter { $0.hasPrefix(first + " ") }
            if !group.isEmpty {
                let given = arguments.count > 1 ? "Unknown command '\(first) \(arguments[1])'" : "'\(first)' needs a subcommand"
                context.note("Error: \(given)")
                context.stderr.write("Usage: \(group.map { "metrika " + $0 }.joined(separator: " | "))\n")
                return ExitCode.usage
            }
            let word = first.hasPrefix("-") ? "option" : "command"
            context.note("Error: Unknown \(word) '\(first)'")
            context.stderr.write("Usage: metrika <command> [options]   (see `metrika --help`)\n")
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst(consumed))
        do {
            let options = try ArgumentParser.parse(rest, options: command.allOptions)
            if options.flag("help") {
                context.stdout.write(command.helpText)
                return ExitCode.ok
            }
            return try await command.run(options, context: context)
        } catch let error as UsageError {
            context.note("Error: \(error.message)")
            context.stderr.write("Usage: metrika \(command.usage)\nRun `metrika \(command.name) --help` for details.\n")
            return error.exitCode
        } catch let error as any MetrikaFailure {
            // Every `Error:` line goes through `note`: messages quote servers (see `TerminalText`).
            context.note("Error: \(error.message)")
            return error.exitCode
        } catch is CancellationError {
            context.note("Error: interrupted.")
            return ExitCode.failure
        } catch {
            context.note("Error: \(error)")
            return ExitCode.failure
        }
    }

    /// The command named by the first one or two words.
    static func find(_ arguments: [String]) -> (command: any Command.Type, consumed: Int)? {
        if arguments.count >= 2, let command = commands.first(where: { $0.name == "\(arguments[0]) \(arguments[1])" }) {
            return (command, 2)
        }
        if let command = commands.first(where: { $0.name == arguments[0] }) {
            return (command, 1)
        }
        return nil
    }

    static var topLevelHelp: String {
        var text = """
        metrika \(MetrikaVersion.current) — Yandex.Metrika statistics in the terminal, in CSV and JSON, in SVG charts and by mail.

        Usage: metrika <command> [options]

        Commands:

        """
        let width = (commands.map { $0.name.count }.max() ?? 0) + 4
        for command in commands {
            text += "  " + command.name + String(repeating: " ", count: width - command.name.count) + command.summary + "\n"
        }
        text += """

        Run `metrika <command> --help` for a command's options.
        Global: --version, --help.

        Environment: METRIKA_TOKEN, METRIKA_API_URL, METRIKA_OAUTH_URL, METRIKA_DB, METRIKA_TIMEOUT,
        METRIKA_NOW, METRIKA_CLIENT_ID, METRIKA_CLIENT_SECRET, METRIKA_SENDMAIL, METRIKA_CLICKHOUSE_URL,
        METRIKA_CLICKHOUSE_USER, METRIKA_CLICKHOUSE_PASSWORD, METRIKA_LOGS_POLL, NO_COLOR, XDG_CONFIG_HOME, XDG_DATA_HOME.
        Exit codes: 0 ok, 64 usage, 65 unreadable API answer, 69 API unavailable, 73 cannot create output,
        75 quota exceeded (try later), 77 not signed in / access denied, 78 configuration, 130 login
        cancelled (Ctrl-C), 1 other.

        """
        return text
    }
}
