import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI

/// What a user expects of any command line: `--help` on every command and group, a suggestion for a
/// typo, `-v` for `--verbose`. Runs in-process through `CLI.run` (no network: none of these call the API).
@Suite("CLI conventions")
struct CLIConventionsTests {
    /// A transport that must never be used.
    struct NoNetwork: HTTPTransport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            Issue.record("unexpected request to \(request.url)")
            throw CancellationError()
        }
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) async -> (
        code: Int32, out: String, err: String
    ) {
        let out = TextSink()
        let err = TextSink()
        let context = CLIContext(
            environment: ["HOME": "/nonexistent"].merging(environment) { $1 }, stdout: out, stderr: err,
            transport: NoNetwork())
        let code = await CLI.run(arguments: arguments, context: context)
        return (code, out.text, err.text)
    }

    @Test(arguments: [["cache", "--help"], ["cache", "-h"], ["help", "cache"], ["auth", "--help"], ["help", "auth"]])
    func groupsHaveHelp(arguments: [String]) async {
        let result = await Self.run(arguments)
        #expect(result.code == 0, "stderr: \(result.err)")
        #expect(result.err.isEmpty)
        let group = arguments.first == "help" ? arguments[1] : arguments[0]
        #expect(result.out.contains("Usage: metrika \(group) <command>"), "\(result.out)")
        // Each member is listed with its summary.
        let members = group == "cache" ? ["cache info", "cache prune"] : ["auth status"]
        for member in members { #expect(result.out.contains("  \(member) "), "\(member) missing from \(result.out)") }
    }

    /// `--allow` says one thing: chat numbers. A word and an @name get the same sentence (the first
    /// once offered "a channel's @name", which the second then refused).
    @Test(arguments: ["abc", "@mychannel", "42,@mychannel"])
    func botAllowTakesChatNumbersAndSaysOnlyThat(allow: String) async {
        let result = await Self.run(["bot", "--allow", allow, "--once"])
        #expect(result.code == 64, "\(result.err)")
        let lines = result.err.split(separator: "\n")
        #expect(
            lines.first?.hasPrefix("Error: --allow takes chat numbers such as 123456789 or -1001234567890, not ")
                == true, "\(result.err)")
        #expect(!result.err.contains("@name"), "\(result.err)")
    }

    /// bot's `--token-file` is Metrika's token, not the bot's (METRIKA_TELEGRAM_TOKEN).
    @Test func botHelpSaysWhoseTokenTheTokenFileHolds() async {
        let result = await Self.run(["bot", "--help"])
        #expect(result.code == 0)
        let line = result.out.split(separator: "\n").first { $0.contains("--token-file") }.map(String.init) ?? ""
        #expect(line.contains("Metrika's token (not the bot's"), "\(line)")
    }

    /// Every command — the tables the parser reads — answers `--help` with exit 0 on stdout.
    @Test func everyCommandHasHelp() async {
        let names = [
            "counters", "report", "chart", "mail", "alert", "sync", "cache info", "cache prune", "login", "logout",
            "auth status", "completions"
        ]
        for name in names {
            let words = name.split(separator: " ").map(String.init)
            let result = await Self.run(words + ["--help"])
            #expect(result.code == 0, "\(name): \(result.err)")
            #expect(result.out.contains("Usage: metrika \(name)"), "\(name): \(result.out)")
        }
    }

    @Test(arguments: [
        (["reprot"], "Unknown command 'reprot'. Did you mean 'report'?"),
        (["counter"], "Unknown command 'counter'. Did you mean 'counters'?"),
        (["cahce", "info"], "Unknown command 'cahce'. Did you mean 'cache'?"),
        (["cache", "inof"], "Unknown command 'cache inof'. Did you mean 'cache info'?"),
        (["help", "reprot"], "Unknown command 'reprot'. Did you mean 'report'?"),
        (["--vresion"], "Unknown option '--vresion'. Did you mean '--version'?"),
        (["report", "--gruop", "day"], "Unknown option '--gruop'. Did you mean '--group'?"),
        (["report", "--group=day", "--ofline"], "Unknown option '--ofline'. Did you mean '--offline'?")
    ])
    func typosGetASuggestion(arguments: [String], message: String) async {
        let result = await Self.run(arguments)
        #expect(result.code == 64)
        #expect(result.out.isEmpty)
        #expect(result.err.hasPrefix("Error: \(message)\n"), "\(result.err)")
    }

    /// Far from every name: no suggestion, rather than a silly one.
    @Test(arguments: [["frobnicate"], ["x"], ["counters", "--x"], ["report", "--zzzzzz"]])
    func noSuggestionWhenNothingIsClose(arguments: [String]) async {
        let result = await Self.run(arguments)
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("Error: Unknown "), "\(result.err)")
        #expect(!result.err.contains("Did you mean"), "\(result.err)")
    }

    @Test func editDistanceCountsATranspositionAsOneEdit() {
        #expect(ArgumentParser.editDistance("reprot", "report") == 1)
        #expect(ArgumentParser.editDistance("gruop", "group") == 1)
        #expect(ArgumentParser.editDistance("chart", "chart") == 0)
        #expect(ArgumentParser.editDistance("", "abc") == 3)
        #expect(ArgumentParser.editDistance("kitten", "sitting") == 3)
    }
}
