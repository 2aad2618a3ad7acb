import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel

/// One line of progress on a terminal's stderr — sync's counters and requests, retry waits and why,
/// a long report's rows — drawn in place and erased when done; nothing of it on a pipe (cron).
@Suite("Progress line of the real binary", .blockingLanes(first: true))
struct ProgressLineEndToEndTests {
    static let erase = "\r\u{1B}[K"

    // MARK: - The real binary: a pseudo-terminal (script(1)) against a pipe

    static func onTerminal(_ command: String, environment: [String: String], timeout: Double = 60) throws
        -> ProcessResult
    {
        try runProcess(
            "/usr/bin/script", ["-qec", command, "/dev/null"],
            environment: environment.merging(["TERM": "xterm"]) { $1 }, timeout: timeout)
    }

    @Test func syncShowsCountersRequestsAndWaitsOnATerminalOnly() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        // Wide enough for the status and the wait side by side (an 80-column line would cut the wait).
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_DB": home.path + "/h.sqlite", "COLUMNS": "120"])
        try api.inject(["kind": "quota", "error_type": "quota_requests_by_ip", "count": 1, "path_prefix": "/stat"])
        let terminal = try Self.onTerminal(
            "\(Binaries.metrika) sync --counter 1001,1002,1003", environment: environment)
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

    /// Issue 24 item 16: a retry's `waiting 4 s` counted nothing down. On a terminal it is redrawn
    /// once a second with the seconds left; a pipe gets nothing of it (only --verbose's one line).
    @Test func aRetryWaitCountsDown() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_DB": home.path + "/h.sqlite", "COLUMNS": "120"])
        try api.inject([
            "kind": "quota", "error_type": "quota_requests_by_ip", "count": 1, "path_prefix": "/stat", "retry_after": 4
        ])
        let terminal = try Self.onTerminal("\(Binaries.metrika) sync --counter 1001", environment: environment)
        #expect(terminal.status == 0, "\(terminal.stdout)")
        for seconds in [4, 3, 2] {
            #expect(
                terminal.stdout.contains("waiting \(seconds) s: quota_requests_by_ip, attempt 2/5\u{1B}[K"),
                "\(terminal.stdout.debugDescription)")
        }
        #expect(terminal.stdout.contains(Self.erase + "Synced 1 of 1 counter"))
    }

    /// Issue 24 item 16: the sync progress line stayed on the screen after Ctrl-C or a SIGTERM. The
    /// process erases it, then ends by the signal as before (143 for SIGTERM).
    @Test func aSignalErasesTheLine() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_DB": home.path + "/h.sqlite", "METRIKA_TIMEOUT": "30"])
        try api.inject(["kind": "delay", "delay_ms": 8000, "count": 3, "path_prefix": "/stat"])
        let command =
            "\(Binaries.metrika) sync --counter 1001,1002,1003 & p=$!; sleep 2; kill -TERM $p; wait $p; echo \"rc=$?\""
        let terminal = try Self.onTerminal(command, environment: environment)
        let screen = terminal.stdout
        #expect(screen.contains("Syncing: 0/3 counters"), "\(screen.debugDescription)")
        // After the last drawing of the line ("…\e[K"), the erase, then the shell's own words.
        let afterLastDraw = try #require(
            screen.components(separatedBy: "Syncing: ").last?.components(separatedBy: "rc=").first)
        #expect(afterLastDraw.contains("\u{1B}[K" + Self.erase), "\(screen.debugDescription)")
        #expect(screen.contains("rc=143"), "\(screen.debugDescription)")
    }

    @Test func longReportShowsRowsSoFarThenErasesIt() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        // Two pages of the big counter's phrases (~1–3 s a page for the simulator; a three-dimension
        // report of 1001 cost ~8 s a page and made this the suite's longest test).
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_TIMEOUT": "120"])
        let output = home.path + "/phrases.csv"
        // The shell's wait is the request timeout's, not the harness's default minute (a loaded machine).
        let terminal = try Self.onTerminal(
            "\(Binaries.metrika) report --counter 1004 --dimensions searchPhrase --from 2daysAgo --to yesterday --limit 22000 --csv > \(output)",
            environment: environment, timeout: 300)
        #expect(terminal.status == 0, "\(terminal.stdout)")
        #expect(
            terminal.stdout.hasPrefix(
                "\rCounter 1004: 20000 of 22000 rows\u{1B}[K\rCounter 1004: 22000 of 22000 rows\u{1B}[K"),
            "\(terminal.stdout.debugDescription)")
        // Erased before the note that follows it.
        #expect(
            terminal.stdout.contains(
                "22000 of 22000 rows\u{1B}[K" + Self.erase + "Note: counter 1004: showing the first 22000"),
            "\(terminal.stdout.debugDescription)")
        let piped = try metrika(
            [
                "report", "--counter", "1004", "--dimensions", "searchPhrase", "--from", "2daysAgo", "--to",
                "yesterday", "--limit", "22000", "--csv"
            ], environment: environment)
        #expect(piped.status == 0)
        #expect(
            !piped.stderr.contains("Counter 1004:") && !piped.stderr.contains("\r") && !piped.stderr.contains("\u{1B}"),
            "\(piped.stderr)")
        // The file got the whole report (records; a phrase with a line break spans two lines).
        #expect(try String(contentsOfFile: output, encoding: .utf8).split(whereSeparator: \.isNewline).count >= 22_001)
        #expect(piped.stdoutLines.count >= 22_001)
    }
}
