/// The arguments of `metrika-fake-api --telegram`: the Bot API simulator instead of Metrika's.
package struct BotCommandLine: Sendable, Equatable {
    package var port: UInt16 = 0
    package var token = BotAPISimulator.defaultToken
    package var username = "metrika_test_bot"
    /// `--help`: print the usage and exit 0.
    package var showHelp = false
    /// `--parent-pid N`: exit once the process that started this one is gone.
    package var parentPID: Int32?

    package static let usage = """
        usage: metrika-fake-api --telegram [--port N] [--token TOKEN] [--username NAME] [--parent-pid PID]
          Serves the Telegram Bot API on 127.0.0.1 (docs/simulator.md, Telegram Bot API).
          --port N          port on 127.0.0.1 (default 0: pick a free one)
          --token TOKEN     the one bot token accepted (default \(BotAPISimulator.defaultToken))
          --username NAME   the bot's username getMe answers (default metrika_test_bot)
          --parent-pid PID  exit 0 once this process's parent is no longer PID
        The first line on stdout is `listening on http://127.0.0.1:PORT`.
        """

    /// Whether `arguments` ask for the Bot API simulator.
    package static func wanted(_ arguments: [String]) -> Bool { arguments.contains("--telegram") }

    /// Reads the arguments after `--telegram` (`--flag value` or `--flag=value`).
    package static func parse(_ arguments: [String]) throws(BotCommandLineError) -> BotCommandLine {
        var options = BotCommandLine()
        var rest = arguments.filter { $0 != "--telegram" }[...]
        while let argument = rest.popFirst() {
            if argument == "--help" || argument == "-h" {
                options.showHelp = true
                continue
            }
            let pieces = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let flag = pieces[0]
            guard ["--port", "--token", "--username", "--parent-pid"].contains(flag) else {
                throw BotCommandLineError(text: "unknown argument \(flag) with --telegram")
            }
            let value: String
            if pieces.count == 2 {
                value = pieces[1]
            } else if let next = rest.popFirst() {
                value = next
            } else {
                throw BotCommandLineError(text: "\(flag) needs a value")
            }
            switch flag {
            case "--port":
                guard let port = UInt16(value) else {
                    throw BotCommandLineError(text: "--port takes 0…65535, not \(value)")
                }
                options.port = port
            case "--token":
                guard !value.isEmpty, !value.contains("/") else {
                    throw BotCommandLineError(text: "--token must be a bot token without '/'")
                }
                options.token = value
            case "--username":
                options.username = value
            case "--parent-pid":
                guard let pid = Int32(value), pid > 0 else {
                    throw BotCommandLineError(text: "--parent-pid takes a process id, not \(value)")
                }
                options.parentPID = pid
            default:
                throw BotCommandLineError(text: "unknown argument \(flag) with --telegram")
            }
        }
        return options
    }
}

package struct BotCommandLineError: Error, CustomStringConvertible, Sendable {
    package var text: String
    package var description: String { text }
}
