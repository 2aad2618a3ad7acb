import Foundation
import MetrikaTestSupport
import Testing

/// Issue 24 item 4 and the `--list` part of 16: an interrupted `logs --output FILE` (a real SIGINT or
/// SIGTERM) leaves no `.FILE.tmp-…`, erases its progress line, says what it kept, and the same
/// command then resumes the request; `logs --list` is a table on a terminal and TSV in a pipe.
@Suite("Logs interrupted and listed", .serialized, .blockingLanes)
struct LogsInterruptEndToEndTests {
    static let now = "2026-06-15T12:00:00Z"

    func environment(_ api: FakeAPI, _ home: TemporaryDirectory) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path, retryScale: 0.05,
            extra: ["METRIKA_NOW": Self.now, "METRIKA_LOGS_POLL": "0", "METRIKA_DB": home.path + "/h.sqlite"])
    }

    /// A slow export (every Logs API call waits 300 ms) into `home/v.tsv`.
    func slowAPI() throws -> FakeAPI {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "300"])
        try api.inject([
            "kind": "delay", "delay_ms": 300, "count": 1000, "path_prefix": "/management/v1/counter/1001/logrequest/"
        ])
        return api
    }

    static let arguments = ["logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--output"]

    func temporaries(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
    }

    /// Waits (at most 30 s) until the export is writing its temporary file and has downloaded a
    /// part: the temporary appears before the log is ordered, and on a loaded machine a fixed wait
    /// after it could end the run before a request existed to keep.
    func waitForTemporary(_ directory: String, api: FakeAPI, while process: Process) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning, try temporaries(directory).isEmpty || !(try Self.downloading(api)) {
            usleep(50_000)
        }
    }

    /// `metrika logs … OUTPUT` started (not waited for) with SIGINT and SIGTERM at their default
    /// action, through `env --default-signal`: a test runner started in the background of a
    /// non-interactive shell inherits SIGINT ignored, and metrika (rightly) keeps an inherited ignore.
    /// Its stdout goes to `output` (default nowhere); its stderr is the pipe returned.
    func launch(into output: String, environment: [String: String], stdout: FileHandle = .nullDevice) throws -> (
        process: Process, errors: Pipe
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=INT,TERM", Binaries.metrika] + Self.arguments + [output]
        process.environment = environment
        let errors = Pipe()
        process.standardOutput = stdout
        process.standardError = errors
        try process.run()
        return (process, errors)
    }

    /// Whether the simulator has served a part download (its log lists a request once answered).
    static func downloading(_ api: FakeAPI) throws -> Bool {
        try api.requests().contains { ($0["path"] as? String)?.hasSuffix("/download") == true }
    }

    /// A signal while Metrika is still preparing the log (polling, before any part): the temporary
    /// goes, the ordered request is kept for the next run, and the exit status is 128 + the signal.
    @Test func aSignalWhilePollingKeepsTheOrderedRequest() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-ready-polls", "1000"])
        let home = try TemporaryDirectory()
        let file = home.path + "/v.tsv"
        var env = environment(api, home)
        env["METRIKA_LOGS_POLL"] = "1"
        let (process, errors) = try launch(into: file, environment: env)
        let ordered = {
            try api.requests().contains {
                ($0["method"] as? String) == "POST" && ($0["path"] as? String)?.hasSuffix("/logrequests") == true
            }
        }
        // Polling: a status request for the ordered log has reached the simulator, so metrika has
        // read the order's answer (and kept its id) — the condition itself, not a pause after the order.
        let polled = {
            try api.requests().contains {
                ($0["method"] as? String) == "GET" && ($0["path"] as? String)?.hasSuffix("/logrequest/7000001") == true
            }
        }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning, !(try polled()) { usleep(50_000) }
        let wasOrdered = try ordered()
        #expect(process.isRunning && wasOrdered)
        kill(process.processIdentifier, SIGTERM)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGTERM, "\(stderr)")
        #expect(try temporaries(home.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(stderr.contains("log request 7000001 is kept"), "\(stderr)")
        #expect(!(try api.requests().contains { ($0["path"] as? String)?.hasSuffix("/download") == true }))
    }

    /// A run blocked writing to a reader that stopped reading cannot wind down after the first
    /// signal; a second one ends it at once (the signal's default action), as an insistent Ctrl-C must.
    @Test func aSecondSignalEndsARunBlockedOnItsOutput() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-rows-per-day", "50000"])
        let home = try TemporaryDirectory()
        let fifo = home.path + "/out"
        #expect(mkfifo(fifo, 0o600) == 0)
        // The reading end is opened and never read: once the pipe's buffer is full, writes block.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let output: FileHandle = try #require(FileHandle(forWritingAtPath: fifo))
        let (process, _) = try launch(into: "-", environment: environment(api, home), stdout: output)
        let exited = exitSignal(of: process)
        // Blocked: the part download is under way and the pipe is full (its 64 KiB buffer holds all
        // the reader has not read), so the next write cannot return.
        let deadline = Date().addingTimeInterval(30)
        var buffered: Int32 = 0
        while Date() < deadline, process.isRunning, !(try Self.downloading(api)) || buffered < 60_000 {
            _ = ioctl(reader, UInt(FIONREAD), &buffered)
            usleep(20_000)
        }
        #expect(buffered >= 60_000, "the pipe never filled: \(buffered) bytes")
        #expect(process.isRunning)
        kill(process.processIdentifier, SIGTERM)
        #expect(exited.wait(timeout: .now() + 1) == .timedOut, "the first signal is the job's: it winds down, blocked")
        kill(process.processIdentifier, SIGTERM)
        let ended = exited.wait(timeout: .now() + 5) == .success
        #expect(ended, "a second SIGTERM must end the blocked run")
        if !ended {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalRemovesTheTemporarySaysWhatWasKeptAndTheRerunResumes(signal: Int32) throws {
        let api = try slowAPI()
        let home = try TemporaryDirectory()
        let env = environment(api, home)
        let file = home.path + "/v.tsv"
        let (process, errors) = try launch(into: file, environment: env)
        try waitForTemporary(home.path, api: api, while: process)
        #expect(try temporaries(home.path).count == 1)
        kill(process.processIdentifier, signal)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + signal, "\(stderr)")
        #expect(try temporaries(home.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(
            stderr.contains(
                "Interrupted: '\(file)' was not written (its temporary file is removed); log request 7000001 is kept"),
            "\(stderr)")

        try api.reset()
        let again = try metrika(Self.arguments + [file], environment: env)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("resuming log request 7000001"))
        #expect(try temporaries(home.path).isEmpty)
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written.hasPrefix("ym:s:visitID\tym:s:counterID\t") && written.split(separator: "\n").count > 1000)
    }

    @Test func onATerminalTheProgressLineIsErasedBeforeTheNote() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        try ToolCheck.require("curl", package: "curl", searchPath: "/usr/bin:/bin")
        let api = try slowAPI()
        let home = try TemporaryDirectory()
        let file = home.path + "/v.tsv"
        let command = (Self.arguments + [file]).joined(separator: " ")
        // Killed once a part has been served (the simulator's log says so), not a fixed second after the
        // temporary appears: the temporary comes before the order, and a loaded machine is slow.
        let served = "curl -s \(api.baseURL)/__sim/log | grep -q /download"
        let script =
            "\(Binaries.metrika) \(command) & pid=$!; while ! ls -a \(home.path) | grep -q tmp-; do sleep 0.1; done; n=0; while ! \(served) && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done; sleep 0.3; kill -TERM $pid; wait $pid; echo \"exit=$?\""
        let terminal = try runProcess(
            "/usr/bin/script", ["-qec", script, "/dev/null"],
            environment: environment(api, home).merging(["TERM": "xterm"]) { $1 })
        let screen = terminal.stdout
        #expect(screen.contains("exit=143"), "\(screen.debugDescription)")
        #expect(screen.contains("part "), "\(screen.debugDescription)")
        #expect(screen.contains("\r\u{1B}[KInterrupted: "), "\(screen.debugDescription)")
        #expect(try temporaries(home.path).isEmpty)
    }

    @Test func listIsATableOnATerminalAndTSVInAPipe() throws {
        try ToolCheck.require("script", package: "bsdutils", searchPath: "/usr/bin:/bin")
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-ready-polls", "1"])
        let home = try TemporaryDirectory()
        let env = environment(api, home)
        try api.inject(["kind": "logs_cut_part", "count": 5])
        _ = try metrika(Self.arguments + [home.path + "/a.tsv"], environment: env)
        let piped = try metrika(["logs", "--counter", "1001", "--list"], environment: env)
        #expect(piped.status == 0)
        #expect(piped.stdoutLines.first == "request_id\tstatus\tsource\tdate1\tdate2\tsize")
        #expect(
            piped.stdoutLines.count == 2
                && piped.stdoutLines[1].hasPrefix("7000001\tprocessed\tvisits\t2026-06-01\t2026-06-01\t"))
        let terminal = try runProcess(
            "/usr/bin/script", ["-qec", "\(Binaries.metrika) logs --counter 1001 --list", "/dev/null"],
            environment: env.merging(["TERM": "xterm"]) { $1 })
        let lines = terminal.stdout.split(whereSeparator: \.isNewline).map(String.init)
        #expect(terminal.status == 0)
        #expect(!terminal.stdout.contains("\t"), "\(terminal.stdout.debugDescription)")
        let header = try #require(lines.first { $0.contains("Request") })
        let row = try #require(lines.first { $0.contains("7000001") })
        // Aligned: each column starts where its title does; the size in MB, right-aligned under "Size".
        #expect(
            header.range(of: "Status")?.lowerBound.utf16Offset(in: header)
                == row.range(of: "processed")?.lowerBound.utf16Offset(in: row))
        #expect(row.hasSuffix(" MB") && header.count == row.count, "\(header)\n\(row)")
    }
}
