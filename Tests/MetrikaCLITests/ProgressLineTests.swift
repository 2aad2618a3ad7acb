import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI
@testable import MetrikaModel
@testable import MetrikaRender

/// One line of progress on a terminal's stderr — sync's counters and requests, retry waits and why,
/// a long report's rows — drawn in place and erased when done; nothing of it on a pipe (cron).
@Suite("Progress line")
struct ProgressLineTests {
    static let erase = "\r\u{1B}[K"

    static func context(terminal: Bool, environment: [String: String] = [:]) -> (CLIContext, TextSink) {
        let err = TextSink()
        let context = CLIContext(
            environment: ["TERM": "xterm"].merging(environment) { $1 }, stdout: TextSink(), stderr: err,
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
        #expect(
            err.text == "\rSyncing: 1/3 counters\u{1B}[K" + Self.erase + "Error: counter 7: gone\n"
                + "\rSyncing: 1/3 counters\u{1B}[K"
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
        context.showRetryWait(
            RetryWait(
                seconds: 0.5,
                reason: "\u{1B}]52;c;ZXZpbA==\u{07}\u{1B}[2Jy0_secret-token\u{202E}"
                    + String(repeating: "A", count: 500), nextAttempt: 2, maxAttempts: 5))
        let text = err.text
        #expect(text.hasPrefix("\rwaiting 0.5 s: \\x1b]52;c;ZXZpbA==\\x07"), "\(text.debugDescription)")
        #expect(!text.contains("secret") && !text.contains("\u{202E}") && !text.contains("\u{07}"))
        // Only our own escapes: the carriage return and erase-to-end-of-line.
        #expect(text.components(separatedBy: "\u{1B}").count == 2)
        let line = text.dropFirst().dropLast(3)
        #expect(displayWidth(of: String(line)) == 39 && line.hasSuffix("…"), "\(line)")
    }
}
