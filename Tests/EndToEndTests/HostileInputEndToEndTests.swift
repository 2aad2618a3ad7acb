import Foundation
import Testing

/// Hostile parser input and process hygiene, against the built binary (issue 10, items 5 and 13):
/// a 1,000,000-deep answer, a lone UTF-16 surrogate in a name, the core-file limit, and the
/// directories a network command must not create.
@Suite("Hostile input end to end", .serialized, .blockingLanes)
struct HostileInputEndToEndTests {
    static func expectOneErrorLine(
        _ result: ProcessResult, code: Int32, says: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!result.signaled, "killed by a signal: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.status == code, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n")
        #expect(
            lines.count == 1 && lines[0].hasPrefix("Error: ") && lines[0].contains(says), "\(result.stderr)",
            sourceLocation: sourceLocation)
    }

    // MARK: - Deep nesting (item 5)

    @Test(arguments: [
        (["counters", "--csv"], "/management/v1/counters"),
        (["report", "--counter", "1001", "--from", "40daysAgo", "--to", "31daysAgo", "--csv"], "/stat/v1/data"),
        (["report", "--counter", "1001", "--dimensions", "trafficSource", "--csv"], "/stat/v1/data"),
        (
            ["report", "--counter", "1001", "--group", "week", "--from", "40daysAgo", "--to", "31daysAgo", "--csv"],
            "/stat/v1/data/bytime"
        )
    ])
    func aMillionDeepAnswerIsRefusedNotACrash(arguments: [String], path: String) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        try api.inject(["kind": "deep_nesting", "count": 9, "path_prefix": path])
        let result = try metrika(arguments, environment: metrikaEnvironment(api: api, home: home.path), timeout: 60)
        Self.expectOneErrorLine(result, code: 65, says: "nested more than 64 levels deep")
        // Unreadable answers are not retried.
        #expect(try api.requests().filter { ($0["path"] as? String) == path }.count == 1)
    }

    // MARK: - Lone surrogates (item 13)

    @Test func aLoneSurrogateInACounterNameCostsOneCharacter() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let clean = try metrika(["counters", "--csv"], environment: metrikaEnvironment(api: api, home: home.path))
        try api.inject(["kind": "lone_surrogate", "path_prefix": "/management/v1/counters"])
        let result = try metrika(["counters", "--csv"], environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\u{FFFD}counter_option test"))
        #expect(result.stdout.replacingOccurrences(of: "\u{FFFD}", with: "") == clean.stdout)
    }

    @Test func aLoneSurrogateInADimensionNameCostsOneCharacter() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let arguments = [
            "report", "--counter", "1001", "--dimensions", "trafficSource", "--from", "40daysAgo", "--to", "31daysAgo",
            "--csv"
        ]
        let clean = try metrika(arguments, environment: metrikaEnvironment(api: api, home: home.path))
        try api.inject(["kind": "lone_surrogate", "path_prefix": "/stat/v1/data"])
        let result = try metrika(arguments, environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\u{FFFD}"))
        #expect(result.stdout.replacingOccurrences(of: "\u{FFFD}", with: "") == clean.stdout)
    }

    // MARK: - Core files (item 5)

    /// A core file of metrika would hold the token: the running binary has a core limit of 0, hard
    /// and soft, like ssh-agent and gpg. Read from /proc while a slow answer keeps it waiting.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/limits")))
    func theRunningBinaryMayNotDumpCore() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        try api.inject(["kind": "delay", "delay_ms": 3_000, "count": 1])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.metrika)
        process.arguments = ["counters", "--csv"]
        process.environment = metrikaEnvironment(api: api, home: home.path)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        // The simulator logs a request only once it is answered, so don't wait for the log: read the
        // limits while the delayed answer keeps the process alive, until start-up has set them.
        var line = ""
        let deadline = Date().addingTimeInterval(2.5)
        while process.isRunning, Date() < deadline {
            if let limits = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8),
                let found = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max core file size") })
            {
                line = String(found)
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                // "Max core file size  <soft>  <hard>  bytes"
                if fields.count >= 6, fields[4] == "0", fields[5] == "0" { break }
            }
            usleep(20_000)
        }
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        #expect(fields.count >= 6 && fields[4] == "0" && fields[5] == "0", "\(line)")
    }

    // MARK: - Directories nobody asked for (item 13)

    /// Every file under a directory, relative to it.
    static func tree(_ root: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        return (enumerator.allObjects as? [String] ?? []).sorted()
    }

    /// Foundation's shared cookie store creates `$XDG_DATA_HOME/<binary's directory>/` the first
    /// time a URLSession configuration exists: a network command must leave the data home alone.
    @Test func aNetworkCommandCreatesNothingInTheDataHome() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(["counters", "--csv"], environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/data"), "created: \(Self.tree(home.path))")
        // Nor ~/.cache/org.swift.foundation.URLCache (URLCache.shared): nothing at all in HOME.
        #expect(Self.tree(home.path) == [], "created: \(Self.tree(home.path))")
    }
}
