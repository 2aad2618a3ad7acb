import Foundation
import Testing

/// How the command line is read, as a newcomer types it: `-v` before the command (docs/auth.md's
/// `metrika -v report`), a short option with its value attached (`-c1001`), a bad METRIKA_COUNTER
/// named as the variable it is (did-you-mean for a command cut short: MetrikaCLITests' UsageErrorTablesTests).
@Suite("Command line end to end", .blockingLanes)
struct CommandLineEndToEndTests {
    static func run(_ arguments: [String], api: FakeAPI?, extra: [String: String] = [:]) throws -> ProcessResult {
        let home = try TemporaryDirectory()
        return try metrika(arguments, environment: metrikaEnvironment(api: api, home: home.path, extra: extra))
    }

    @Test func verboseBeforeTheCommand() throws {
        let api = try FakeAPI()
        // A database path that does not exist, inside a scratch folder (never a path outside it: as
        // root, metrika would create it).
        let scratch = try TemporaryDirectory()
        let missingDatabase = scratch.path + "/missing/x.sqlite"
        for arguments in [
            ["-v", "counters", "--csv"],
            ["--verbose", "report", "--counter", "1001", "--csv", "--offline", "--db", missingDatabase]
        ] {
            let result = try Self.run(arguments, api: api, extra: ["METRIKA_COUNTER": "1001"])
            #expect(!result.stderr.contains("Unknown option"), "\(arguments): \(result.stderr)")
            if arguments[1] == "counters" {
                #expect(result.status == 0, "\(result.stderr)")
                #expect(
                    result.stderr.contains("GET http://127.0.0.1:\(api.port)/management/v1/counters"),
                    "\(result.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: missingDatabase), "--offline made a database file")
        // The same as after it: the default counter is said where it came from.
        let report = try Self.run(["-v", "report", "--csv"], api: api, extra: ["METRIKA_COUNTER": "1001"])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stderr.contains("using counter 1001 from METRIKA_COUNTER"), "\(report.stderr)")
        // Commands that make no requests say -v has nothing to log; -v alone needs a command.
        let cache = try Self.run(["-v", "cache", "info"], api: nil)
        #expect(cache.status == 64)
        #expect(
            cache.stderr.hasPrefix("Error: -v logs API requests, and `metrika cache info` makes none: leave it out\n"),
            "\(cache.stderr)")
        let alone = try Self.run(["-v"], api: nil)
        #expect(alone.status == 64)
        #expect(alone.stderr.hasPrefix("Error: -v needs a command after it"), "\(alone.stderr)")
    }

    @Test func shortOptionWithItsValueAttached() throws {
        let api = try FakeAPI()
        let attached = try Self.run(["report", "-c1001", "--csv", "--from", "2daysAgo"], api: api)
        #expect(attached.status == 0, "\(attached.stderr)")
        let separate = try Self.run(["report", "-c", "1001", "--csv", "--from", "2daysAgo"], api: api)
        #expect(attached.stdout == separate.stdout)
        let flag = try Self.run(["counters", "-vx"], api: nil)
        #expect(flag.status == 64)
        #expect(
            flag.stderr.hasPrefix(
                "Error: Option '-v' (--verbose) takes no value; write each flag on its own, not '-vx'\n"),
            "\(flag.stderr)")
    }

    @Test func aBadMetrikaCounterNamesTheVariable() throws {
        for value in ["abc", "1001,x", "-5"] {
            let result = try Self.run(["report", "--csv"], api: nil, extra: ["METRIKA_COUNTER": value])
            #expect(result.status == 78, "\(result.stderr)")
            #expect(
                result.stderr
                    == "Error: METRIKA_COUNTER '\(value)' is not a counter id (a positive whole number, or several joined by commas); fix or unset it.\n",
                "\(result.stderr)")
        }
        // --counter wins over the variable, which is then not read at all.
        let api = try FakeAPI()
        #expect(
            try Self.run(["report", "--counter", "1001", "--csv"], api: api, extra: ["METRIKA_COUNTER": "abc"]).status
                == 0)
    }

}

/// `sync --from` a day after today fetched today alone without a word.
@Suite("Sync refuses a future --from", .blockingLanes)
struct SyncFutureFromEndToEndTests {
    @Test func aFutureFromIsRefusedBeforeAnyRequest() throws {
        let api = try FakeAPI(arguments: ["--now", "2026-06-15T12:00:00Z"])
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_NOW": "2026-06-15T12:00:00Z"])
        let result = try metrika(["sync", "--counter", "1001", "--from", "2027-01-01"], environment: environment)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "Error: --from 2027-01-01 is in the future: sync fetches the days from --from up to today; give a past day (YYYY-MM-DD or NdaysAgo)\n"
            ), "\(result.stderr)")
        #expect(try api.requestCount() == 0)
        // 2026-06-16 is already today in UTC+14, so it passes that check, but not in Moscow: refused
        // for counter 1001, naming its today.
        let tomorrow = try metrika(["sync", "--counter", "1001", "--from", "2026-06-16"], environment: environment)
        #expect(tomorrow.status == 64, "\(tomorrow.stderr)")
        #expect(
            tomorrow.stderr.contains(
                "Error: counter 1001: --from 2026-06-16 is after this counter's today (2026-06-15 in Europe/Moscow); give a past day"
            ), "\(tomorrow.stderr)")
        let past = try metrika(["sync", "--counter", "1001", "--from", "3daysAgo"], environment: environment)
        #expect(past.status == 0, "\(past.stderr)")
    }
}

/// A profile with several counters and a command that takes one: the profile is named, not --counter.
@Suite("One-counter commands and a default of several", .blockingLanes)
struct DefaultCountersEndToEndTests {
    @Test(arguments: [["goals"], ["logs", "--from", "3daysAgo", "--to", "yesterday", "--output", "-"]])
    func theMessageNamesWhereTheCountersCameFrom(arguments: [String]) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: home.path + "/config/metrika", withIntermediateDirectories: true)
        try Data(#"{"profiles": {"two": {"counter": [1001, 1002]}}}"#.utf8).write(
            to: URL(fileURLWithPath: home.path + "/config/metrika/config.json"))
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_PROFILE": "two"])
        let result = try metrika(arguments, environment: environment)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "Error: this command takes one counter, but profile 'two' names 2 (1001, 1002): choose one with --counter ID\n"
            ), "\(result.stderr)")
        #expect(try api.requestCount() == 0)
        let chosen = try metrika(["goals", "--counter", "1001", "--csv"], environment: environment)
        #expect(chosen.status == 0, "\(chosen.stderr)")
    }
}
