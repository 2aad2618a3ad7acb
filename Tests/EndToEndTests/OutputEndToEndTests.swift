import Foundation
import MetrikaSystem
import Testing

/// Where output goes when the world is unkind: a full disk on stdout (exit 74 with a message), a
/// reader that stops early (`| head`: a quiet end), device and FIFO paths for `--output`, CSV options.
@Suite(.serialized, .blockingLanes) struct OutputEndToEndTests {
    /// Runs `metrika` with stdout on an open file (e.g. `/dev/full`, opened for writing only) and
    /// stderr drained through a pipe.
    static func run(_ arguments: [String], environment: [String: String], stdoutPath: String, timeout: Double = 120)
        throws -> ProcessResult
    {
        try #require(kind(stdoutPath) == S_IFCHR, "\(stdoutPath) must be the device it is named after")
        let stdout = try #require(FileHandle(forWritingAtPath: stdoutPath))
        defer { try? stdout.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.metrika)
        process.arguments = arguments
        process.environment = environment
        let errPipe = Pipe()
        process.standardOutput = stdout
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        let exited = exitSignal(of: process)
        try process.run()
        let box = OutputBox()
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            box.setErr(errPipe.fileHandleForReading.readDataToEndOfFile())
            drained.signal()
        }
        if exited.wait(timeout: .now() + timeout) == .timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        drained.wait()
        return ProcessResult(
            status: process.terminationStatus, stdout: "", stderr: String(decoding: box.err, as: UTF8.self),
            signaled: process.terminationReason == .uncaughtSignal)
    }

    static func kind(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    // MARK: - Item 9: stdout write errors

    /// Every data path to stdout fails loudly on a full disk: one `Error:` line, exit 74.
    @Test(arguments: [
        ["report", "--counter", "1001", "--csv"],
        [
            "report", "--counter", "1004", "--dimensions", "searchPhrase", "--metrics", "visits", "--limit", "5000",
            "--to", "yesterday", "--csv"
        ],
        ["report", "--counter", "1001", "--json"],
        ["report", "--counter", "1001"],
        ["counters", "--json"],
        ["counters", "--csv"],
        ["chart", "--counter", "1001", "--output", "-"],
        ["mail", "--counter", "1001", "--to", "ivan@example.com", "--sender", "metrika@example.com", "--dry-run"],
        ["mail", "--counter", "1001", "--to", "ivan@example.com", "--sender", "metrika@example.com", "--output", "-"]
    ])
    func aFullDiskOnStdoutIsExit74(arguments: [String]) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        // The big counter's phrases take the simulator a few seconds on a loaded machine: past the
        // harness's 5-second request timeout, the run ended 69 before it reached stdout.
        let result = try Self.run(
            arguments, environment: metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_TIMEOUT": "60"]),
            stdoutPath: "/dev/full")
        #expect(result.status == 74, "\(arguments): \(result.stderr)")
        #expect(
            result.stderr.hasSuffix("Error: cannot write to standard output: No space left on device\n"),
            "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "Error:").count == 2, "one error line")
        #expect(!result.signaled)
    }

    @Test func cacheInfoToAFullDiskIsExit74() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path)
        #expect(try metrika(["sync", "--counter", "1001"], environment: environment).status == 0)
        let result = try Self.run(["cache", "info", "--csv"], environment: environment, stdoutPath: "/dev/full")
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr == "Error: cannot write to standard output: No space left on device\n")
    }

    /// `metrika report … | head -1`: the reader takes a line and closes the pipe. metrika stops at
    /// the next write, quietly, with the status a shell reports for `cat` in the same place (141).
    @Test func aReaderThatStopsEarlyEndsItQuietly() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        var environment = metrikaEnvironment(api: api, home: home.path)
        environment["METRIKA_TIMEOUT"] = "120"
        // Three pages of 20,000 rows: the first alone is far more than a pipe and metrika's buffer hold.
        let result = try metrikaHeadOne(
            [
                "report", "--counter", "1004", "--dimensions", "searchPhrase", "--metrics", "visits",
                "--limit", "50000", "--to", "yesterday", "--csv"
            ], environment: environment, timeout: 240)
        let stderr = result.stderr
        #expect(result.line == "search_phrase,visits\n")
        #expect(result.exited, "no death by signal")
        #expect(result.status == 141, "stderr: \(stderr)")
        #expect(!stderr.contains("Error"), "no error message: \(stderr)")
        // The first page, and at most the one prefetched while it was written: not the third.
        #expect(try api.requestCount(pathPrefix: "/stat/v1/data") <= 2, "the rest of the report is not fetched")
    }

    // MARK: - Item 8: devices, FIFOs and modes for --output

    /// Device nodes of our own in a temp dir (c 1 7 is /dev/full's, c 1 3 /dev/null's), and a link
    /// like /dev/stdout: a broken build can then only ever replace these, never the real /dev.
    static func makeNodes(in directory: String) throws -> (full: String, null: String, stdout: String) {
        let full = directory + "/full"
        let null = directory + "/null"
        let stdout = directory + "/stdout"
        // Linux's encoding of a small major/minor pair (glibc's makedev is a macro Swift cannot import).
        try #require(mknod(full, S_IFCHR | 0o666, dev_t(1 << 8 | 7)) == 0)
        try #require(mknod(null, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0)
        try FileManager.default.createSymbolicLink(atPath: stdout, withDestinationPath: "/proc/self/fd/1")
        return (full, null, stdout)
    }

    /// As root the old code replaced /dev/full with a regular file. Now: written into, ENOSPC, 74 (an
    /// I/O error, as stdout on a full disk; 73 is for a file that cannot be created).
    @Test(.enabled(if: getuid() == 0, "mknod needs root"))
    func chartToAFullDeviceIsExit74AndTheDeviceSurvives() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let nodes = try Self.makeNodes(in: home.path)
        let result = try metrika(
            ["chart", "--counter", "1001", "--output", nodes.full],
            environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr == "Error: cannot write \(nodes.full): No space left on device\n")
        #expect(Self.kind(nodes.full) == S_IFCHR)
    }

    @Test(.enabled(if: getuid() == 0, "mknod needs root"))
    func chartToANullDeviceAndToStdoutThroughALinkWorks() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let nodes = try Self.makeNodes(in: home.path)
        let environment = metrikaEnvironment(api: api, home: home.path)
        let null = try metrika(["chart", "--counter", "1001", "--output", nodes.null], environment: environment)
        #expect(null.status == 0, "\(null.stderr)")
        #expect(Self.kind(nodes.null) == S_IFCHR)
        let stdout = try metrika(["chart", "--counter", "1001", "--output", nodes.stdout], environment: environment)
        #expect(stdout.status == 0, "\(stdout.stderr)")
        #expect(stdout.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "))
        #expect(stdout.stdout.hasSuffix("</svg>\n"))
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: nodes.stdout)) == "/proc/self/fd/1",
            "the link is kept")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: home.path).filter { $0.contains(".tmp-") }.isEmpty,
            "no temporaries left")
    }

    @Test func mailToAFIFOFeedsItsReader() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let fifo = home.path + "/mail.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let reader = FIFOReader(fifo)
        let result = try metrika(
            [
                "mail", "--counter", "1001", "--to", "ivan@example.com", "--sender", "metrika@example.com", "--output",
                fifo
            ],
            environment: metrikaEnvironment(api: api, home: home.path))
        let read = reader.finish()
        #expect(read != nil, "the reader got nothing: the FIFO was replaced")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: read ?? Data(), as: UTF8.self).contains("To: ivan@example.com"))
        #expect(Self.kind(fifo) == S_IFIFO)
    }

    /// `umask 027; metrika chart --output new.svg` gives 0640, not a fixed 0644 or mkstemp's 0600.
    @Test func aNewOutputFileFollowsTheUmask() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let path = home.path + "/chart.svg"
        let result = try runProcess(
            "/bin/sh", ["-c", "umask 027; exec \"$0\" chart --counter 1001 --output \"$1\"", Binaries.metrika, path],
            environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        var info = stat()
        try #require(stat(path, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o640)
    }

    // MARK: - CSV options

    @Test func csvLineEndsAreLFUnlessCRLFIsAsked() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path)
        let plain = try metrika(
            ["report", "--counter", "1001", "--metrics", "visits,avgVisitDuration", "--csv"], environment: environment)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.hasPrefix("date,visits,avg_visit_duration\n2"))
        #expect(!plain.stdout.contains("\r"))
        // Durations as H:MM:SS: `0:03:04`, which spreadsheets read as a duration.
        let lines = plain.stdout.split(separator: "\n")
        try #require(lines.count >= 2)
        let duration = try #require(lines[1].split(separator: ",").last)
        #expect(duration.wholeMatch(of: /\d+:\d\d:\d\d/) != nil, "\(duration)")
        let crlf = try metrika(
            ["report", "--counter", "1001", "--metrics", "visits", "--csv", "--crlf"], environment: environment)
        #expect(crlf.stdout.hasPrefix("date,visits\r\n"))
        // Every LF has its CR (Swift's "\r\n" is one Character: count bytes).
        #expect(crlf.stdout.utf8.filter { $0 == 0x0A }.count == crlf.stdout.utf8.filter { $0 == 0x0D }.count)
        #expect(crlf.stdout.utf8.filter { $0 == 0x0A }.count == 8)
        let wrong = try metrika(["report", "--counter", "1001", "--crlf"], environment: environment)
        #expect(wrong.status == 64)
        #expect(wrong.stderr.hasPrefix("Error: --crlf applies to CSV output only: add --csv\n"))
        let badPolicy = try metrika(["counters", "--csv", "--csv-formulas", "run"], environment: environment)
        #expect(badPolicy.status == 64)
        #expect(badPolicy.stderr.hasPrefix("Error: --csv-formulas must be defuse or keep, not 'run'\n"))
    }
}
