import Foundation
import Testing

@testable import MetrikaCLI

/// Colour only where a person reads it: on a terminal, without NO_COLOR (or TERM=dumb), and only the
/// `Error:`/`Warning:` labels and the sign of a change. Pipes and files never get an escape sequence.
@Suite("Colour")
struct ColorTests {
    static let red = "\u{1B}[1;31m", yellow = "\u{1B}[1;33m", green = "\u{1B}[32m", plainRed = "\u{1B}[31m",
        reset = "\u{1B}[0m"

    static func run(_ arguments: [String], terminal: Bool, environment: [String: String] = [:]) async -> (
        code: Int32, out: String, err: String
    ) {
        let out = TextSink()
        let err = TextSink()
        let context = CLIContext(
            environment: ["HOME": "/nonexistent", "TERM": "xterm"].merging(environment) { $1 }, stdout: out,
            stderr: err,
            transport: CLIConventionsTests.NoNetwork(), stdoutIsTerminal: terminal, stderrIsTerminal: terminal)
        let code = await CLI.run(arguments: arguments, context: context)
        return (code, out.text, err.text)
    }

    @Test func errorLabelIsRedOnATerminal() async {
        let result = await Self.run(["reprot"], terminal: true)
        #expect(result.code == 64)
        #expect(
            result.err.hasPrefix("\(Self.red)Error:\(Self.reset) Unknown command 'reprot'. Did you mean 'report'?\n"),
            "\(result.err.debugDescription)")
        // Only the label: the rest of the message and the usage line stay plain.
        #expect(result.err.components(separatedBy: "\u{1B}[").count - 1 == 2)
        let usage = await Self.run(["report", "--gruop", "day"], terminal: true)
        #expect(usage.err.hasPrefix("\(Self.red)Error:\(Self.reset) Unknown option '--gruop'"))
    }

    @Test(arguments: [["NO_COLOR": "1"], ["TERM": "dumb"]])
    func noColorAndDumbTerminalsGetPlainText(environment: [String: String]) async {
        let result = await Self.run(["reprot"], terminal: true, environment: environment)
        #expect(result.err.hasPrefix("Error: Unknown command 'reprot'"))
        #expect(!result.err.contains("\u{1B}"))
    }

    @Test func notATerminalGetsPlainText() async {
        let result = await Self.run(["reprot"], terminal: false)
        #expect(result.err.hasPrefix("Error: Unknown command"))
        #expect(!result.err.contains("\u{1B}"))
    }

    @Test func labelsAndSigns() {
        let style = TerminalStyle(enabled: true)
        #expect(style.label("Warning: not revoked") == "\(Self.yellow)Warning:\(Self.reset) not revoked")
        #expect(style.label("Error: counter 1: gone") == "\(Self.red)Error:\(Self.reset) counter 1: gone")
        #expect(style.label("Note: gaps") == "Note: gaps")
        #expect(style.label("Syncing…") == "Syncing…")
        #expect(style.change("+5.2%") == "\(Self.green)+5.2%\(Self.reset)")
        #expect(style.change("-0.9 pp") == "\(Self.plainRed)-0.9 pp\(Self.reset)")
        #expect(style.change("−3%") == "\(Self.plainRed)−3%\(Self.reset)")
        #expect(style.change("0.0%") == "0.0%")
        #expect(style.change("—") == "—")
        let plain = TerminalStyle(enabled: false)
        #expect(plain.label("Warning: x") == "Warning: x")
        #expect(plain.change("+5.2%") == "+5.2%")
    }

    /// A warning of a command goes through `note` and gets its colour there.
    @Test func warningsThroughNoteAreYellow() {
        let err = TextSink()
        let context = CLIContext(
            environment: ["TERM": "xterm"], stdout: TextSink(), stderr: err, transport: CLIConventionsTests.NoNetwork(),
            stderrIsTerminal: true)
        context.note("Warning: the token file holds no readable token")
        #expect(err.text == "\(Self.yellow)Warning:\(Self.reset) the token file holds no readable token\n")
    }
}
