import Foundation
import MetrikaTestSupport
import Testing

/// Issue 37 item 3: the built `metrika alert` against the simulator's explain scenarios
/// (Fixtures/explain, its clock and metrika's on Tuesday 2026-12-01: Monday 11-30 judged). Each drop
/// or rise line ends with its known driver, the webhook's alert object carries it in `drivers`, a
/// change spread evenly names none, and the drivers cost one request per counter and dimension.
@Suite(.serialized, .blockingLanes, .stops(DriverScenarios.api))
struct AlertDriverEndToEndTests {
    static let now = DriverScenarios.now
    static var api: SuiteFixture<FakeAPI> { DriverScenarios.api }

    func environment(_ api: FakeAPI, _ home: TemporaryDirectory, extra: [String: String] = [:]) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path,
            extra: ["METRIKA_NOW": Self.now, "METRIKA_DB": home.path + "/h.sqlite"].merging(extra) { $1 })
    }

    /// The days-by-segment requests of the drivers (`ym:s:date` and a dimension).
    static func driverRequests(_ api: FakeAPI) throws -> [String] {
        try api.requests().filter { ($0["path"] as? String) == "/stat/v1/data" }.compactMap { $0["query"] as? String }
            .filter { $0.removingPercentEncoding?.contains("dimensions=ym:s:date,ym:s:") ?? false }
    }

    @Test func eachDropOrRiseNamesItsKnownDriverInTheLineAndTheWebhook() throws {
        let api = try Self.api.get()
        try api.reset()
        let home = try TemporaryDirectory()
        // The scenarios' changes are a third to a half of the day: alerts at a 20 % threshold and a score of 2.
        try FileManager.default.createDirectory(
            atPath: home.path + "/config/metrika", withIntermediateDirectories: true)
        try Data(#"{"alerts": {"min_change": 20, "min_score": 2}}"#.utf8).write(
            to: URL(fileURLWithPath: home.path + "/config/metrika/config.json"))
        let hooks = try TemporaryDirectory()
        let receiver = try WebhookReceiver(directory: hooks.path)
        defer { receiver.stop() }
        let secret = "hook-secret-" + UUID().uuidString
        let url = "http://127.0.0.1:\(receiver.port)/ok/\(secret)"
        let result = try metrika(
            ["alert", "--counter", "530001,530002,530003", "--webhook", url], environment: environment(api, home))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines
        // Search traffic fell to 0: its traffic source is the driver.
        let search = try #require(lines.first { $0.hasPrefix("530001 ") }, "\(result.stdout)")
        #expect(
            search.range(
                of:
                    #"^530001 Поиск пропал: visits \d[\d ]* on Mon 2026-11-30, expected ~[\d ]+ \(-\d+%\), mostly Search engine traffic -\d[\d ]*$"#,
                options: .regularExpression) != nil, "\(search)")
        // A bot wave on smartphones: the device is the driver.
        let bots = try #require(lines.first { $0.hasPrefix("530002 ") }, "\(result.stdout)")
        #expect(
            bots.range(
                of:
                    #"^530002 Боты со смартфонов: visits \d[\d ]* on Mon 2026-11-30, expected ~[\d ]+ \(\+\d+%\), mostly Smartphones \+\d[\d ]*$"#,
                options: .regularExpression) != nil, "\(bots)")
        // Every segment ×0.6: told, but no driver.
        for line in lines where line.hasPrefix("530003 ") { #expect(!line.contains("mostly"), "\(line)") }

        // One request per counter alerted and dimension (6), whatever its metrics alerted.
        let alerted = Set(lines.compactMap { $0.split(separator: " ").first.map(String.init) }).count
        let asked = try Self.driverRequests(api)
        #expect(asked.count == 6 * alerted, "\(asked)")

        let bodies = try receiver.bodies(containing: secret)
        #expect(bodies.count == 1)
        let alerts = AlertEndToEndTests.alertObjects(bodies.first ?? "")
        let drop = try #require(alerts.first { $0["counter_id"] as? Int == 530001 })
        let drivers = try #require(drop["drivers"] as? [[String: Any]])
        let main = try #require(drivers.first)
        #expect(
            main["dimension"] as? String == "trafficSource" && main["name"] as? String == "Search engine traffic",
            "\(main)")
        #expect(main["value"] as? Double == 0, "search traffic vanished: \(main)")
        #expect((main["change"] as? Double ?? 0) < 0 && (main["share"] as? Double ?? 0) > 50, "\(main)")
        #expect((main["expected"] as? Double ?? 0) > 0)
        let rise = try #require(alerts.first { $0["counter_id"] as? Int == 530002 })
        let riseDriver = try #require((rise["drivers"] as? [[String: Any]])?.first)
        #expect(
            riseDriver["dimension"] as? String == "deviceCategory" && riseDriver["name"] as? String == "Smartphones",
            "\(riseDriver)")
        for object in alerts where object["counter_id"] as? Int == 530003 {
            #expect((object["drivers"] as? [Any])?.isEmpty == true, "spread evenly: no driver")
        }
    }

    /// The hourly check (`--today`, 09:00 in Moscow): 530004 loses its search traffic today, so its
    /// last finished hours drop; the line and the webhook's hourly object name search as the driver,
    /// at one `ym:s:date,ym:s:hour,<dimension>` request per dimension, filtered to the 5 days and the
    /// judged hours.
    @Test func anHourlyDropNamesItsKnownDriverInTheLineAndTheWebhook() throws {
        let api = try Self.api.get()
        try api.reset()
        let home = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: home.path + "/config/metrika", withIntermediateDirectories: true)
        try Data(#"{"alerts": {"min_change": 20, "min_score": 2}}"#.utf8).write(
            to: URL(fileURLWithPath: home.path + "/config/metrika/config.json"))
        let hooks = try TemporaryDirectory()
        let receiver = try WebhookReceiver(directory: hooks.path)
        defer { receiver.stop() }
        let secret = "hook-secret-" + UUID().uuidString
        let url = "http://127.0.0.1:\(receiver.port)/ok/\(secret)"
        let result = try metrika(
            ["alert", "--today", "--counter", "530004", "--webhook", url], environment: environment(api, home))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 1, "\(result.stdout)")
        let line = try #require(result.stdoutLines.first)
        #expect(
            line.range(
                of:
                    #"^530004 Поиск пропал сегодня: visits \d[\d ]* in \d\d:00–\d\d:00 on Tue 2026-12-01, expected ~[\d ]+ \(-\d+%\), mostly Search engine traffic -\d[\d ]*$"#,
                options: .regularExpression) != nil, "\(line)")

        let asked = try Self.driverRequests(api).filter {
            $0.removingPercentEncoding?.contains("dimensions=ym:s:date,ym:s:hour,ym:s:") ?? false
        }
        #expect(asked.count == 6, "\(asked)")
        #expect(
            asked.allSatisfy {
                $0.removingPercentEncoding?.contains(
                    "ym:s:date=.('2026-11-03','2026-11-10','2026-11-17','2026-11-24','2026-12-01')") ?? false
            }, "\(asked)")

        let bodies = try receiver.bodies(containing: secret)
        #expect(bodies.count == 1)
        let alerts = AlertEndToEndTests.alertObjects(bodies.first ?? "")
        let drop = try #require(alerts.first { $0["counter_id"] as? Int == 530004 })
        #expect(drop["grain"] as? String == "hour" && drop["kind"] as? String == "drop", "\(drop)")
        let main = try #require((drop["drivers"] as? [[String: Any]])?.first)
        #expect(
            main["dimension"] as? String == "trafficSource" && main["name"] as? String == "Search engine traffic",
            "\(main)")
        #expect(main["value"] as? Double == 0, "search traffic vanished: \(main)")
        #expect((main["change"] as? Double ?? 0) < 0 && (main["expected"] as? Double ?? 0) > 0, "\(main)")
        #expect(drop["text"] as? String == line)
    }
}

/// The simulator of the explain scenarios, shared by the suite and stopped at its end.
enum DriverScenarios {
    static let now = "2026-12-01T06:00:00Z"
    static let api = FakeAPI.shared(fixtures: "explain", arguments: ["--now", now])
}

/// A loopback HTTP receiver (tests/scripts webhook_receiver.py, a `ScriptPeer`) that answers 200 and keeps each body.
final class WebhookReceiver: ScriptPeer, @unchecked Sendable {
    init(directory: String) throws {
        try super.init(script: "webhook_receiver.py", directory: directory, lifetime: 600)
    }

    /// The bodies of the requests whose path holds `secret`.
    func bodies(containing secret: String) throws -> [String] {
        return try kept(suffix: ".json").compactMap { name in
            let object =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
                as? [String: Any]
            guard let path = object?["path"] as? String, path.contains(secret) else { return nil }
            return object?["body"] as? String
        }
    }
}
