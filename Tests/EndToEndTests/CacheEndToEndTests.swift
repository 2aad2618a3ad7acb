import Foundation
import MetrikaModel
import MetrikaStore
import MetrikaTestSupport
import Testing

/// `metrika cache info` and `metrika cache prune` on a history that `sync` filled.
@Suite("Cache end to end", .serialized, .blockingLanes)
struct CacheEndToEndTests {
    @Test func infoShowsCountersAndSpansAndPruneDeletes() throws {
        // A pinned noon: counter 1002 keeps Yekaterinburg's days, a day ahead of Moscow's between 19:00
        // and 21:00 UTC, and the spans below are the same day for every counter only at a sane hour.
        let now = "2026-11-29T12:00:00Z"
        let api = try FakeAPI(arguments: ["--now", now])
        let home = try TemporaryDirectory()
        let path = home.path + "/history.sqlite"
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": path, "METRIKA_NOW": now])
        let today = try #require(Day(iso: "2026-11-29"))
        #expect(
            try metrika(["sync", "--counter", "1001,1002", "--from", "19daysAgo"], environment: environment).status == 0
        )
        #expect(try metrika(["sync", "--counter", "1003", "--from", "4daysAgo"], environment: environment).status == 0)

        let info = try metrika(["cache", "info", "--json"], environment: environment)
        #expect(info.status == 0, "\(info.stderr)")
        let document = try HistoryTools.json(info.stdout)
        #expect(document["path"] as? String == path)
        #expect(document["schema_version"] as? Int == HistoryTools.latestSchema)
        #expect((document["size_bytes"] as? Int ?? 0) > 0)
        let counters = try #require(document["counters"] as? [[String: Any]])
        let spans = counters.map {
            "\($0["counter_id"] as? Int ?? 0) \($0["first_day"] as? String ?? "-") \($0["last_day"] as? String ?? "-") \($0["days"] as? Int ?? 0)"
        }
        #expect(
            spans == [
                "1001 \(today.adding(days: -19).iso) \(today.iso) 20",
                "1002 \(today.adding(days: -19).iso) \(today.iso) 20",
                "1003 \(today.adding(days: -4).iso) \(today.iso) 5"
            ])
        let table = try metrika(["cache", "info"], environment: environment)
        #expect(table.status == 0)
        #expect(table.stdout.contains("Database:     \(path)\n"))
        #expect(table.stdout.contains("Counters:     3\n"))

        // Prune the oldest 5 days: 5 days × 6 metrics × 2 counters; counter 1003 starts later and keeps all.
        let cutoff = today.adding(days: -14)
        let prune = try metrika(["cache", "prune", "--before", cutoff.iso], environment: environment)
        #expect(prune.status == 0, "\(prune.stderr)")
        #expect(prune.stdout == "Deleted 60 stored values before \(cutoff.iso).\n")
        #expect(try HistoryTools.sqlite(path, "SELECT count(*) FROM daily_values WHERE day < '\(cutoff.iso)'") == "0")
        let after = try HistoryTools.json(try metrika(["cache", "info", "--json"], environment: environment).stdout)
        let firstDays = (after["counters"] as? [[String: Any]] ?? []).map {
            "\($0["first_day"] as? String ?? "-") \($0["days"] as? Int ?? 0)"
        }
        #expect(firstDays == ["\(cutoff.iso) 15", "\(cutoff.iso) 15", "\(today.adding(days: -4).iso) 5"])
        // Pruning again finds nothing, and the pruned days are not served offline.
        #expect(
            try metrika(["cache", "prune", "--before", cutoff.iso], environment: environment).stdout
                == "Deleted 0 stored values before \(cutoff.iso).\n")
        let offline = try metrika(
            ["report", "--counter", "1001", "--offline", "--from", "19daysAgo", "--to", "15daysAgo"],
            environment: environment)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stderr.contains("no history for"))
        #expect(try HistoryTools.sqlite(path, "PRAGMA integrity_check") == "ok")
    }

    /// Issue 24 item 9: `--before 2030-01-01` deleted every day, today included, without a word.
    @Test(arguments: ["tomorrow+", "2030-01-01"])
    func pruneRefusesADayAfterToday(_ before: String) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let path = home.path + "/history.sqlite"
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_DB": path, "TZ": "UTC"])
        #expect(try metrika(["sync", "--counter", "1001", "--from", "4daysAgo"], environment: environment).status == 0)
        let stored = try HistoryTools.sqlite(path, "SELECT count(*) FROM daily_values")
        // "tomorrow+": the first day after today (UTC, pinned), the smallest date refused.
        let utcToday = Int(TestClock.date.timeIntervalSince1970 / 86_400)
        let day = before == "tomorrow+" ? Day(ordinal: utcToday + 1).iso : before
        let prune = try metrika(["cache", "prune", "--before", day], environment: environment)
        #expect(prune.status == 64, "\(prune.stdout) \(prune.stderr)")
        #expect(
            prune.stderr.contains("--before \(day) is after today") && prune.stderr.contains("today included"),
            "\(prune.stderr)")
        #expect(prune.stdout.isEmpty)
        #expect(try HistoryTools.sqlite(path, "SELECT count(*) FROM daily_values") == stored)
        #expect(stored != "0")
        // Today itself is allowed: it keeps today and deletes the days before it.
        let today = Day(ordinal: utcToday).iso
        let upToToday = try metrika(["cache", "prune", "--before", today], environment: environment)
        #expect(upToToday.status == 0, "\(upToToday.stderr)")
    }

    @Test func infoWithoutADatabaseSaysHowToCreateOne() throws {
        let home = try TemporaryDirectory()
        let path = home.path + "/nothing-here.sqlite"
        let result = try metrika(
            ["cache", "info"], environment: metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_DB": path]))
        // Nothing stored yet is an answer (issue 14): exit 0, said on stdout, nothing created.
        #expect(result.status == 0)
        #expect(result.stdout.contains(path) && result.stdout.contains("metrika sync"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
