import Foundation
import MetrikaSystem
import Testing

/// `metrika logs --output` follows the rules of every other `--output`: a device or FIFO is written
/// into and never replaced, a symbolic link is followed, setuid is never kept, and `-` is stdout with
/// report's exit codes (74 for a failed write, a quiet 141 for a reader that went away).
@Suite("Logs output end to end", .serialized, .blockingLanes)
struct LogsOutputEndToEndTests {
    static let now = "2026-06-15T12:00:00Z"

    func environment(_ api: FakeAPI, _ home: TemporaryDirectory) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path,
            extra: ["METRIKA_NOW": Self.now, "METRIKA_LOGS_POLL": "0", "METRIKA_DB": home.path + "/h.sqlite"])
    }

    func arguments(_ output: String, to: String = "2026-06-02") -> [String] {
        ["logs", "--counter", "1001", "--from", "2026-06-01", "--to", to, "--output", output]
    }

    /// Names in `directory` that a temporary file of an output would have.
    func leftovers(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".") }
    }

    /// Before: `/dev/full` was replaced by a 2 MB regular file and the run exited 0.
    @Test(.enabled(if: getuid() == 0, "mknod needs root"))
    func aFullDeviceIsExit74AndTheDeviceSurvives() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let nodes = try OutputEndToEndTests.makeNodes(in: home.path)
        let result = try metrika(arguments(nodes.full), environment: environment(api, home))
        #expect(result.status == 74, "\(result.stderr)")
        #expect(
            result.stderr.contains("Error: cannot write \(nodes.full): No space left on device\n"), "\(result.stderr)")
        #expect(OutputEndToEndTests.kind(nodes.full) == S_IFCHR)
        #expect(try leftovers(home.path).isEmpty)
    }

    @Test(.enabled(if: getuid() == 0, "mknod needs root"))
    func aNullDeviceIsWrittenIntoAndKept() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let nodes = try OutputEndToEndTests.makeNodes(in: home.path)
        let result = try metrika(arguments(nodes.null), environment: environment(api, home))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(OutputEndToEndTests.kind(nodes.null) == S_IFCHR)
        #expect(try leftovers(home.path).isEmpty)
    }

    /// Before: the FIFO was replaced by a file and its reader waited forever.
    @Test func aFIFOFeedsItsReader() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let fifo = home.path + "/visits.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let reader = FIFOReader(fifo)
        let result = try metrika(arguments(fifo), environment: environment(api, home))
        let read = reader.finish()
        #expect(read != nil, "the reader got nothing: the FIFO was replaced")
        #expect(result.status == 0, "\(result.stderr)")
        let text = String(decoding: read ?? Data(), as: UTF8.self)
        #expect(text.hasPrefix("ym:s:visitID\tym:s:counterID\t"))
        #expect(text.split(separator: "\n").count > 100)
        #expect(OutputEndToEndTests.kind(fifo) == S_IFIFO)
    }

    /// Before: the link was replaced by a file and the file it named stayed empty.
    @Test func aSymbolicLinkIsKeptAndItsTargetReplaced() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let target = home.path + "/target.tsv"
        let link = home.path + "/link.tsv"
        try Data().write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.tsv")
        let result = try metrika(arguments(link), environment: environment(api, home))
        #expect(result.status == 0, "\(result.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "target.tsv", "the link is kept")
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("ym:s:visitID\tym:s:counterID\t"))
        #expect(try leftovers(home.path).isEmpty)
    }

    /// A replaced file keeps its permission bits but never setuid or setgid; a new one follows the umask.
    @Test func aReplacedFileLosesSetuidAndANewOneFollowsTheUmask() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let old = home.path + "/old.tsv"
        let new = home.path + "/new.tsv"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: old))
        try #require(chmod(old, 0o6750) == 0)
        let replaced = try metrika(arguments(old), environment: environment(api, home))
        #expect(replaced.status == 0, "\(replaced.stderr)")
        var info = stat()
        try #require(stat(old, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o750)
        let created = try runProcess(
            "/bin/sh", ["-c", "umask 027; exec \"$0\" \"$@\"", Binaries.metrika] + arguments(new),
            environment: environment(api, home))
        #expect(created.status == 0, "\(created.stderr)")
        try #require(stat(new, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o640)
    }

    /// Before: exit 73 and `Error: cannot write standard output: No space left on device`.
    @Test func stdoutOnAFullDeviceIsExit74() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let result = try OutputEndToEndTests.run(
            arguments("-"), environment: environment(api, home), stdoutPath: "/dev/full")
        #expect(result.status == 74, "\(result.stderr)")
        #expect(
            result.stderr.contains("Error: cannot write to standard output: No space left on device\n"),
            "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "Error:").count == 2, "one error line")
        #expect(!result.signaled)
    }

    /// `metrika logs … --output - | head -1`. Before: exit 73, `Error: … Broken pipe`.
    @Test func stdoutToAReaderThatStopsEarlyEndsQuietlyWith141() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "1500"])
        let home = try TemporaryDirectory()
        // A week of visits: far more than a pipe and metrika's buffer hold.
        let result = try metrikaHeadOne(arguments("-", to: "2026-06-07"), environment: environment(api, home))
        let stderr = result.stderr
        #expect(result.line.hasPrefix("ym:s:visitID\tym:s:counterID\t"))
        #expect(result.exited, "no death by signal")
        #expect(result.status == 141, "stderr: \(stderr)")
        #expect(!stderr.contains("Error"), "no error message: \(stderr)")
    }
}
