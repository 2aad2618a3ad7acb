import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaServices
import MetrikaSystem
import MetrikaUseCases

/// The entry point: parses the command line, runs one command, maps failures to exit codes.
package enum CLI {
    /// Every command, in the order `metrika --help` lists them.
    static var commands: [any Command.Type] {
        [
            CountersCommand.self,
            AccountsCommand.self,
            LogsCommand.self,
            ReportCommand.self,
            GoalsCommand.self,
            ChartCommand.self, MailCommand.self,
            AlertCommand.self,
            ExplainCommand.self,
            AnnotateCommand.self,
            LiveCommand.self,
            SyncCommand.self,
            MCPCommand.self,
            MCPTokenCommand.self,
            BotCommand.self,
            CacheInfoCommand.self,
            CachePruneCommand.self,
            QuotaCommand.self,
            LoginCommand.self,
            LogoutCommand.self,
            AuthStatusCommand.self,
            CompletionsCommand.self
        ]
    }

    /// Runs `metrika <arguments>` in `context` and returns the exit code. Never throws, never crashes
    /// on bad input: every failure becomes `Error: …` on stderr and a documented exit code.
    package static func run(arguments: [String], context: CLIContext) async -> Int32 {
        var code = await dispatch(arguments, context: context)
        // Before the results reach the terminal: a progress line left there would prefix them.
        context.endProgress()
        // Data on stdout counts only once it is written: a full disk or a closed descriptor is an
        // error (exit 74), a reader that went away (`| head`) a quiet end (141).
        do {
            try context.stdout.flushChecked()
        } catch let failure as OutputWriter.Failure {
            if code == ExitCode.ok { code = report(failure, context: context) }
        } catch {}
        context.stderr.flush()
        return code
    }

    /// The exit code of a failed stdout write; its message unless the reader just stopped reading.
    static func report(_ failure: OutputWriter.Failure, context: CLIContext) -> Int32 {
        if failure.isClosedPipe { return failure.exitCode }
        // A stream closed before metrika started (`>&-`): main holds it on a read-only /dev/null.
        let message =
            failure.code == EBADF
            ? "cannot write to \(failure.destination): it is closed (redirect it to a file or /dev/null instead)"
            : failure.message
        context.note("Error: \(message)")
        return failure.exitCode
    }

    static func dispatch(_ arguments: [String], context: CLIContext) async -> Int32 {
        if let pinned = context.environment["METRIKA_NOW"], !pinned.isEmpty, CLIContext.parseInstant(pinned) == nil {
            context.note(
                "Error: METRIKA_NOW '\(pinned)' is not an ISO 8601 instant such as 2026-11-29T12:00:00Z; fix or unset it."
            )
            return ExitCode.config
        }
        guard let first = arguments.first else {
            context.stderr.write(topLevelHelp)
            return ExitCode.usage
        }
        switch first {
        case "--help", "-h", "help":
            return help(for: Array(arguments.dropFirst()), context: context)
        case "--version", "-V":
            context.stdout.write("metrika \(MetrikaVersion.current)\n")
            return ExitCode.ok
        default:
            break
        }
        // `metrika -v report …`: options of the command given before it count as given after it.
        let leading = Array(arguments.prefix { CommandCatalog.spellingsBeforeCommand.contains($0) })
        let words = Array(arguments.dropFirst(leading.count))
        guard !words.isEmpty else {
            context.note(
                "Error: \(UsageError("\(leading.joined(separator: " ")) needs a command after it, e.g. `metrika \(leading[0]) report`").message)"
            )
            context.stderr.write("Usage: metrika [-v] <command> [options]   (see `metrika --help`)\n")
            return ExitCode.usage
        }
        if leading.isEmpty == false, ["--help", "-h", "help", "--version", "-V"].contains(words[0]) {
            return await dispatch(words, context: context)
        }
        guard let (command, consumed) = find(words) else {
            return unknownCommand(words, context: context)
        }
        // Before the command's own words, so that a `--` among them still ends the options.
        let rest = leading + Array(words.dropFirst(consumed))
        do {
            if let given = rest.first(where: { Option.verbose.spec.spellings.contains($0) }), !command.makesRequests {
                throw UsageError("\(given) logs API requests, and `metrika \(command.name)` makes none: leave it out")
            }
            var options = try ArgumentParser.parse(rest, options: command.allOptions)
            if options[.help] {
                context.stdout.write(command.helpText)
                return ExitCode.ok
            }
            // The run's one set of services, handed to the command: the config file is read once through it.
            let services = Services(
                world: context.servicesWorld, selection: ServicesSelection(options, environment: context.environment))
            // Every command that signs in reads the config file (app credentials, profiles, counters):
            // a malformed one or an unknown profile is refused before anything else happens, whatever
            // the command would have taken from it.
            if command.allOptions.contains(where: { $0.name == Option.profile.name }) {
                _ = try services.configFile()
                _ = try services.profile()
            }
            // `--counter` from a default (METRIKA_COUNTER, the profile, the config file).
            if command.usesDefaultCounter, !options.contains(.counter), let defaults = try services.defaultCounters() {
                options.set(.counter, to: defaults.ids)
                options.counterDefaultSource = defaults.source
                services.logger?("using counter \(defaults.ids.joined(separator: ",")) from \(defaults.source)")
            }
            let session = Session(context: context, options: options, services: services)
            do {
                let status = try await command.run(session.options, session: session)
                await services.closeHistories()
                return status
            } catch {
                await services.closeHistories()
                throw error
            }
        } catch let error as ParameterError {
            context.note("Error: \(error.message(.cli))")
            context.stderr.write("Usage: metrika \(command.usage)\nRun `metrika \(command.name) --help` for details.\n")
            return error.exitCode
        } catch let error as UsageError {
            context.note("Error: \(error.message)")
            context.stderr.write("Usage: metrika \(command.usage)\nRun `metrika \(command.name) --help` for details.\n")
            return error.exitCode
        } catch let failure as OutputWriter.Failure {
            return report(failure, context: context)
        } catch let error as any MetrikaFailure {
            // Every `Error:` line goes through `note`: messages quote servers (see `TerminalText`).
            // An access error names its counter here: with several counters asked, which one.
            context.note(
                "Error: \((error as? APIError)?.messageNamingCounter(.cli) ?? ParameterNaming.cli.message(of: error))")
            return error.exitCode
        } catch let interruption as Interruption {
            // Asked to stop, not failed: the job's account of what it kept, then 128 + the signal.
            context.note(interruption.account)
            return interruption.exitCode
        } catch is CancellationError {
            context.note("Error: interrupted.")
            return ExitCode.failure
        } catch {
            context.note(lastResort(error, verbose: rest.contains { Option.verbose.spec.spellings.contains($0) }))
            return ExitCode.failure
        }
    }

    /// The line for an error no `catch` above knows: a generic sentence, never the value's own
    /// description (a Swift dump, which may quote anything); its type name only under `--verbose`.
    static func lastResort(_ error: any Error, verbose: Bool) -> String {
        let failure = UnexpectedFailure(error)
        return "Error: " + failure.message(.cli) + (verbose ? " (\(failure.typeName))" : "")
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

            Usage: metrika [-v] <command> [options]

            Commands:

            """
        let width = (commands.map { $0.name.count }.max() ?? 0) + 4
        for command in commands {
            text +=
                "  " + command.name + String(repeating: " ", count: width - command.name.count) + command.summary + "\n"
        }
        text += """

            Run `metrika <command> --help` (or `metrika help <command>`) for a command's options,
            `metrika cache --help` for a group's commands. `-v` (--verbose), before or after the command, logs
            each API request of the commands that make them.
            Global: --version, --help.

            Config: $XDG_CONFIG_HOME/metrika/config.json may set a default "counter", the OAuth app's
            "client_id"/"client_secret", what metrika alert checks ("alerts") and named "profiles" (token
            file, API URL, counter, app);
            precedence: option > environment > profile > config default.

            """
        text += ReferenceTables.helpParagraphs()
        return text
    }
}
