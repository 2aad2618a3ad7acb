import Foundation
import MetrikaModel
import Testing

/// `metrika goals` and goal metrics titled with their goal's name in reports.
@Suite("Goals end to end", .blockingLanes)
struct GoalsEndToEndTests {
    @Test func listsGoalsInEveryFormat() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path)
        let table = try metrika(["goals", "--counter", "1001"], environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdoutLines.count == 4, "\(table.stdout)")
        #expect(table.stdout.contains("4001  Оформление заказа  action"), "\(table.stdout)")
        #expect(table.stdout.contains("4002  Корзина            url"), "\(table.stdout)")
        let csv = try metrika(["goals", "--counter", "1001", "--csv"], environment: environment)
        #expect(
            csv.stdout == "id,name,type\r\n4001,Оформление заказа,action\r\n4002,Корзина,url\r\n"
                || csv.stdout == "id,name,type\n4001,Оформление заказа,action\n4002,Корзина,url\n",
            "\(csv.stdout.debugDescription)")
        let json = try HistoryTools.json(
            try metrika(["goals", "--counter", "1001", "--json"], environment: environment).stdout)
        let goals = try #require(json["goals"] as? [[String: Any]])
        #expect(
            goals.map { "\($0["id"] as? Int ?? 0) \($0["name"] as? String ?? "") \($0["type"] as? String ?? "")" } == [
                "4001 Оформление заказа action", "4002 Корзина url"
            ])
        #expect(try api.requestCount(pathPrefix: "/management/v1/counter/1001/goals") == 3)
        let usage = try metrika(["goals"], environment: environment)
        #expect(usage.status == 64 && usage.stderr.contains("Missing --counter"))
    }

    @Test func hostileGoalNamesAreSanitizedInTheTable() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        try api.inject(["kind": "hostile_names", "path_prefix": "/management/v1/counter/1001/goals"])
        let table = try metrika(
            ["goals", "--counter", "1001"], environment: metrikaEnvironment(api: api, home: home.path))
        #expect(table.status == 0, "\(table.stderr)")
        #expect(
            !table.stdout.contains("\u{1B}") && !table.stdout.contains("\u{07}") && !table.stdout.contains("\u{202E}"))
        #expect(table.stdout.contains("\\x1b[2J"))
    }

    static let goalReport = [
        "report", "--counter", "1001", "--metrics", "visits,goal4001reaches,goal4002conversionRate", "--from",
        "2daysAgo"
    ]

    @Test(arguments: [false, true])
    func goalColumnsAreTitledWithTheGoalsName(dimensions: Bool) throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path)
        let arguments = Self.goalReport + (dimensions ? ["--dimensions", "trafficSource"] : [])
        let table = try metrika(arguments, environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("Оформление заказа — reaches"), "\(table.stdout)")
        #expect(table.stdout.contains("Корзина — conversion"))
        #expect(!table.stdout.contains("Goal 4001"))
        let json = try HistoryTools.json(try metrika(arguments + ["--json"], environment: environment).stdout)
        let columns = try #require(json["columns"] as? [[String: Any]])
        let goalColumns = columns.filter { ($0["api_name"] as? String ?? "").contains("goal") }
        #expect(
            goalColumns.map { "\($0["name"] as? String ?? "")=\($0["title"] as? String ?? "")" } == [
                "goal4001_reaches=Оформление заказа — reaches", "goal4002_conversion_rate=Корзина — conversion"
            ])
        let csv = try metrika(arguments + ["--csv"], environment: environment)
        #expect(
            csv.stdoutLines.first?.hasSuffix("visits,goal4001_reaches,goal4002_conversion_rate") == true,
            "\(csv.stdout)")
        // One goals request per report run with goal metrics (three runs), none without them.
        #expect(try api.requestCount(pathPrefix: "/management/v1/counter/1001/goals") == 3)
        _ = try metrika(
            ["report", "--counter", "1001", "--metrics", "visits", "--from", "2daysAgo"], environment: environment)
        #expect(try api.requestCount(pathPrefix: "/management/v1/counter/1001/goals") == 3)
    }

    @Test func aFailingGoalsCallKeepsTheIdsWithOneWarning() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path)
        try api.inject(["kind": "hostile_api_error", "status": 403, "path_prefix": "/management/v1/counter/1001/goals"])
        let result = try metrika(Self.goalReport, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Goal 4001 reaches"), "\(result.stdout)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Warning:") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(warnings.first?.hasPrefix("Warning: could not read counter 1001's goals (") == true)
        #expect(!result.stderr.contains(demoToken) && !result.stderr.contains("\u{1B}"))
        #expect(result.stderr.count < 1_500)
    }
}
