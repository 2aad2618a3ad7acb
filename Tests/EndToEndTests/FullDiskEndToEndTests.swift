import Foundation
import MetrikaModel
import Testing

/// Issue 24 item 11: the history is a cache. On a full disk `report` still prints what it fetched
/// and warns once that it was not kept (exit 0: the report was delivered); `sync`, whose job is
/// keeping it, fails (74) and says so once, not once per counter. The full disk is SQLite's own
/// SQLITE_FULL, made to order by capping the file at its present size (METRIKA_DB_MAX_PAGES, SQLite's
/// max_page_count): the same error from the same write path as a full file system, without root.
/// Item 16: `report --offline` without a database creates no file.
@Suite("Full disk end to end", .serialized, .blockingLanes)
struct FullDiskEndToEndTests {
    /// A history of counter 1001's last 5 days, and the environment that caps it where it stands.
    static func filledHistory(_ api: FakeAPI, _ home: TemporaryDirectory) throws -> (
        path: String, full: [String: String]
    ) {
        let path = home.path + "/history.sqlite"
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": path])
        let sync = try metrika(["sync", "--counter", "1001", "--from", "4daysAgo"], environment: environment)
        #expect(sync.status == 0, "\(sync.stderr)")
        let pages = try HistoryTools.sqlite(path, "PRAGMA page_count")
        return (path, environment.merging(["METRIKA_DB_MAX_PAGES": pages]) { $1 })
    }

    @Test func reportPrintsWhatItFetchedAndWarnsOnce() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let (path, full) = try Self.filledHistory(api, home)
        let before = try HistoryTools.sqlite(path, "SELECT count(*) FROM daily_values")
        // Two counters, 60 days: several writes fail, one warning.
        let result = try metrika(
            ["report", "--counter", "1001,1002", "--from", "59daysAgo", "--metrics", "visits", "--csv"],
            environment: full)
        #expect(result.status == 0, "\(result.stderr)")
        let records = result.stdoutLines.dropFirst()
        #expect(records.count == 120, "\(result.stdout.prefix(300))")
        #expect(
            records.allSatisfy { $0.split(separator: ",").count == 3 && !$0.hasSuffix(",") }, "every day has its value")
        let warnings = result.stderr.components(separatedBy: "\n").filter { $0.hasPrefix("Warning:") }
        #expect(
            warnings == [
                "Warning: shown but not kept in the history: the history database \(path) is full (database or disk is full) — free space on its disk, or point METRIKA_DB (or --db) elsewhere."
            ], "\(result.stderr)")
        #expect(try HistoryTools.sqlite(path, "SELECT count(*) FROM daily_values") == before)
        #expect(try HistoryTools.sqlite(path, "PRAGMA integrity_check") == "ok")
        // The same report as a roomy history gives.
        let roomy = try metrika(
            ["report", "--counter", "1001,1002", "--from", "59daysAgo", "--metrics", "visits", "--csv"],
            environment: metrikaEnvironment(
                api: api, home: home.path, extra: ["METRIKA_DB": home.path + "/roomy.sqlite"]))
        #expect(roomy.stdout == result.stdout)
    }

    @Test func syncSaysItOnceAndStops() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let (_, full) = try Self.filledHistory(api, home)
        try api.reset()
        let result = try metrika(["sync", "--from", "59daysAgo"], environment: full)
        #expect(result.status == 74, "\(result.stderr)")
        let errors = result.stderr.components(separatedBy: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errors.count == 1, "\(result.stderr)")
        #expect(
            errors.first?.contains("is full") == true && errors.first?.contains("counters not synced") == true,
            "\(result.stderr)")
        // No counter is started after the disk is known to be full: at most the three in flight.
        #expect(try api.requestCount(pathPrefix: "/stat/") <= 3)
    }

    @Test func offlineWithoutADatabaseCreatesNothing() throws {
        let home = try TemporaryDirectory()
        let path = home.path + "/data/metrika.sqlite"
        let result = try metrika(
            ["report", "--counter", "1001", "--offline"],
            environment: metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_DB": path]))
        #expect(result.status == 78, "\(result.stderr)")
        #expect(
            result.stderr
                == "Error: no history yet at \(path): --offline reads only the history. Fill it with `metrika sync --counter ID` (or run without --offline), then try again.\n"
        )
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: home.path + "/data"))
    }
}
