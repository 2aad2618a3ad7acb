import Foundation
import MetrikaTestSupport
import Testing

/// The real binary colours a terminal and never a pipe (the in-process colour tests are in MetrikaCLITests).
@Suite("Colour of the real binary", .blockingLanes)
struct ColorEndToEndTests {
    static let red = "\u{1B}[1;31m", yellow = "\u{1B}[1;33m", green = "\u{1B}[32m", plainRed = "\u{1B}[31m",
        reset = "\u{1B}[0m"

    /// The real binary: a pseudo-terminal (script(1)) gets the red label, a pipe never does.
    @Test func realBinaryColoursOnlyATerminal() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let environment = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "TERM": "xterm"]
        let piped = try metrika(["reprot"], environment: environment)
        #expect(piped.status == 64)
        #expect(piped.stderr.hasPrefix("Error: Unknown command 'reprot'") && !piped.stderr.contains("\u{1B}"))
        let onTerminal = try runProcess(
            "/usr/bin/script", ["-qec", "\(Binaries.metrika) reprot", "/dev/null"], environment: environment)
        #expect(
            onTerminal.stdout.contains("\(Self.red)Error:\(Self.reset) Unknown command 'reprot'"),
            "\(onTerminal.stdout.debugDescription)")
        let noColor = try runProcess(
            "/usr/bin/script", ["-qec", "\(Binaries.metrika) reprot", "/dev/null"],
            environment: environment.merging(["NO_COLOR": "1"]) { $1 })
        #expect(
            noColor.stdout.contains("Error: Unknown command 'reprot'") && !noColor.stdout.contains("\u{1B}"),
            "\(noColor.stdout.debugDescription)")
    }
}
