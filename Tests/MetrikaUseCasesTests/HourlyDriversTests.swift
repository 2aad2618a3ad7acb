import Foundation
import MetrikaAPI
import MetrikaTestSupport
import Testing

@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// The hourly drivers (issue 37 item 3, `alert --today`): the judged hours against the same hours
/// of 4 earlier weeks, decomposed as the daily drivers are; the line ends with the main one and the
/// webhook object carries them; `stopped` gets none.
@Suite struct HourlyDriversTests {
    let counter = Counter(id: 530004, name: "Поиск пропал сегодня", site: "s.example.ru", timeZoneName: "Europe/Moscow")
    let today = Day(iso: "2026-12-01")!
    var days: [Day] { (1...4).reversed().map { today.adding(days: -7 * $0) } }

    /// Two segments over hours 14–16: search and direct, 100 and 50 an hour on every baseline day
    /// (but one odd week), search gone today.
    func rows() -> [AlertDrivers.HourRow] {
        var rows: [AlertDrivers.HourRow] = []
        for (week, day) in days.enumerated() {
            for hour in 14...16 {
                rows.append((day, hour, "Search engine traffic", [week == 0 ? 300 : 100]))
                rows.append((day, hour, "Direct traffic", [50]))
            }
            // An hour outside the judged ones counts for nothing.
            rows.append((day, 13, "Search engine traffic", [1_000]))
        }
        for hour in 14...16 { rows.append((today, hour, "Direct traffic", [60])) }
        return rows
    }

    @Test func theExpectedTotalIsTheSumOfEachHoursMedianAndTheSegmentsAddUpToIt() throws {
        let sides = AlertDrivers.hourSides(rows(), column: 0, day: today, days: days, hours: 14...16)
        let totals = try #require(sides.totals)
        // Each hour: the days' totals 350, 150, 150, 150 → median 150; 3 hours.
        #expect(totals.expected == 450 && totals.value == 180)
        #expect(
            abs(sides.segments.reduce(0) { $0 + $1.a[0] } - 450) < 1e-9,
            "the baseline's segments scaled to the expected total")
        let search = try #require(sides.segments.first { $0.name == "Search engine traffic" })
        #expect(search.b == [0])
        // Search's mean is 150 of a 200 mean an hour… scaled by 450 / 600.
        #expect(abs(search.a[0] - 450 * 450 / 600) < 1e-9, "\(search.a)")
    }

    @Test func theMainDriverIsTheSegmentThatFell() throws {
        let sides = AlertDrivers.hourSides(rows(), column: 0, day: today, days: days, hours: 14...16)
        let part = try Explain.decompose(
            sides, dimension: ExplainDimension.named("trafficSource")!, metric: .visits, shown: 5)
        let drivers = AlertDrivers.drivers([part], kind: .drop)
        let main = try #require(drivers.first)
        #expect(main.name == "Search engine traffic" && main.change < 0 && main.value == 0)
        #expect(AlertDrivers.drivers([part], kind: .rise).isEmpty, "an explanation going the other way names none")
    }

    @Test func theFiltersNameTheFiveDaysAndTheJudgedHours() {
        #expect(
            AlertDrivers.filters(days: days + [today], hours: 14...16)
                == "ym:s:date=.('2026-11-03','2026-11-10','2026-11-17','2026-11-24','2026-12-01') AND ym:s:hour=.('14:00','15:00','16:00')"
        )
    }

    @Test func aDropLineEndsWithItsDriverAndTheWebhookObjectCarriesIt() throws {
        var drop = AlertCheck.Finding(
            counter: counter, metric: .visits, goalName: nil,
            judgement: AlertJudgement(day: today, hours: 14...16, value: 120, expected: 480, score: -9, kind: .drop),
            notice: .alert(.drop))
        #expect(AlertDrivers.wantsDriver(drop))
        drop.drivers = [
            AlertDriver(
                dimension: "trafficSource", name: "Search engine traffic", value: 0, expected: 310, change: -310,
                changeText: "-310", share: 86, status: .vanished)
        ]
        #expect(
            AlertText.line(drop)
                == "530004 Поиск пропал сегодня: visits 120 in 14:00–17:00 on Tue 2026-12-01, expected ~480 (-75%), mostly Search engine traffic -310"
        )
        let body = try #require(try JSONSerialization.jsonObject(with: AlertText.webhookBody([drop])) as? [String: Any])
        let alert = try #require((body["alerts"] as? [[String: Any]])?.first)
        let driver = try #require((alert["drivers"] as? [[String: Any]])?.first)
        #expect(
            driver["dimension"] as? String == "trafficSource" && driver["name"] as? String == "Search engine traffic"
                && driver["change"] as? Double == -310)
        #expect((alert["text"] as? String)?.hasSuffix(", mostly Search engine traffic -310") == true)

        let stop = AlertCheck.Finding(
            counter: counter, metric: .visits, goalName: nil,
            judgement: AlertJudgement(day: today, hours: 14...16, value: 0, expected: 480, score: -40, kind: .stopped),
            notice: .alert(.stopped))
        #expect(!AlertDrivers.wantsDriver(stop), "stopped needs no driver")
    }
}

/// A baseline without visits is said in each entry point's words (the bot's: MetrikaBotTests).
@Suite struct ExplainBaselineWordsTests {
    let error = ExplainBaselineError(
        counterID: 530001,
        baseline: "the same weekday of the 4 weeks before: 2026-11-02, 2026-11-09, 2026-11-16, 2026-11-23",
        metric: "bounce rate")

    @Test func theCommandLineNamesItsOption() {
        #expect(
            cliNaming.message(of: error).hasSuffix(
                "; compare with other days: metrika explain --counter 530001 --against previous (or DATE..DATE)"))
        #expect(error.message.hasSuffix("; compare with other days (against)"))
    }
}

/// The hourly drivers' requests and answers: one filtered request per dimension; a page cut off
/// leaves its dimension out, a refusal the whole counter, never the alert.
@Suite struct HourlyDriversFetchTests {
    let counter = Counter(id: 530004, name: "Поиск пропал сегодня", site: "s.example.ru", timeZoneName: "Europe/Moscow")
    let today = Day(iso: "2026-12-01")!

    func drop() -> AlertCheck.Finding {
        AlertCheck.Finding(
            counter: counter, metric: .visits, goalName: nil,
            judgement: AlertJudgement(day: today, hours: 14...16, value: 180, expected: 450, score: -9, kind: .drop),
            notice: .alert(.drop))
    }

    /// Search 100 and direct 50 an hour on the 4 baseline days, direct 60 today.
    func body(totalRows: Int? = nil) -> String {
        var rows: [String] = []
        for week in 1...4 {
            let day = today.adding(days: -7 * week).iso
            for hour in 14...16 {
                rows.append(
                    #"{"dimensions":[{"name":"\#(day)"},{"name":"\#(hour):00"},{"name":"Search engine traffic"}],"metrics":[100]}"#
                )
                rows.append(
                    #"{"dimensions":[{"name":"\#(day)"},{"name":"\#(hour):00"},{"name":"Direct traffic"}],"metrics":[50]}"#
                )
            }
        }
        for hour in 14...16 {
            rows.append(
                #"{"dimensions":[{"name":"\#(today.iso)"},{"name":"\#(hour):00"},{"name":"Direct traffic"}],"metrics":[60]}"#
            )
        }
        return #"{"data":[\#(rows.joined(separator: ","))],"total_rows":\#(totalRows ?? rows.count),"sampled":false}"#
    }

    func client(_ transport: FakeTransport) -> MetrikaClient {
        MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: transport,
            requestTimeout: 5, sleep: { _ in }, now: { testNow })
    }

    func loader(_ transport: FakeTransport) async throws -> HistoryLoader {
        HistoryLoader(
            store: try await HistoryStore.open(path: ":memory:"), client: client(transport), now: { testNow },
            unsettledDays: 2)
    }

    @Test func oneFilteredRequestPerDimensionNamesTheDriver() async throws {
        let transport = FakeTransport([.respond(200, body()), .respond(200, body(totalRows: 100_000))])
        var drivers = AlertDrivers(loader: try await loader(transport), activity: RecordedActivity(), verbose: false)
        drivers.dimensions = [ExplainDimension.named("trafficSource")!, ExplainDimension.named("deviceCategory")!]
        let (findings, requests) = await drivers.attach([drop()])
        #expect(requests == 2)
        #expect(
            findings[0].drivers.first?.name == "Search engine traffic"
                && findings[0].drivers.first?.dimension == "trafficSource")
        let query = try #require(
            transport.requests.first.flatMap { URLComponents(url: $0.url, resolvingAgainstBaseURL: false)?.query })
        #expect(
            query.contains("dimensions=ym:s:date,ym:s:hour,ym:s:trafficSource")
                && query.contains("date1=2026-11-03&date2=2026-12-01"), "\(query)")
        #expect(query.contains("ym:s:hour=.('14:00','15:00','16:00')"), "\(query)")
    }

    @Test func aCutOffPageLeavesItsDimensionOut() async throws {
        let transport = FakeTransport([.respond(200, body(totalRows: 100_000))])
        var drivers = AlertDrivers(loader: try await loader(transport), activity: RecordedActivity(), verbose: false)
        drivers.dimensions = [ExplainDimension.named("trafficSource")!]
        let (findings, requests) = await drivers.attach([drop()])
        #expect(requests == 1 && findings[0].drivers.isEmpty)
    }

    @Test func aRefusalLeavesTheAlertWithoutItsDriver() async throws {
        let quota =
            #"{"errors": [{"error_type": "quota_requests_by_uid", "message": "Quota exceeded"}], "code": 429, "message": "Quota exceeded"}"#
        let transport = FakeTransport(Array(repeating: .respond(429, quota), count: 40))
        let activity = RecordedActivity()
        let drivers = AlertDrivers(loader: try await loader(transport), activity: activity, verbose: true)
        var other = drop()
        other.counter = Counter(id: 530005, name: "Другой", site: "o.example.ru", timeZoneName: "Europe/Moscow")
        let (findings, _) = await drivers.attach([drop(), other])
        #expect(findings.allSatisfy { $0.drivers.isEmpty })
        let judged: [AlertJudgement] = [drop(), other].map { $0.judgement }
        #expect(findings.map { $0.judgement } == judged)
        let asked = transport.requests.count
        #expect(
            asked >= 1 && transport.requests.allSatisfy { $0.url.absoluteString.contains("530004") },
            "the quota spent: the second counter asks nothing")
        #expect(
            activity.notes.contains {
                $0.contains("counter 530005: its alerts go without their driver (the API's quota is spent)")
            }, "\(activity.notes)")
    }
}

/// A settled range from its days by segment: each side the sum of its days (a rate weighted by its
/// visits), a baseline of another length scaled to the period's days.
@Suite struct RangeSidesTests {
    func answer() -> DaySegments {
        DaySegments(
            rows: [
                ("2026-11-09", "Search", [10, 100]), ("2026-11-10", "Search", [30, 100]),
                ("2026-11-09", "Direct", [50, 50]), ("2026-11-10", "Direct", [50, 150]),
                ("2026-11-16", "Search", [20, 300]), ("2026-11-16", "Direct", [40, 100])
            ], sampleShare: nil)
    }

    @Test func aCountSumsEachSideAndScalesALongerBaseline() {
        let sides = Explain.rangeSides(
            answer(), columns: [1], period: ["2026-11-16"], baseline: ["2026-11-09", "2026-11-10"], factor: 0.5)
        #expect(sides.segments.map(\.name) == ["Search", "Direct"])
        #expect(sides.segments.map(\.a) == [[100], [100]], "the two days' sums, halved")
        #expect(sides.segments.map(\.b) == [[300], [100]])
    }

    @Test func aRateIsWeightedByItsVisitsAndOnlyTheVisitsAreScaled() {
        let sides = Explain.rangeSides(
            answer(), columns: [0, 1], period: ["2026-11-16"], baseline: ["2026-11-09", "2026-11-10"], factor: 0.5)
        // Search: (10 × 100 + 30 × 100) / 200 = 20 over 200 visits, halved to 100; Direct: (50 × 50 + 50 × 150) / 200 =
        // 50.
        #expect(sides.segments.map(\.a) == [[20, 100], [50, 100]])
        #expect(sides.segments.map(\.b) == [[20, 300], [40, 100]])
    }
}
