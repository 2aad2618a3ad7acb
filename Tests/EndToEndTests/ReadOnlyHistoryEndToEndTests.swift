import Foundation
import Testing

/// An existing history database in a read-only directory, or read-only itself: the commands that only
/// read it work (issue 40 item 16: they open it read-only, immutable where WAL's files cannot be made);
/// a writing command exits 78 with a message that names what to fix (issue 10, item 13), not SQLite's
/// "attempt to write a readonly database" with exit 1.
@Suite("Read-only history end to end", .serialized, .blockingLanes)
struct ReadOnlyHistoryEndToEndTests {
    /// Root ignores permissions: as root the commands run as `nobody` through setpriv.
    static let isRoot = getuid() == 0
    static let canTest = !isRoot || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    static func run(_ arguments: [String], environment: [String: String]) throws -> ProcessResult {
        guard isRoot else { return try metrika(arguments, environment: environment) }
        return try runProcess(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.metrika] + arguments,
            environment: environment, timeout: 60)
    }

    @Test(.enabled(if: canTest), arguments: [false, true])
    func aReadOnlyHistoryIsReadButNotWritten(fileToo: Bool) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let directory = home.path + "/history"
        let path = directory + "/metrika.sqlite"
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": path])
        #expect(try metrika(["sync", "--counter", "1001", "--from", "5daysAgo"], environment: environment).status == 0)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal")) // a clean close removes the log
        let manager = FileManager.default
        if Self.isRoot {
            for item in [home.path, directory, path] {
                try manager.setAttributes([.ownerAccountID: 65534], ofItemAtPath: item)
            }
        }
        try manager.setAttributes([.posixPermissions: fileToo ? 0o444 : 0o644], ofItemAtPath: path)
        try manager.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory)
        defer { try? manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory) }

        // Reading commands read it as it is (issue 40 item 16): a backup can be inspected.
        for arguments in [
            ["report", "--counter", "1001", "--offline", "--from", "5daysAgo", "--to", "3daysAgo", "--csv"],
            ["cache", "info"],
            ["alert", "--status"]
        ] {
            let result = try Self.run(arguments, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(!result.stdout.isEmpty && result.stderr.isEmpty, "\(arguments): \(result.stderr)")
        }
        // Writing commands still say what to fix.
        for arguments in [["sync", "--counter", "1001"], ["alert", "--forget", "all"]] {
            let result = try Self.run(arguments, environment: environment)
            #expect(result.status == 78, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            let expected = fileToo ? "the file is read-only" : "its directory \(directory) is not writable"
            #expect(
                result.stderr.hasPrefix("Error: the history database \(path) cannot be written")
                    && result.stderr.contains(expected), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }
}
