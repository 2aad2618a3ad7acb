import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaCLI
@testable import MetrikaModel

/// `metrika completions bash|zsh|fish`: the scripts the real binary prints, loaded into the real
/// shells. bash and fish are asked for completions (bash through COMP_WORDS/COMP_CWORD and
/// COMPREPLY, fish through `complete -C`); zsh is syntax-checked with `zsh -n`.
@Suite("Shell completions", .blockingLanes)
struct CompletionsTests {
    /// The script for `shell`, written to a temporary file.
    static func script(_ shell: String, in directory: TemporaryDirectory) throws -> String {
        let result = try metrika(["completions", shell], environment: ["PATH": "/usr/bin:/bin"])
        try #require(result.status == 0, "\(result.stderr)")
        let path = directory.path + "/metrika.\(shell)"
        try Data(result.stdout.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// What bash's completion function offers for each command line (the last word is the one being
    /// completed; "" for a fresh word). One bash process answers them all, one line per command line.
    static func bashComplete(_ lines: [[String]]) throws -> [[String]] {
        try ToolCheck.require("bash", package: "bash")
        let directory = try TemporaryDirectory()
        let path = try script("bash", in: directory)
        var program = "source \(path)\n"
        for words in lines {
            let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(
                separator: " ")
            program +=
                "COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMPREPLY=(); _metrika; echo \"${COMPREPLY[*]}\"\n"
        }
        let result = try runProcess(
            "/usr/bin/env", ["bash", "--norc", "--noprofile", "-c", program], environment: ["PATH": "/usr/bin:/bin"])
        try #require(result.status == 0, "bash: \(result.stderr)")
        #expect(result.stderr.isEmpty, "bash: \(result.stderr)")
        let replies = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            $0.split(separator: " ").map(String.init)
        }
        try #require(replies.count == lines.count, "\(result.stdout)")
        return replies
    }

    @Test func bashCompletesCommandsOptionsAndValues() throws {
        let cases: [([String], [String])] = [
            (["metrika", "rep"], ["report"]),
            (["metrika", "report", "--gro"], ["--group"]),
            (["metrika", "report", "--group", ""], ["day", "week", "month"]),
            (["metrika", "report", "--group", "=", "m"], ["month"]),
            (["metrika", "report", "--format", ""], ["table", "csv", "json", "html"]),
            (["metrika", "counters", "--format", ""], ["table", "csv", "json"]),
            (["metrika", "report", "--metrics", "visits,bounce"], ["visits,bounceRate"]),
            (["metrika", "report", "-d", "traffic"], ["trafficSource"]),
            (["metrika", "report", "--from", ""], []),
            (["metrika", "cache", ""], ["info", "prune", "--help"]),
            (["metrika", "cache", "prune", "--be"], ["--before"]),
            (["metrika", "auth", "st"], ["status"]),
            (["metrika", "bo"], ["bot"]),
            (["metrika", "bot", "--on"], ["--once"]),
            (["metrika", "completions", ""], ["bash", "zsh", "fish"]),
            (["metrika", "counters", "--status", ""], ["active", "deleted"]),
            (["metrika", "help", "co"], ["counters", "completions"]),
            // After options that may come before the command (metrika -v report …).
            (["metrika", "-v", "rep"], ["report"]),
            (["metrika", "-v", "report", "--group", ""], ["day", "week", "month"]),
            (["metrika", "--verbose", "auth", "st"], ["status"]),
            (["metrika", "-v", "-v", "counters", "--sea"], ["--search"]),
            // mcp is a command and a group: its options, then mcp token's words and options.
            (["metrika", "mcp", ""], ["token"]),
            (["metrika", "mcp", "--li"], ["--listen"]),
            (["metrika", "mcp", "--listen", "127.0.0.1:8808", "--pu"], ["--public-url"]),
            (["metrika", "mcp", "--all"], ["--allow-origin"]),
            (["metrika", "mcp", "token", ""], ["add", "list", "revoke"]),
            (["metrika", "mcp", "token", "add", "alice", "--"], ["--counters", "--oauth", "--json", "--help"]),
            (["metrika", "mcp", "token", "list", "--j"], ["--json"])
        ]
        let replies = try Self.bashComplete(cases.map(\.0))
        for (index, (words, expected)) in cases.enumerated() {
            #expect(replies[index].sorted() == expected.sorted(), "\(words.joined(separator: " ")) → \(replies[index])")
        }
    }

    /// Generated from the parser's tables: every option of every command completes from its prefix,
    /// and every known metric name completes after --metrics.
    @Test func bashOffersEveryOptionOfEveryCommand() throws {
        var lines: [[String]] = []
        var expected: [String] = []
        for command in CLI.commands {
            for spec in command.allOptions {
                lines.append(["metrika"] + command.name.split(separator: " ").map(String.init) + ["--" + spec.name])
                expected.append("--" + spec.name)
            }
        }
        for metric in Metric.known {
            lines.append(["metrika", "chart", "--metrics", metric.shortName])
            expected.append(metric.shortName)
        }
        let replies = try Self.bashComplete(lines)
        for (index, words) in lines.enumerated() {
            #expect(replies[index].contains(expected[index]), "\(words.joined(separator: " ")) → \(replies[index])")
        }
    }

    @Test func fishCompletesCommandsOptionsAndValues() throws {
        try ToolCheck.require("fish", package: "fish", searchPath: "/usr/bin:/bin")
        let directory = try TemporaryDirectory()
        let path = try Self.script("fish", in: directory)
        let syntax = try runProcess(
            "/usr/bin/fish", ["--no-config", "-n", path], environment: ["PATH": "/usr/bin:/bin"])
        #expect(syntax.status == 0, "fish -n: \(syntax.stderr)")
        let cases: [(String, [String])] = [
            ("metrika rep", ["report"]),
            ("metrika report --gro", ["--group"]),
            ("metrika report --group ", ["day", "week", "month"]),
            ("metrika report --metrics visits,page", ["visits,pageDepth", "visits,pageviews"]),
            ("metrika cache ", ["info", "prune"]),
            ("metrika completions ", ["bash", "zsh", "fish"]),
            ("metrika -v report --group ", ["day", "week", "month"]),
            ("metrika -v cache ", ["info", "prune"]),
            ("metrika mcp --li", ["--listen"]),
            ("metrika mcp --pu", ["--public-url"]),
            ("metrika mcp token ", ["add", "list", "revoke"]),
            ("metrika mcp token add alice --", ["--counters", "--oauth", "--json", "--help"])
        ]
        for (line, expected) in cases {
            let result = try runProcess(
                "/usr/bin/fish", ["--no-config", "-c", "source \(path); complete -C '\(line)'"],
                environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path])
            #expect(result.status == 0, "fish: \(result.stderr)")
            let offered = result.stdoutLines.map { String($0.split(separator: "\t", maxSplits: 1)[0]) }
            #expect(offered.sorted() == expected.sorted(), "\(line) → \(offered)")
        }
    }

    @Test func zshScriptParses() throws {
        try ToolCheck.require("zsh", package: "zsh", searchPath: "/usr/bin:/bin")
        let directory = try TemporaryDirectory()
        let path = try Self.script("zsh", in: directory)
        let result = try runProcess("/usr/bin/zsh", ["-n", path], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0 && result.stderr.isEmpty, "zsh -n: \(result.stderr)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("#compdef metrika\n"))
        #expect(
            text.contains(
                "--group[Grouping of time series and of date periods (--preset traffic); default day]:day|week|month:(day week month)"
            ))
    }

    /// zsh asked for completions without a terminal: the completion system's functions are stand-ins
    /// that print what they are given (`_arguments`' option specs, `_describe`'s choices), and
    /// `_metrika` runs with `words` and `CURRENT` as zsh would set them.
    @Test func zshCompletesMCPSubcommandsAndOptions() throws {
        try ToolCheck.require("zsh", package: "zsh", searchPath: "/usr/bin:/bin")
        let directory = try TemporaryDirectory()
        let path = try Self.script("zsh", in: directory)
        let cases: [(words: [String], offered: [String], notOffered: [String])] = [
            (["metrika", "mcp", ""], ["token:"], ["*--listen["]),
            (["metrika", "mcp", "--li"], ["*--listen[", "*--public-url[", "*--allow-origin["], ["token:"]),
            (["metrika", "mcp", "--listen", "127.0.0.1:0", "--"], ["*--public-url["], []),
            (["metrika", "mcp", "token", ""], [":argument:(add list revoke)", "*--counters["], ["*--listen["]),
            (["metrika", "mcp", "token", "add", "bob", "--"], ["*--counters[", "*--oauth[", "*--json["], ["*--listen["])
        ]
        var program = """
            compdef() { : }
            _describe() { print -rl -- "${(@P)argv[-1]}" }
            _arguments() { print -rl -- "$@" }
            _values() { print -rl -- "$@" }
            source \(path)

            """
        for words in cases.map(\.words) {
            let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
            program += "words=(\(quoted)); CURRENT=\(words.count); _metrika; print -r -- '@@'\n"
        }
        let result = try runProcess(
            "/usr/bin/zsh", ["-f", "-c", program], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0 && result.stderr.isEmpty, "zsh: \(result.stderr)")
        let replies = result.stdout.components(separatedBy: "@@\n")
        try #require(replies.count == cases.count + 1, "\(result.stdout)")
        for (index, (words, offered, notOffered)) in cases.enumerated() {
            let lines = replies[index].split(separator: "\n").map(String.init)
            for prefix in offered {
                #expect(lines.contains { $0.hasPrefix(prefix) }, "\(words.joined(separator: " ")) → \(lines)")
            }
            for prefix in notOffered {
                #expect(!lines.contains { $0.hasPrefix(prefix) }, "\(words.joined(separator: " ")) → \(lines)")
            }
        }
    }

    @Test func anUnknownShellIsAUsageError() throws {
        let result = try metrika(["completions", "bsh"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix("Error: No completions for 'bsh': choose bash, zsh or fish. Did you mean 'bash'?\n")
        )
        #expect(result.stdout.isEmpty)
    }
}
