import Foundation
import MetrikaTestSupport
import Testing

/// The simulator of the live drills, started once for the suite: Fixtures/alerts (counter 520008's
/// tracking stops at 14:00 today), its clock and metrika's at 16:30 in Moscow.
final class LivePeers: @unchecked Sendable {
    static let now = "2026-12-01T13:30:00Z"

    /// Started on the suite's first use, stopped at its end (`.stops(LivePeers.shared)`).
    static let shared = SuiteFixture(start: { try LivePeers() }, stop: { $0.api.stop() })

    let api: FakeAPI

    init() throws {
        api = try FakeAPI(fixtures: "alerts", arguments: ["--now", Self.now])
    }

    static func get() throws -> LivePeers { try shared.get() }
}

/// A private tmux server (its own `-L` socket) with one pane running `sh`, for driving a full-screen
/// program as a person would: keys in, the screen read back with `capture-pane`. Killed at deinit.
final class TmuxPane: @unchecked Sendable {
    let socket = "metrika-live-" + UUID().uuidString.prefix(8)
    let environment: [String: String]
    let tmux: String

    init(width: Int, height: Int, environment: [String: String]) throws {
        tmux = try #require(ToolCheck.locate("tmux", searchPath: "/usr/bin:/bin:/usr/local/bin"))
        var environment = environment
        environment["TERM"] = "xterm-256color"
        environment["PS1"] = "$ "
        environment["ENV"] = ""
        self.environment = environment
        _ = try run([
            "-f", "/dev/null", "new-session", "-d", "-x", String(width), "-y", String(height), "-s", "live", "/bin/sh"
        ])
        _ = try run(["set-option", "-g", "status", "off"])
    }

    deinit { close() }

    /// Ends the pane's shell (and anything still running in it) and the server. The shell is killed
    /// by its id first: one that inherited SIGHUP ignored would outlive `kill-server`, and the server
    /// waits for it.
    func close() {
        if let text = try? run(["display-message", "-p", "-t", "live", "#{pane_pid}"]),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(pid, SIGKILL)
        }
        _ = try? run(["kill-server"])
    }

    /// Runs `tmux -L socket arguments` to its end and returns its stdout. Spawned and reaped here
    /// (posix_spawn, waitpid), its output through a file: the server the first call starts inherits
    /// the client's descriptors and outlives it, so a pipe would never end.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let output = NSTemporaryDirectory() + "tmux-out-" + UUID().uuidString
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = [tmux, "-L", socket] + arguments
        let environ = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let spawned = withCStrings(argv) { cArgv in
            withCStrings(environ) { cEnv in posix_spawn(&pid, tmux, &actions, nil, cArgv, cEnv) }
        }
        guard spawned == 0 else { throw SimpleError("cannot start tmux: \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw SimpleError("tmux \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
        return text
    }

    private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// Types `text` (tmux key names: `Enter`, `Tab`, `Left`, `C-c`, or literal words).
    func send(_ keys: String...) throws { try run(["send-keys", "-t", "live"] + keys) }

    /// The screen now, as text (no escapes).
    func screen() throws -> String { try run(["capture-pane", "-p", "-t", "live"]) }

    /// A pane format value: `#{alternate_on}`, `#{cursor_flag}`, `#{pane_width}`.
    func value(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "live", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits (polling, at most `seconds`) until the screen satisfies `condition`; returns the screen.
    @discardableResult
    func waitFor(_ what: String, seconds: Double = 30, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            usleep(100_000)
        }
        throw SimpleError("timed out waiting for \(what); the screen:\n\(last)")
    }
}

/// `metrika live` end to end: the built binary in a real terminal (tmux) against the simulator —
/// it draws, refreshes on r within one request per counter, redraws at a new size, and leaves the
/// terminal exactly as it found it on q and on SIGTERM; through a pipe, one plain snapshot.
@Suite(.serialized, .blockingLanes, .stops(LivePeers.shared)) struct LiveEndToEndTests {
    func environment(_ peers: LivePeers, home: TemporaryDirectory) -> [String: String] {
        var environment = metrikaEnvironment(api: peers.api, home: home.path, extra: ["METRIKA_NOW": LivePeers.now])
        environment["PATH"] = Binaries.directory.path + ":/usr/bin:/bin"
        return environment
    }

    func dataRequests(_ peers: LivePeers) throws -> Int { try peers.api.requestCount(pathPrefix: "/stat/v1/data") }

    /// The footer's `N requests today`, or nil.
    static func requestsToday(_ screen: String) -> Int? {
        screen.firstMatch(of: /(\d+) requests? today/).flatMap { Int($0.1) }
    }

    /// The text of a file the pane's shell writes after live has ended (`stty -g > after`), waited
    /// for (at most 10 s) rather than slept for: the shell's prompt line comes before the file.
    static func written(_ path: String) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") { return text }
            usleep(20_000)
        }
        throw SimpleError("\(path) was not written")
    }

    @Test func drawsRefreshesRedrawsAndQuitsLeavingTheTerminalAsItWas() throws {
        try ToolCheck.require("tmux", package: "tmux")
        let peers = try LivePeers.get()
        let home = try TemporaryDirectory()
        let pane = try TmuxPane(width: 80, height: 24, environment: environment(peers, home: home))
        defer { pane.close() }
        try pane.send("stty -g > \(home.path)/before; echo shell\"\"-before-live", "Enter")
        try pane.waitFor("the shell") { $0.contains("shell-before-live") }

        try pane.send(
            "metrika live --counter 520008,520001; echo \"live\"\"-exit=$?\"; stty -g > \(home.path)/after", "Enter")
        let drawn = try pane.waitFor("the first screen") {
            $0.contains("Магазин «До обеда» · 520008") && $0.contains("Last data")
        }
        #expect(try pane.value("#{alternate_on}") == "1")
        #expect(try pane.value("#{cursor_flag}") == "0")
        #expect(drawn.contains("since 14:00"), "\(drawn)")
        #expect(drawn.contains("00       03       06"))
        #expect(!drawn.contains("shell-before-live"))
        for line in drawn.split(separator: "\n") { #expect(line.count <= 80) }

        // r: one refresh, at most one request per counter (the earlier weeks are stored).
        // Done when the footer's count of today's requests moves: the screen is redrawn only once
        // every counter's refresh has ended, so the simulator's log then holds all of them.
        let before = try dataRequests(peers)
        let shown = try #require(Self.requestsToday(drawn), "\(drawn)")
        try pane.send("r")
        try pane.waitFor("the refreshed screen", seconds: 20) { (Self.requestsToday($0) ?? shown) > shown }
        let spent = try dataRequests(peers) - before
        #expect(spent >= 1 && spent <= 2, "a refresh of 2 counters made \(spent) data requests")

        // Tab: the other counter.
        try pane.send("Tab")
        try pane.waitFor("the second counter") { $0.contains("Сезонный магазин · 520001") && $0.contains("[2/2]") }
        try pane.send("Left")
        try pane.waitFor("back to the first") { $0.contains("520008") && $0.contains("[1/2]") }

        // ?: the keys.
        try pane.send("?")
        try pane.waitFor("the key list") { $0.contains("refresh now") }
        try pane.send("?")

        // A wider window: redrawn to the new width (the date flush right at column 120).
        try pane.run(["resize-window", "-t", "live", "-x", "120", "-y", "40"])
        // Waited for whole: tmux may be read between the header's redraw and the axis's.
        try pane.waitFor("the redraw at 120 columns") { screen in
            screen.split(separator: "\n").contains { $0.count > 100 && $0.hasSuffix("[1/2]") }
                && screen.contains("00      02      04")
        }

        try pane.send("q")
        let after = try pane.waitFor("the shell again") { $0.contains("live-exit=") }
        #expect(after.contains("live-exit=0"))
        #expect(after.contains("shell-before-live"), "the main screen with the shell's text is back:\n\(after)")
        #expect(!after.contains("Last data"))
        #expect(try pane.value("#{alternate_on}") == "0")
        #expect(try pane.value("#{cursor_flag}") == "1")
        let saved = try String(contentsOfFile: home.path + "/before", encoding: .utf8)
        let restored = try Self.written(home.path + "/after")
        #expect(saved == restored, "termios after live differs: \(saved) vs \(restored)")
    }

    @Test func sigtermRestoresTheTerminalToo() throws {
        try ToolCheck.require("tmux", package: "tmux")
        let peers = try LivePeers.get()
        let home = try TemporaryDirectory()
        let pane = try TmuxPane(width: 80, height: 24, environment: environment(peers, home: home))
        defer { pane.close() }
        try pane.send("stty -g > \(home.path)/before; echo shell\"\"-before-live", "Enter")
        try pane.waitFor("the shell") { $0.contains("shell-before-live") }
        try pane.send(
            "sh -c 'echo $$ > \(home.path)/pid; exec metrika live --counter 520001'; echo \"live\"\"-exit=$?\"; stty -g > \(home.path)/after",
            "Enter")
        try pane.waitFor("the first screen") { $0.contains("520001") && $0.contains("Last data") }
        let pid = try #require(
            Int32(
                String(contentsOfFile: home.path + "/pid", encoding: .utf8).trimmingCharacters(
                    in: .whitespacesAndNewlines)))
        kill(pid, SIGTERM)
        let after = try pane.waitFor("the shell again") { $0.contains("live-exit=") }
        #expect(after.contains("live-exit=143"))
        #expect(after.contains("stopped by SIGTERM"))
        #expect(after.contains("shell-before-live"))
        #expect(try pane.value("#{alternate_on}") == "0")
        #expect(try pane.value("#{cursor_flag}") == "1")
        #expect(
            try String(contentsOfFile: home.path + "/before", encoding: .utf8) == Self.written(home.path + "/after"))
    }

    @Test func throughAPipeOnePlainSnapshot() throws {
        let peers = try LivePeers.get()
        let home = try TemporaryDirectory()
        let result = try metrika(["live", "--counter", "520008,520001"], environment: environment(peers, home: home))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("\u{1B}"))
        #expect(result.stdout.contains("Магазин «До обеда» · 520008"))
        #expect(result.stdout.contains("Сезонный магазин · 520001"))
        #expect(result.stdout.contains("\u{2212}100% since 14:00"), "\(result.stdout)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    /// Issue 40 item 7: one unreadable counter among several blanked the snapshot (nothing printed,
    /// exit 64). The others print; the bad one is named on stderr, once; the exit code is its own.
    @Test func oneUnreadableCounterLeavesTheOthersPrinted() throws {
        let peers = try LivePeers.get()
        let home = try TemporaryDirectory()
        let unknown = try metrika(["live", "--counter", "520008,424242"], environment: environment(peers, home: home))
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(unknown.stdout.contains("Магазин «До обеда» · 520008"), "\(unknown.stdout)")
        #expect(unknown.stdout.contains("\u{2212}100% since 14:00"))
        #expect(unknown.stderr.hasPrefix("Error: counter 424242: "), "\(unknown.stderr)")
        #expect(unknown.stderr.split(separator: "\n").count == 1, "one line: \(unknown.stderr)")
        #expect(!unknown.stderr.contains("520008"))

        // Access denied (77): the simulator answers 403 for the second counter's metadata once.
        try peers.api.inject([
            "kind": "hostile_api_error", "status": 403, "count": 1, "path_prefix": "/management/v1/counter/520001"
        ])
        let denied = try metrika(
            ["live", "--counter", "520008,520001"], environment: environment(peers, home: try TemporaryDirectory()))
        #expect(denied.status == 77, "\(denied.stderr)")
        #expect(denied.stdout.contains("Магазин «До обеда» · 520008"), "\(denied.stdout)")
        #expect(!denied.stdout.contains("520001"))
        #expect(denied.stderr.hasPrefix("Error: counter 520001: Access denied"), "\(denied.stderr)")
        try peers.api.reset()
    }

    @Test func aBadCounterIsTheUsualError() throws {
        let peers = try LivePeers.get()
        let home = try TemporaryDirectory()
        let result = try metrika(["live", "--counter", "999999"], environment: environment(peers, home: home))
        #expect(result.status != 0)
        #expect(result.stderr.hasPrefix("Error: "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let noToken = try metrika(
            ["live", "--counter", "520001"],
            environment: metrikaEnvironment(api: peers.api, home: home.path, token: nil))
        #expect(noToken.status == 77, "\(noToken.stderr)")
        #expect(noToken.stderr.hasPrefix("Error: "))
    }
}
