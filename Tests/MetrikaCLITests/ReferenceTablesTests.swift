import Foundation
import MetrikaModel
import Testing

@testable import MetrikaCLI

/// The environment and exit-code tables that `--help` and the man page are made from are complete:
/// every `METRIKA_` name the sources mention is a row (or said not to be a setting), every exit code
/// in `ExitCode` is a row, and README.md documents every one of them.
@Suite("Reference tables")
struct ReferenceTablesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every `METRIKA_X` in the client's sources (the simulator's own are documented in docs/simulator.md).
    static func namesInSources() throws -> [String: String] {
        var found: [String: String] = [:]
        let sources = root.appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(pattern: "METRIKA_[A-Z][A-Z0-9_]*")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files
        where file.hasSuffix(".swift") && !file.hasPrefix("MetrikaSimulator/") && !file.hasPrefix("metrika-fake-api/") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                found[String(text[Range(match.range, in: text)!]), default: file] = file
            }
        }
        return found
    }

    @Test func everyVariableTheSourcesMentionIsDocumented() throws {
        let names = try Self.namesInSources()
        #expect(names.count >= 15, "the scan found too little: \(names.keys.sorted())")
        for (name, file) in names.sorted(by: { $0.key < $1.key }) {
            #expect(
                ReferenceTables.variableNames.contains(name) || ReferenceTables.notSettings[name] != nil,
                "\(name) (Sources/\(file)) is in no row of ReferenceTables.environment")
        }
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let help = CLI.topLevelHelp
        let page = ManPage.render()
        for name in ReferenceTables.variableNames {
            #expect(readme.contains("`\(name)`"), "README.md's Environment table lacks \(name)")
            #expect(help.contains(name), "metrika --help lacks \(name)")
            #expect(page.contains(ManPage.escape(name)), "the man page lacks \(name)")
        }
    }

    /// Issue 40 item 10: `live` quit with Ctrl-C (a key in its full screen) ends with 0, and every
    /// place that says so agrees — README's table said 130 where docs/live.md and the code said 0.
    @Test func liveQuitByCtrlCIsExitZeroEverywhere() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let live = try String(contentsOf: Self.root.appendingPathComponent("docs/live.md"), encoding: .utf8)
        let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| 130 |") })
        #expect(!row.contains("130 Ctrl-C"), "\(row)")
        #expect(row.contains("Ctrl-C typed in `live`'s full screen is its quit key, like `q`: exit 0"), "\(row)")
        #expect(live.contains("| `q`, Ctrl-C | quit (exit 0) |"))
        #expect(live.contains("`q`, Ctrl-C (both exit 0"))
        let table = try #require(ReferenceTables.exitCodes.first { $0.code == 130 })
        #expect(
            table.meaning.contains("Ctrl-C typed in live's full screen is its quit key, like q: exit 0"),
            "\(table.meaning)")
        #expect(LiveCommand.discussion.contains("q or Ctrl-C quit (exit 0"), "metrika live --help")
        #expect(ManPage.render().contains("q or Ctrl\\-C quit (exit 0"), "the man page")
    }

    @Test func everyExitCodeIsDocumented() throws {
        let source = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/MetrikaModel/Values/MetrikaFailure.swift"),
            encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"static let \w+: Int32 = (\d+)"#)
        var codes = pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)).map {
            Int32(source[Range($0.range(at: 1), in: source)!])!
        }
        codes.append(130)
        #expect(codes.count >= 11)
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let page = ManPage.render()
        for code in codes {
            #expect(
                ReferenceTables.exitCodes.contains { $0.code == code },
                "exit code \(code) is in no row of ReferenceTables.exitCodes")
            #expect(readme.contains("| \(code) |"), "README.md's exit codes lack \(code)")
            #expect(page.contains(".B \(code)\n"), "the man page's EXIT STATUS lacks \(code)")
            #expect(
                CLI.topLevelHelp.contains(" \(code) ") || CLI.topLevelHelp.contains("\n\(code) "),
                "metrika --help lacks exit code \(code)")
        }
    }

    /// `--verbose` is offered only where there are requests to log.
    @Test func helpOffersVerboseOnlyWhereRequestsAreMade() {
        for command in CLI.commands {
            let offers = command.helpText.contains("--verbose")
            #expect(offers == command.makesRequests, "\(command.name) --help")
        }
        #expect(!CacheInfoCommand.helpText.contains("Log each API request"))
        #expect(!CompletionsCommand.helpText.contains("Log each API request"))
        #expect(CountersCommand.helpText.contains("Log each API request"))
    }
}
