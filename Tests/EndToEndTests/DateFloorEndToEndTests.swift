import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaUseCases

/// Dates before Metrika existed, and days before a counter existed (issue 10, item 12): refused with
/// exit 64 before any request, or never fetched, stored or shown as zeros.
@Suite("Date floor and creation day", .serialized, .blockingLanes)
struct DateFloorEndToEndTests {
    /// Both clocks pinned: counter 1005 of the default fixtures was created 2026-06-12 (Moscow).
    static let now = "2026-11-29T12:00:00Z"

    static func pinnedAPI() throws -> FakeAPI { try FakeAPI(arguments: ["--now", now]) }

    static func environment(_ api: FakeAPI, _ home: TemporaryDirectory) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_NOW": now, "METRIKA_DB": home.path + "/history.sqlite"])
    }

    // MARK: - The 2008 floor

    @Test(arguments: [
        ["report", "--counter", "1001", "--from", "0001-01-01"],
        ["report", "--counter", "1001", "--from", "2007-12-31", "--to", "2008-01-05"],
        ["report", "--counter", "1001", "--from", "36500daysAgo", "--to", "2daysAgo"],
        ["report", "--counter", "1001", "--from", "99999999daysAgo"],
        ["report", "--counter", "1001", "--from", "99999999999999999999999weeksAgo"],
        ["report", "--counter", "1001", "--dimensions", "trafficSource", "--from", "0001-01-01"],
        ["chart", "--counter", "1001", "--from", "0001-01-01", "--output", "-"],
        ["sync", "--counter", "1001", "--from", "0001-01-01"],
        ["sync", "--from", "9000daysAgo"],
        ["cache", "prune", "--before", "0001-01-01"]
    ])
    func datesBeforeMetrikaAreUsageErrors(arguments: [String]) throws {
        let api = try Self.pinnedAPI()
        let home = try TemporaryDirectory()
        let started = Date()
        let result = try metrika(arguments, environment: Self.environment(api, home), timeout: 30)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("Error: --") && result.stderr.contains("is before 2008-01-01"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try api.requestCount(pathPrefix: "/stat") == 0)
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func theFirstDayOfMetrikaIsAccepted() throws {
        #expect(
            try DateExpression(parsing: "2008-01-01", option: "from") == .absolute(Day(year: 2008, month: 1, day: 1)!))
        #expect(throws: ParameterError.self) { try DateExpression(parsing: "2007-12-31", option: "from") }
    }

    // MARK: - The creation day

    @Test(arguments: [
        ("2022-03-25T15:59:52+03:00", "Europe/Moscow", "2022-03-25"),
        ("2024-05-15T23:30:00+00:00", "Europe/Moscow", "2024-05-16"), // 02:30 in Moscow
        ("2024-05-15T23:30:00Z", "America/New_York", "2024-05-15"),
        ("2023-05-05T08:30:00-04:00", "America/New_York", "2023-05-05"),
        ("2024-09-01T00:30:00+0500", "Asia/Yekaterinburg", "2024-09-01"),
        ("2024-09-01T00:30:00.250+05:00", "Europe/Moscow", "2024-08-31")
    ])
    func theCreationDayIsInTheCountersTimeZone(createTime: String, zone: String, day: String) {
        let counter = Counter(id: 1, name: "c", site: "s", timeZoneName: zone, createTime: createTime)
        #expect(creationDay(of: counter)?.iso == day)
    }

    @Test(arguments: [
        "", "2024-05-15", "2024-05-15T25:00:00Z", "2024-05-15T10:00:00", "2024-02-30T10:00:00Z",
        "2024-05-15T10:00:00+03:00x"
    ])
    func anUnreadableCreateTimeClipsNothing(createTime: String) {
        let counter = Counter(id: 1, name: "c", site: "s", createTime: createTime)
        #expect(creationDay(of: counter) == nil)
        #expect(firstDataDay(of: counter) == DateExpression.earliestDay)
    }

    /// `cache info` showed 365 days for a counter created in June: days before creation are not
    /// fetched (the client clips the request; it does not rely on the API answering zeros) nor stored.
    @Test func syncStoresNoDayBeforeTheCounterExisted() throws {
        let api = try Self.pinnedAPI()
        let home = try TemporaryDirectory()
        let environment = Self.environment(api, home)
        let sync = try metrika(["sync", "--counter", "1005", "--from", "365daysAgo"], environment: environment)
        #expect(sync.status == 0, "\(sync.stderr)")
        let info = try HistoryTools.json(try metrika(["cache", "info", "--json"], environment: environment).stdout)
        let counter = try #require((info["counters"] as? [[String: Any]])?.first)
        #expect(counter["first_day"] as? String == "2026-06-12")
        #expect(counter["days"] as? Int == 171) // 2026-06-12 … 2026-11-29
        let queries = try api.requests().filter { ($0["path"] as? String) == "/stat/v1/data" }.compactMap {
            $0["query"] as? String
        }
        #expect(!queries.isEmpty && queries.allSatisfy { $0.contains("date1=2026-06-12") }, "\(queries)")
    }

    /// A report over a range that starts before the counter existed starts on its creation day,
    /// with a note on stderr; one wholly before it has no rows (never rows of zeros) and asks nothing.
    @Test func aReportStartsOnTheCreationDay() throws {
        let api = try Self.pinnedAPI()
        let home = try TemporaryDirectory()
        let environment = Self.environment(api, home)
        let result = try metrika(
            ["report", "--counter", "1005", "--from", "2026-06-01", "--to", "2026-06-20", "--csv"],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let days = result.stdoutLines.dropFirst().map { String($0.prefix(10)) }
        #expect(days.first == "2026-06-12" && days.last == "2026-06-20" && days.count == 9, "\(result.stdout)")
        #expect(
            result.stderr
                == "Note: counter 1005 was created on 2026-06-12; showing from that day (no data exists before it).\n")

        let before = try api.requestCount(pathPrefix: "/stat")
        let empty = try metrika(
            ["report", "--counter", "1005", "--from", "2026-05-01", "--to", "2026-05-31", "--csv"],
            environment: environment)
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdoutLines.count == 1, "\(empty.stdout)") // the header only
        #expect(empty.stderr.contains("was created on 2026-06-12, after 2026-05-31: it has no data for this range"))
        #expect(try api.requestCount(pathPrefix: "/stat") == before)

        let info = try HistoryTools.json(try metrika(["cache", "info", "--json"], environment: environment).stdout)
        #expect((info["counters"] as? [[String: Any]])?.first?["first_day"] as? String == "2026-06-12")
    }
}
