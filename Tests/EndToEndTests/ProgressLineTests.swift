import Foundation
import MetrikaTestSupport
import Testing
@testable import MetrikaAPI
@testable import MetrikaCLI
@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaStore

/// One line of progress on a terminal's stderr — sync's counters and requests, retry waits and why,
/// a long report's rows — drawn in place and erased when done; nothing of it on a pipe (cron).
@Suite("Progress line")
struct ProgressLineTests {
    static let erase = "\r\u{1B}[K"

    static func context(terminal: Bool, environment: [String: String] = [:]) -> (CLIContext, TextSink) {
        let err = TextSink()
        let context = CLIContext(environment: ["TERM": "xterm"].merging(environment) { $1 }, stdout: TextSink(), stderr: err,
                                 transport: CLIConventionsTests.NoNetwork(), stderrIsTerminal: terminal)
        return (context, err)
    }

    @Test func drawnInPlaceRedrawnAroundNotesAndErased() {
        let (context, err) = Self.context(terminal: true, environment: ["NO_COLOR": "1"])
        context.progress("Syncing: 1/3 counters", force: true)
        context.note("Error: counter 7: gone")
        context.progress("Syncing: 3/3 counters", force: true)
        context.endProgress()
        context.endProgress()
        #expect(err.text == "\rSyncing: 1/3 counters\u{1B}[K" + Self.erase + "Error: counter 7: gone\n" + "\rSyncing: 1/3 counters\u{1B}[K"
            + "\rSyncing: 3/3 counters\u{1B}[K" + Self.erase)
    }

    @Test(arguments: [[String: String](), ["TERM": "dumb"]])
    func nothingWithoutATerminal(environment: [String: String]) {
        let (context, err) = Self.context(terminal: !environment.isEmpty, environment: environment)
        context.progress("Syncing: 1/3 counters", force: true)
        context.showRetryWait(RetryWait(seconds: 4, reason: "quota_requests_by_ip", nextAttempt: 2, maxAttempts: 5))
        context.showRetryWait(nil)
        context.note("Note: a line")
        context.endProgress()
        #expect(err.text == "Note: a line\n")
    }

    @Test func retryWaitSaysHowLongWhyAndWhichAttempt() {
        let (context, err) = Self.context(terminal: true)
        context.showRetryWait(RetryWait(seconds: 3.6, reason: "quota_requests_by_ip", nextAttempt: 2, maxAttempts: 5))
        context.showRetryWait(nil)
        #expect(err.text == "\rwaiting 4 s: quota_requests_by_ip, attempt 2/5\u{1B}[K" + Self.erase)
    }

    /// Server text in a progress line (a quota name) passes the one sanitizer, secrets masked, and
    /// the line never wraps.
    @Test func serverTextIsSanitizedMaskedAndCut() {
        let (context, err) = Self.context(terminal: true, environment: ["METRIKA_TOKEN": "y0_secret-token"])
        context.progressLine.width = 40
        context.showRetryWait(RetryWait(seconds: 0.5, reason: "\u{1B}]52;c;ZXZpbA==\u{07}\u{1B}[2Jy0_secret-token\u{202E}" + String(repeating: "A", count: 500), nextAttempt: 2, maxAttempts: 5))
        let text = err.text
        #expect(text.hasPrefix("\rwaiting 0.5 s: \\x1b]52;c;ZXZpbA==\\x07"), "\(text.debugDescription)")
        #expect(!text.contains("secret") && !text.contains("\u{202E}") && !text.contains("\u{07}"))
        // Only our own escapes: the carriage return and erase-to-end-of-line.
        #expect(text.components(separatedBy: "\u{1B}").count == 2)
        let line = text.dropFirst().dropLast(3)
        #expect(displayWidth(of: String(line)) == 39 && line.hasSuffix("…"), "\(line)")
    }

    // MARK: - The real binary: a pseudo-terminal (script(1)) against a pipe

    static func onTerminal(_ command: String, environment: [String: String]) throws -> ProcessResult {
        try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment.merging(["TERM": "xterm"]) { $1 })
    }

    @Test func syncShowsCountersRequestsAndWaitsOnATerminalOnly() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        // Wide enough for the status and the wait side by side (an 80-column line would cut the wait).
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": home.path + "/h.sqlite", "COLUMNS": "120"])
        try api.inject(["kind": "quota", "error_type": "quota_requests_by_ip", "count": 1, "path_prefix": "/stat"])
        let terminal = try Self.onTerminal("\(Binaries.metrika) sync --counter 1001,1002,1003", environment: environment)
        #expect(terminal.status == 0, "\(terminal.stdout)")
        let screen = terminal.stdout
        #expect(screen.contains("\rSyncing: 0/3 counters, "), "\(screen.debugDescription)")
        #expect(screen.contains("Syncing: 3/3 counters, "))
        #expect(screen.contains(" s: quota_requests_by_ip, attempt 2/5\u{1B}[K"), "\(screen.debugDescription)")
        // Erased before the summary: it starts a clean line.
        #expect(screen.contains(Self.erase + "Synced 3 of 3 counters"), "\(screen.debugDescription)")

        try api.reset()
        try api.inject(["kind": "quota", "error_type": "quota_requests_by_ip", "count": 1, "path_prefix": "/stat"])
        let piped = try metrika(["sync", "--counter", "1001,1002,1003"], environment: environment)
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty, "\(piped.stderr.debugDescription)")
        #expect(!piped.stdout.contains("\r") && !piped.stdout.contains("\u{1B}"))
    }

    @Test func longReportShowsRowsSoFarThenErasesIt() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        // A three-dimension answer takes the simulator a while on a busy machine.
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_TIMEOUT": "120"])
        let output = home.path + "/phrases.csv"
        let terminal = try Self.onTerminal("\(Binaries.metrika) report --counter 1001 --dimensions searchPhrase,city,browser --from 29daysAgo --limit 22000 --csv > \(output)", environment: environment)
        #expect(terminal.status == 0, "\(terminal.stdout)")
        #expect(terminal.stdout.hasPrefix("\rCounter 1001: 20000 of 22000 rows\u{1B}[K\rCounter 1001: 22000 of 22000 rows\u{1B}[K"), "\(terminal.stdout.debugDescription)")
        // Erased before the note that follows it.
        #expect(terminal.stdout.contains("22000 of 22000 rows\u{1B}[K" + Self.erase + "Note: counter 1001: showing the first 22000"), "\(terminal.stdout.debugDescription)")
        let piped = try metrika(["report", "--counter", "1001", "--dimensions", "searchPhrase,city,browser", "--from", "29daysAgo", "--limit", "22000", "--csv"], environment: environment)
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("Counter 1001:") && !piped.stderr.contains("\r") && !piped.stderr.contains("\u{1B}"), "\(piped.stderr)")
        // The file got the whole report (records; a phrase with a line break spans two lines).
        #expect(try String(contentsOfFile: output, encoding: .utf8).split(whereSeparator: \.isNewline).count >= 22_001)
        #expect(piped.stdoutLines.count >= 22_001)
    }
}
