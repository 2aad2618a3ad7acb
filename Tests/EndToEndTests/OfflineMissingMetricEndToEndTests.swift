import Foundation
import MetrikaTestSupport
import Testing

/// Issue 40 item 3: `report --offline --metrics visits,newUsers`, where only visits were ever synced,
/// blanked every cell and said the counter "has no history" for days it has. A metric that is stored
/// is shown; one that is not is said per metric (its cells `—` / `null`, one note naming it).
@Suite("Offline: a missing metric is said per metric", .blockingLanes)
struct OfflineMissingMetricEndToEndTests {
    static let now = "2026-11-29T12:00:00Z"

    @Test func storedVisitsAreShownBesideAMetricNeverSynced() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_NOW": Self.now, "METRIKA_DB": home.path + "/h.sqlite"])
        let range = ["--counter", "1001", "--from", "2026-11-01", "--to", "2026-11-07"]
        let synced = try metrika(["report"] + range + ["--metrics", "visits", "--csv", "--raw"], environment: environment)
        #expect(synced.status == 0, "\(synced.stderr)")
        let visits = (synced.stdoutLines.dropFirst().first ?? "").components(separatedBy: ",")

        let json = try metrika(["report"] + range + ["--metrics", "visits,newUsers", "--offline", "--json"], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let counter = try #require((object["counters"] as? [[String: Any]])?.first)
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.count == 7)
        #expect(rows.allSatisfy { $0["visits"] is NSNumber }, "the stored visits are shown: \(rows)")
        #expect(rows.allSatisfy { $0["new_users"] is NSNull }, "\(rows)")
        #expect((counter["missing_days"] as? [Any])?.isEmpty == true, "\(counter["missing_days"] ?? "nil")")
        #expect(json.stderr.contains("Note: counter 1001 has no history of newUsers for 2026-11-01 … 2026-11-07: shown as —; run without --offline to fetch it."), "\(json.stderr)")
        #expect(!json.stderr.contains("has no history for"), "\(json.stderr)")

        let table = try metrika(["report"] + range + ["--metrics", "visits,newUsers", "--offline", "--csv", "--raw"], environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        let first = (table.stdoutLines.dropFirst().first ?? "").components(separatedBy: ",")
        #expect(first.count == 3 && visits.count == 2 && first[0] == visits[0] && first[1] == visits[1] && first[2].isEmpty, "\(table.stdout) vs \(synced.stdout)")
        #expect(try api.requestCount(pathPrefix: "/stat/v1/data") == 1, "offline asks nothing")
    }
}
