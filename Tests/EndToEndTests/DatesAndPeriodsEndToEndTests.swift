import Foundation
import Testing

/// Dates as people write them: NweeksAgo and NmonthsAgo wherever a date is taken (cache prune
/// included), named periods with --period, and the cache's answers before anything was synced.
@Suite("Dates and periods of the real binary", .blockingLanes)
struct DatesAndPeriodsEndToEndTests {
    @Test func reportByNamedPeriodEchoesItAndCoversTheWeek() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: api, home: home.path,
            extra: ["METRIKA_NOW": "2025-06-18T12:00:00Z", "METRIKA_DB": home.path + "/h.sqlite"])
        let result = try metrika(
            ["report", "--counter", "1001", "--period", "lastWeek", "--json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try HistoryTools.json(result.stdout)
        let period = try #require(document["period"] as? [String: Any])
        #expect(period["from"] as? String == "2025-06-09")
        #expect(period["to"] as? String == "2025-06-15")
        #expect((document["rows"] as? [Any])?.count == 7)
        let query = try #require(document["query"] as? [String: Any])
        #expect(query["period"] as? String == "lastWeek")
        let months = try metrika(
            ["report", "--counter", "1001", "--from", "1monthsAgo", "--to", "2weeksAgo", "--csv"],
            environment: environment)
        #expect(months.status == 0, "\(months.stderr)")
        #expect(months.stdoutLines.dropFirst().first?.hasPrefix("2025-05-18,") == true, "\(months.stdout)")
        #expect(months.stdoutLines.last?.hasPrefix("2025-06-04,") == true, "\(months.stdout)")
    }

    @Test func pruneTakesRelativeDates() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let path = home.path + "/h.sqlite"
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_NOW": "2025-06-18T12:00:00Z", "METRIKA_DB": path, "TZ": "UTC"])
        #expect(try metrika(["sync", "--counter", "1001", "--from", "39daysAgo"], environment: environment).status == 0)
        let prune = try metrika(["cache", "prune", "--before", "30daysAgo"], environment: environment)
        #expect(prune.status == 0, "\(prune.stderr)")
        #expect(prune.stdout == "Deleted 54 stored values before 2025-05-19.\n")
        let weeks = try metrika(["cache", "prune", "--before", "1weeksAgo"], environment: environment)
        #expect(weeks.stdout == "Deleted \(6 * 23) stored values before 2025-06-11.\n", "\(weeks.stderr)")
    }

    @Test func cacheInfoWithoutADatabaseSaysSoAndSucceeds() throws {
        let home = try TemporaryDirectory()
        let path = home.path + "/none/h.sqlite"
        let environment = metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_DB": path])
        let table = try metrika(["cache", "info"], environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout == "No history database yet at \(path): `metrika sync` or `metrika report` creates it.\n")
        let json = try metrika(["cache", "info", "--json"], environment: environment)
        #expect(json.status == 0)
        let document = try HistoryTools.json(json.stdout)
        #expect(document["exists"] as? Bool == false)
        #expect((document["counters"] as? [Any])?.isEmpty == true)
        let csv = try metrika(["cache", "info", "--csv"], environment: environment)
        #expect(csv.status == 0 && csv.stdout.hasPrefix("counter_id,name,"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func offlineReportOfAnUnsyncedCounterSaysRunSync() throws {
        let home = try TemporaryDirectory()
        let api = try FakeAPI()
        let environment = metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_DB": home.path + "/h.sqlite"])
        // A history that holds another counter (without any history, FullDiskEndToEndTests).
        let other = try metrika(
            ["sync", "--counter", "1002", "--from", "1daysAgo"],
            environment: metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": home.path + "/h.sqlite"]))
        #expect(other.status == 0, "\(other.stderr)")
        let result = try metrika(["report", "--counter", "1001", "--offline"], environment: environment)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: counter 1001 is not in the history"))
        #expect(result.stderr.contains("run metrika sync --counter 1001"))
        #expect(result.stdout.isEmpty)
    }
}
