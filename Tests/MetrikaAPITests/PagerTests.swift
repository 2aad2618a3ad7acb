import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel

/// The one pager's guards, unit by unit, and through the client against lying servers.
struct PagerTests {
    /// Walks a pager against a server described by `page(offset, limit) -> (rows, newRows, claimed)`.
    static func walk(_ pager: inout Pager, _ page: (Int, Int) -> (Int, Int, Int)) -> Int {
        var requests = 0
        while let next = pager.nextPage, requests < 1_000_000 {
            requests += 1
            let (rows, new, claimed) = page(next.offset, next.limit)
            pager.record(rowCount: rows, newRows: new, claimedTotal: claimed)
        }
        return requests
    }

    @Test(arguments: [(1, 1), (20_000, 1), (20_001, 2), (10_000_000, 500)])
    func neverMoreRequestsThanTheRowsAskedForAllow(wanted: Int, budget: Int) {
        var pager = Pager(wanted: wanted, pageSize: 20_000, hardCap: Pager.reportHardCap)
        // Full pages of new rows forever, 10^12 claimed.
        let requests = Self.walk(&pager) { _, limit in (limit, limit, 1_000_000_000_000) }
        #expect(requests == budget)
        #expect(pager.stop == .reachedLimit)
        #expect(pager.warning("x") == nil)
    }

    @Test func aShortPageEndsAWalkWhateverTheClaim() {
        var pager = Pager(wanted: 1_000_000, pageSize: 100, hardCap: 500)
        let requests = Self.walk(&pager) { _, _ in (7, 7, 1_000_000_000_000) }
        #expect(requests == 1)
        #expect(pager.stop == .shortPage)
        #expect(pager.warning("the report")?.contains("short page") == true)
    }

    @Test func aPageWithNothingNewEndsAWalkAndIsNotCounted() {
        var pager = Pager(wanted: 1_000_000, pageSize: 100, hardCap: 500)
        let requests = Self.walk(&pager) { offset, limit in (limit, offset == 1 ? limit : 0, 1_000_000_000_000) }
        #expect(requests == 2)
        #expect(pager.received == 100)
        #expect(pager.stop == .nothingNew)
    }

    @Test func theHardCapHoldsAnEndlessList() {
        var pager = Pager(wanted: Int.max, pageSize: 1000, hardCap: Pager.counterListHardCap)
        let requests = Self.walk(&pager) { _, limit in (limit, limit, 1_000_000_000_000) }
        #expect(requests == Pager.counterListHardCap)
        #expect(pager.stop == .requestCap)
        #expect(pager.warning("the counters list") != nil)
    }

    @Test func anHonestServerEndsWhenTheOffsetPassesItsTotal() {
        var pager = Pager(wanted: Int.max, pageSize: 1000, hardCap: 100)
        let requests = Self.walk(&pager) { offset, limit in
            let rows = max(0, min(limit, 2500 - offset + 1))
            return (rows, rows, 2500)
        }
        #expect(requests == 3)
        #expect(pager.stop == .complete)
        #expect(pager.warning("x") == nil)
    }

    @Test func aCounterListWithNewIDsOnEveryPageStopsAtTheCap() async throws {
        let transport = FakeTransport { request in
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let offset = Int(items.first { $0.name == "offset" }?.value ?? "1") ?? 1
            let counters = (0..<10).map { #"{"id":\#(offset + $0),"name":"c"}"# }.joined(separator: ",")
            return .respond(200, #"{"rows":1000000000000,"counters":[\#(counters)]}"#)
        }
        let list = try await makeClient(transport).fetchCounterList(perPage: 10)
        #expect(transport.sentRequests.count == Pager.counterListHardCap)
        #expect(list.counters.count == Pager.counterListHardCap * 10)
        #expect(list.warning != nil)
    }
}

/// One naming function for every `ym:` name.
struct ColumnNameTests {
    @Test(arguments: [
        ("ym:s:UTMSource", "utm_source"), ("ym:s:UTMMedium", "utm_medium"), ("ym:s:UTMCampaign", "utm_campaign"),
        ("ym:s:UTMContent", "utm_content"), ("ym:s:UTMTerm", "utm_term"), ("ym:s:startURLPath", "start_url_path"),
        ("ym:pv:URLHash", "url_hash"), ("ym:s:datePeriodDayName", "date_period_day_name"),
        ("ym:s:startURL", "start_url"),
        ("ym:pv:URL", "url"), ("ym:s:visitID", "visit_id"), ("ym:s:clientID", "client_id"),
        ("ym:pv:watchID", "watch_id"),
        (
            "ym:s:CROSS_DEVICE_LAST_YANDEX_DIRECT_CLICKTrafficSource",
            "cross_device_last_yandex_direct_click_traffic_source"
        ),
        (
            "ym:s:CROSS_DEVICE_LAST_YANDEX_DIRECT_CLICKSourceEngine",
            "cross_device_last_yandex_direct_click_source_engine"
        ),
        ("ym:s:trafficSource", "traffic_source"), ("ym:s:searchEngine", "search_engine"),
        ("ym:s:searchPhrase", "search_phrase"),
        ("ym:s:regionCountry", "region_country"), ("ym:s:regionCity", "region_city"),
        ("ym:s:deviceCategory", "device_category"),
        ("ym:s:operatingSystem", "operating_system"), ("ym:s:browser", "browser"), ("ym:s:date", "date"),
        ("ym:s:visits", "visits"), ("ym:s:pageviews", "pageviews"), ("ym:s:users", "users"),
        ("ym:s:newUsers", "new_users"),
        ("ym:s:pageDepth", "page_depth"), ("ym:s:bounceRate", "bounce_rate"),
        ("ym:s:percentNewVisitors", "percent_new_visitors"),
        ("ym:s:robotPercentage", "robot_percentage"), ("ym:s:avgVisitDurationSeconds", "avg_visit_duration_seconds"),
        ("ym:s:goal4001reaches", "goal4001_reaches"), ("ym:s:goal4001conversionRate", "goal4001_conversion_rate"),
        ("ym:s:sumGoalReachesAny", "sum_goal_reaches_any"), ("ym:s:paramsLevel1", "params_level1"),
        ("ym:s:lastTrafficSource", "last_traffic_source"), ("ym:s:hasGCLID", "has_gclid"),
        ("ym:s:ipAddress", "ip_address"),
        ("ym:s:datePeriod<group>", "date_period_group"), ("ym:s:goalsID", "goals_id"),
        ("ym:ad:RUBAdCost", "rub_ad_cost"),
        ("ym:s:browserMajorVersion", "browser_major_version"), ("ym:s:", "column")
    ])
    func names(apiName: String, column: String) {
        #expect(ColumnName.of(apiName) == column)
    }

    @Test func unknownNamesUseIt() {
        #expect(Metric.named("ym:s:UTMSourceVisits")?.columnName == "utm_source_visits")
        #expect(Dimension.named("ym:s:UTMSource")?.columnName == "utm_source")
        #expect(Dimension.named("ym:pv:URLHash")?.columnName == "url_hash")
    }

    /// Counts given by their raw API name print as counts, not as `1 000.00`.
    @Test(arguments: [
        "ym:pv:pageviews", "ym:s:users", "ym:pv:users", "ym:s:visits", "ym:pv:hits", "ym:s:sumGoalReachesAny",
        "ym:ad:goal4001reaches"
    ])
    func rawCountNamesAreCounts(name: String) throws {
        let metric = try #require(Metric.named(name))
        #expect(metric.unit == .count)
        #expect(metric.apiName == name)
        #expect(ValueFormatter.format(Quantity(1000, unit: metric.unit), grouping: true, missing: "") == "1 000")
    }

    @Test func aCounterWithoutNameShowsItsSite() {
        #expect(Counter(id: 1, name: "", site: "site.ru").displayName == "(no name) site.ru")
        #expect(Counter(id: 1, name: "  ", site: "").displayName == "(no name)")
        #expect(Counter(id: 1, name: "Shop", site: "site.ru").displayName == "Shop")
    }
}

/// A sample share outside (0, 1] is no share (it would print as 1e310% or trap the formatter).
@Test func anImpossibleSampleShareIsNotBelieved() throws {
    for share in ["1e308", "-0.5", "0", "7"] {
        let body = #"{"data":[],"total_rows":0,"sampled":true,"sample_share":\#(share),"totals":[]}"#
        let page = try JSONDecoder().decode(StatDataPage.self, from: Data(body.utf8))
        #expect(page.sampling.share == 1, "sample_share \(share)")
        #expect(DecimalText.format(page.sampling.share * 100, fractionDigits: 1) == "100.0")
    }
}
