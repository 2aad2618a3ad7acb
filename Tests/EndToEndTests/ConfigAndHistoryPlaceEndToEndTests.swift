import Foundation
import MetrikaTestSupport
import Testing

/// Where metrika keeps its settings and its history, when that place cannot be used (issue 32,
/// items 2 and 11): a config file that is there but cannot be read is never taken for none, and a
/// history that cannot be created is configuration — exit 78 both, before any request.
@Suite(.blockingLanes) struct ConfigAndHistoryPlaceEndToEndTests {
    /// An environment whose API is a closed local port: a request would fail loudly, not reach Yandex.
    static func environment(_ home: TemporaryDirectory, extra: [String: String] = [:]) -> [String: String] {
        metrikaEnvironment(
            api: nil, home: home.path,
            extra: [
                "METRIKA_API_URL": "http://127.0.0.1:9", "METRIKA_OAUTH_URL": "http://127.0.0.1:9",
                "METRIKA_DB": home.path + "/h.sqlite"
            ]
            .merging(extra) { $1 })
    }

    /// A directory where config.json should be: every command that reads the config says so (exit 78)
    /// instead of running without it (alert without its skip list, report without its default counter).
    @Test func aDirectoryInPlaceOfTheConfigFileIsExit78ForEveryCommand() throws {
        let home = try TemporaryDirectory()
        let config = home.path + "/config/metrika/config.json"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        for arguments in [["report", "--from", "yesterday"], ["alert"], ["alert", "--status"], ["counters"], ["sync"]] {
            let result = try metrika(arguments, environment: Self.environment(home), timeout: 30)
            #expect(result.status == 78, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr
                    == "Error: Cannot use the config file \(config): it is a directory. Remove or rename it; the config file is a JSON file (docs/auth.md).\n",
                "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    /// A config file the user may not read (issue 32: it was taken for none, so `report` asked for a
    /// default counter the file sets). The tests run as root, who reads any file: then the binary is
    /// run as the user nobody (setpriv), which may not read root's mode-600 file.
    @Test func aConfigFileTheUserMayNotReadIsExit78() throws {
        let home = try TemporaryDirectory()
        let config = home.path + "/config/metrika/config.json"
        try FileManager.default.createDirectory(
            atPath: home.path + "/config/metrika", withIntermediateDirectories: true)
        try Data(#"{"counter": 1001}"#.utf8).write(to: URL(fileURLWithPath: config))
        var command = [Binaries.metrika]
        if getuid() == 0 {
            try ToolCheck.require("setpriv", package: "util-linux", searchPath: "/usr/bin:/bin")
            // nobody must reach the binary and the directories, not the file.
            let binary = home.path + "/metrika"
            try ExecutableFile.copy(Binaries.metrika, to: binary)
            for path in [home.path, home.path + "/config", home.path + "/config/metrika", binary] {
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: config)
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary]
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: config)
        }
        let result = try runProcess(
            command[0], Array(command.dropFirst()) + ["report", "--from", "yesterday"],
            environment: Self.environment(home), timeout: 30)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("Error: Cannot use the config file \(config): permission denied. "),
            "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// A history whose directory cannot be created (a file in the way): 78, as README's exit-code
    /// table says, naming the database.
    @Test func aHistoryThatCannotBeCreatedIsExit78() throws {
        let home = try TemporaryDirectory()
        let blocker = home.path + "/not-a-directory"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let database = blocker + "/metrika/h.sqlite"
        let result = try metrika(
            ["report", "--counter", "1001", "--from", "yesterday"],
            environment: Self.environment(home, extra: ["METRIKA_DB": database]), timeout: 30)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("cannot create or open the history database \(database)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
