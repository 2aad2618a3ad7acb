import Foundation
import Testing

@testable import MetrikaSimulator

/// A `/stat/v1/data` answer read with Foundation's JSON reader.
struct StatAnswer {
    let raw: [String: Any]

    init(_ reply: Reply) throws {
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        raw = try reply.json()
    }

    var rows: [[String: Any]] { raw["data"] as? [[String: Any]] ?? [] }
    var query: [String: Any] { raw["query"] as? [String: Any] ?? [:] }
    var totals: [Double?] { (raw["totals"] as? [Any] ?? []).map { $0 as? Double } }
    var totalRows: Int { raw["total_rows"] as? Int ?? -1 }

    /// Metric `m` of every row.
    func column(_ m: Int) -> [Double] {
        rows.compactMap { ($0["metrics"] as? [Any])?[m] as? Double }
    }

    /// The `name` of dimension `d` of every row (nil for null names).
    func names(_ d: Int = 0) -> [String?] {
        rows.map { (($0["dimensions"] as? [[String: Any]])?[d]["name"]) as? String }
    }

    func ids(_ d: Int = 0) -> [String?] {
        rows.map { (($0["dimensions"] as? [[String: Any]])?[d]["id"]) as? String }
    }
}

func closeEnough(_ a: Double, _ b: Double, relative: Double = 1e-9) -> Bool {
    abs(a - b) <= relative * max(1, abs(a), abs(b))
}

@Suite("Reporting API: /stat/v1/data")
struct ReportingTests {
    static let weighted =
        "ym:s:visits,ym:s:pageviews,ym:s:bounceRate,ym:s:pageDepth,ym:s:avgVisitDurationSeconds,ym:s:users,ym:s:newUsers"

    @Test("the query echo, the documented fields, and dates resolved in the counter's time zone")
    func echo() async throws {
        let sim = try SimulatorHarness()
        let answer = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:date"))
        let query = answer.query
        #expect(query["ids"] as? [Int] == [1001])
        #expect(query["dimensions"] as? [String] == ["ym:s:date"])
        #expect(query["metrics"] as? [String] == ["ym:s:visits"])
        #expect(query["sort"] as? [String] == ["ym:s:date"])
        #expect(query["date1"] as? String == "2026-06-09")
        #expect(query["date2"] as? String == "2026-06-15")
        #expect(query["limit"] as? Int == 100)
        #expect(query["offset"] as? Int == 1)
        #expect(query["group"] as? String == "Day")
        #expect(query["attribution"] as? String == "LastSign")
        #expect(query["currency"] as? String == "RUB")
        for key in [
            "data", "total_rows", "total_rows_rounded", "sampled", "sample_share", "sample_size", "sample_space",
            "data_lag", "totals", "min", "max"
        ] {
            #expect(answer.raw[key] != nil, "missing \(key)")
        }
        #expect(answer.names() == (9...15).map { "2026-06-\($0 < 10 ? "0" : "")\($0)" })
        #expect(answer.totalRows == 7)
        // Metric values are written as doubles, like the real API (14234.0).
        #expect(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:date").text.contains(".0]"))

        // At 02:00 UTC it is still the 14th in New York but already the 15th in Yekaterinburg.
        let early = try SimulatorHarness(now: SimulatorOptions.parseInstant("2026-06-15T02:00:00Z")!)
        let ny = try StatAnswer(
            try await early.get("/stat/v1/data?ids=1003&metrics=ym:s:visits&date1=today&date2=today"))
        #expect(ny.query["date1"] as? String == "2026-06-14")
        let ekb = try StatAnswer(
            try await early.get("/stat/v1/data?ids=1002&metrics=ym:s:visits&date1=today&date2=today"))
        #expect(ekb.query["date1"] as? String == "2026-06-15")

        let preset = try StatAnswer(try await sim.get("/stat/v1/data?ids=1001&preset=sources_summary"))
        #expect(preset.query["preset"] as? String == "sources_summary")
        #expect(preset.query["dimensions"] as? [String] == ["ym:s:trafficSource"])
        #expect((preset.query["metrics"] as? [String])?.first == "ym:s:visits")
        let overridden = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&preset=sources_summary&metrics=ym:s:users"))
        #expect(overridden.query["metrics"] as? [String] == ["ym:s:users"])
    }

    static let dimensionSets: [String] = [
        "ym:s:trafficSource", "ym:s:searchEngine", "ym:s:searchPhrase", "ym:s:startURL", "ym:s:regionCountry",
        "ym:s:regionCity", "ym:s:browser", "ym:s:operatingSystem", "ym:s:deviceCategory",
        "ym:s:regionCountry,ym:s:regionCity", "ym:s:trafficSource,ym:s:deviceCategory", "ym:s:date",
        "ym:s:datePeriodweek", "ym:s:date,ym:s:trafficSource"
    ]

    @Test("dimension rows add up to the period's visits; averages are visit-weighted", arguments: dimensionSets)
    func consistency(dimensions: String) async throws {
        let sim = try SimulatorHarness()
        let path = "/stat/v1/data?ids=1001&date1=2026-05-01&date2=2026-06-15&limit=100000&metrics=\(Self.weighted)"
        let whole = try StatAnswer(try await sim.get(path))
        let split = try StatAnswer(try await sim.get(path + "&dimensions=\(dimensions)"))
        #expect(split.totalRows == split.rows.count)
        let visits = split.column(0)
        let total = try #require(whole.totals[0])
        #expect(visits.reduce(0, +) == total)
        #expect(split.totals[0] == total)
        #expect(split.totals[5] == whole.totals[5], "total users do not depend on grouping")
        // Totals of ratios are the visit-weighted means of the rows.
        for (m, _) in [(2, "bounceRate"), (3, "pageDepth"), (4, "avgVisitDurationSeconds")] {
            let weighted = zip(visits, split.column(m)).reduce(0) { $0 + $1.0 * $1.1 } / total
            #expect(closeEnough(weighted, try #require(split.totals[m])), "metric \(m)")
        }
        // Counts inside every row stay sane.
        for row in split.rows {
            let v = try #require(row["metrics"] as? [Double])
            #expect(v[0] > 0)
            #expect(v[1] >= v[0], "pageviews ≥ visits")
            #expect((0...100).contains(v[2]), "bounce rate is a percent")
            #expect(v[3] >= 1)
            #expect(v[5] <= v[0] && v[5] >= 1, "users ≤ visits")
            #expect(v[6] <= v[5], "new users ≤ users")
        }
        // min and max are those of the rows.
        let minimum = try #require(split.raw["min"] as? [Double])
        let maximum = try #require(split.raw["max"] as? [Double])
        #expect(minimum[0] == visits.min())
        #expect(maximum[0] == visits.max())
    }

    @Test("users are not additive: a period has fewer users than the sum of its days")
    func usersAreNotAdditive() async throws {
        let sim = try SimulatorHarness()
        for counter in [880000, 1001, 1003, 1004] {
            let path =
                "/stat/v1/data?ids=\(counter)&accuracy=full&date1=2026-05-18&date2=2026-06-14&metrics=ym:s:visits,ym:s:users,ym:s:newUsers"
            let daily = try StatAnswer(try await sim.get(path + "&dimensions=ym:s:date"))
            let period = try StatAnswer(try await sim.get(path))
            #expect(daily.rows.count == 28)
            let dailyUsers = daily.column(1)
            for (visits, users) in zip(daily.column(0), dailyUsers) {
                #expect(users <= visits)
            }
            for (users, new) in zip(dailyUsers, daily.column(2)) {
                #expect(new <= users)
            }
            let periodUsers = try #require(period.totals[1])
            #expect(periodUsers < dailyUsers.reduce(0, +), "counter \(counter)")
            let busiestDay = try #require(dailyUsers.max())
            #expect(periodUsers >= busiestDay)
            #expect(try #require(period.totals[2]) <= periodUsers)
            #expect(daily.totals[1] == periodUsers, "the daily report's total is the period's users")
        }
    }

    @Test("days with no visits have no rows: before creation, zero days, the future")
    func missingDays() async throws {
        let sim = try SimulatorHarness()
        let young = try StatAnswer(
            try await sim.get(
                "/stat/v1/data?ids=1005&metrics=ym:s:visits&dimensions=ym:s:date&date1=2026-06-01&date2=2026-06-20"))
        #expect(young.names() == ["2026-06-12", "2026-06-13", "2026-06-14", "2026-06-15"])
        let gaps = try StatAnswer(try await sim.get("/stat/v1/data?ids=1002&metrics=ym:s:visits&dimensions=ym:s:date"))
        #expect(gaps.names() == ["2026-06-09", "2026-06-10", "2026-06-13", "2026-06-14", "2026-06-15"])

        // Today is partial: the frozen clock is 15:00 in Moscow, so today has well under a full day.
        let weeks = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:date&date1=2026-06-08"))
        let visits = weeks.column(0)
        #expect(visits.count == 8)
        #expect(visits[7] < visits[0] * 0.8, "today (Monday) vs last Monday")
        #expect(visits[7] > visits[0] * 0.4)
    }

    @Test("dimension values: ids, English and Russian names, null names")
    func names() async throws {
        let sim = try SimulatorHarness()
        let en = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:trafficSource"))
        let ru = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:trafficSource&lang=ru"))
        let organic = try #require(en.ids().firstIndex(of: "organic"))
        #expect(en.names()[organic] == "Search engine traffic")
        #expect(ru.names()[organic] == "Переходы из поисковых систем")
        #expect(ru.ids() == en.ids())

        let engines = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:searchEngine"))
        #expect(engines.names().contains(nil), "non-search visits have no engine")
        #expect(engines.names().contains("Yandex"))

        let phrases = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:searchPhrase&limit=20"))
        let phraseNames = phrases.names()
        #expect(phraseNames.contains(nil))
        #expect(phraseNames.contains("купить диван, недорого"))
        #expect(phraseNames.contains("\"ромашка\" интернет-магазин"))
        #expect(phraseNames.contains("рамен\nрецепт дома"))

        let urls = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:startURL&limit=1"))
        #expect(urls.names().first??.hasPrefix("https://romashka-shop.ru/") == true)

        let weeks = try StatAnswer(
            try await sim.get(
                "/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:datePeriod<group>&group=week&date1=2026-06-03"
            ))
        let cells = weeks.rows.compactMap { ($0["dimensions"] as? [[String: Any]])?.first }
        #expect(cells.map { $0["from"] as? String } == ["2026-06-03", "2026-06-08", "2026-06-15"])
        #expect(cells.map { $0["to"] as? String } == ["2026-06-07", "2026-06-14", "2026-06-15"])
        #expect(weeks.query["group"] as? String == "Week")
    }

    @Test("filters: equality and inequality on a dimension")
    func filters() async throws {
        let sim = try SimulatorHarness()
        let sources = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:trafficSource"))
        let organicVisits = sources.column(0)[try #require(sources.ids().firstIndex(of: "organic"))]
        let all = try #require(sources.totals[0])

        let organic = try StatAnswer(
            try await sim.get(
                "/stat/v1/data?ids=1001&metrics=ym:s:visits,ym:s:users&filters=ym:s:trafficSource%3D%3D%27organic%27"))
        #expect(organic.totals[0] == organicVisits)
        #expect(organic.query["filters"] as? String == "ym:s:trafficSource=='organic'")
        let others = try StatAnswer(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&filters=ym:s:trafficSource!='organic'"))
        #expect(others.totals[0] == all - organicVisits)

        let engines = try StatAnswer(
            try await sim.get(
                "/stat/v1/data?ids=1001&metrics=ym:s:visits&dimensions=ym:s:searchEngine&filters=ym:s:trafficSource=='organic'"
            ))
        #expect(!engines.names().contains(nil))
        #expect(engines.column(0).reduce(0, +) == organicVisits)

        let both = try StatAnswer(
            try await sim.get(
                "/stat/v1/data?ids=1001&metrics=ym:s:visits&filters=ym:s:trafficSource=='organic'%20AND%20ym:s:deviceCategory=='mobile'"
            ))
        #expect(try #require(both.totals[0]) < organicVisits)

        let unknown = try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits&filters=ym:s:colour=='red'")
        #expect(unknown.status == 400)
    }

    @Test("sort: default, ascending, by dimension; paging with 1-based offsets")
    func sortAndPaging() async throws {
        let sim = try SimulatorHarness()
        let base = "/stat/v1/data?ids=1001&metrics=ym:s:visits,ym:s:users&dimensions=ym:s:regionCity&date1=30daysAgo"
        let byDefault = try StatAnswer(try await sim.get(base))
        #expect(byDefault.query["sort"] as? [String] == ["-ym:s:visits"])
        #expect(byDefault.column(0) == byDefault.column(0).sorted(by: >))
        let ascending = try StatAnswer(try await sim.get(base + "&sort=ym:s:visits"))
        #expect(ascending.column(0) == ascending.column(0).sorted())
        let byName = try StatAnswer(try await sim.get(base + "&sort=ym:s:regionCity"))
        let names = byName.names().compactMap { $0 }
        #expect(names == names.sorted())
        #expect(byName.names().first! == nil, "null names sort first")

        var collected: [String?] = []
        var offset = 1
        while offset <= byDefault.totalRows {
            let page = try StatAnswer(try await sim.get(base + "&limit=7&offset=\(offset)"))
            #expect(page.rows.count <= 7)
            collected += page.names()
            offset += 7
        }
        #expect(collected == byDefault.names())
        #expect(try await sim.get(base + "&sort=ym:s:pageviews").status == 400)
    }

    @Test("identical requests give identical bytes")
    func deterministic() async throws {
        let sim = try SimulatorHarness()
        let path =
            "/stat/v1/data?ids=1001,1003&metrics=\(Self.weighted)&dimensions=ym:s:trafficSource,ym:s:browser&date1=90daysAgo"
        let first = try await sim.get(path)
        let second = try await sim.get(path)
        #expect(first.body == second.body)
        let other = try SimulatorHarness()
        #expect(try await other.get(path).body == first.body)
    }

    @Test("goal metrics")
    func goals() async throws {
        let sim = try SimulatorHarness()
        let answer = try StatAnswer(
            try await sim.get(
                "/stat/v1/data?ids=1001&metrics=ym:s:visits,ym:s:goal4001reaches,ym:s:goal4001conversionRate&dimensions=ym:s:date"
            ))
        for row in answer.rows {
            let v = try #require(row["metrics"] as? [Double])
            #expect(v[1] <= v[0])
            #expect(closeEnough(v[2], 100 * v[1] / v[0]))
        }
        let unknownGoal = try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:goal4101reaches")
        #expect(unknownGoal.status == 400)
        #expect(unknownGoal.text.contains("ym:s:goal4101reaches"))
    }

    /// (query, status, error_type, a word the message must contain)
    static let errorCases: [(String, Int, String, String)] = {
        let tooManyMetrics: String = Array(repeating: "ym:s:visits", count: 21).joined(separator: ",")
        let tooManyDimensions: String = Array(repeating: "ym:s:browser", count: 11).joined(separator: ",")
        return [
            ("metrics=ym:s:visits,ym:s:bogus", 400, "invalid_parameter", "ym:s:bogus"),
            ("metrics=\(tooManyMetrics)", 400, "invalid_parameter", "20"),
            ("metrics=ym:s:visits&dimensions=\(tooManyDimensions)", 400, "invalid_parameter", "10"),
            ("metrics=ym:s:visits&dimensions=ym:s:nope", 400, "invalid_parameter", "ym:s:nope"),
            ("metrics=ym:s:visits&date1=2026-06-10&date2=2026-06-01", 400, "invalid_parameter", "date1"),
            ("metrics=ym:s:visits&date1=2026-13-01", 400, "invalid_parameter", "date1"),
            ("metrics=ym:s:visits&date1=99999999999daysAgo", 400, "invalid_parameter", "date1"),
            ("metrics=ym:s:visits&date1=1999-12-31", 400, "invalid_parameter", "date1"),
            ("metrics=ym:s:visits&limit=100001", 400, "invalid_parameter", "limit"),
            ("metrics=ym:s:visits&offset=0", 400, "invalid_parameter", "offset"),
            ("metrics=ym:s:visits&accuracy=extreme", 400, "invalid_parameter", "accuracy"),
            ("metrics=ym:s:visits&preset=nonexistent", 400, "invalid_parameter", "nonexistent"),
            ("dimensions=ym:s:date", 400, "missing_parameter", "metrics")
        ]
    }()

    @Test("parameter errors", arguments: errorCases)
    func errors(query: String, status: Int, type: String, mention: String) async throws {
        let sim = try SimulatorHarness()
        let reply = try await sim.get("/stat/v1/data?ids=1001&\(query)")
        #expect(reply.status == status)
        #expect(reply.errorType == type)
        #expect(reply.text.contains(mention))
    }

    @Test("ids: required, readable by the token, existing")
    func counterAccess() async throws {
        let sim = try SimulatorHarness()
        #expect(try await sim.get("/stat/v1/data?metrics=ym:s:visits").errorType == "missing_parameter")
        let denied = try await sim.get("/stat/v1/data?ids=1001,9999&metrics=ym:s:visits")
        #expect(denied.status == 403)
        #expect(denied.errorType == "access_denied")
        #expect(denied.text.contains("9999"))
        #expect(try await sim.get("/stat/v1/data?ids=4242&metrics=ym:s:visits").status == 404)
        #expect(try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits", token: nil).status == 401)
        #expect(
            try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits", token: "revoked-token").errorType
                == "invalid_token")
        let viewer = try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits", token: "viewer-token")
        #expect(viewer.errorType == "access_denied")
    }

    @Test("sampling: big counters are sampled unless accuracy=full")
    func sampling() async throws {
        let sim = try SimulatorHarness()
        let base = "/stat/v1/data?ids=1004&metrics=ym:s:visits,ym:s:users,ym:s:bounceRate&dimensions=ym:s:trafficSource"
        let medium = try StatAnswer(try await sim.get(base))
        #expect(medium.raw["sampled"] as? Bool == true)
        let share = try #require(medium.raw["sample_share"] as? Double)
        #expect(share < 1 && share > 0)
        let size = try #require(medium.raw["sample_size"] as? Int)
        let space = try #require(medium.raw["sample_space"] as? Int)
        #expect(size < space)
        #expect(abs(Double(size) - Double(space) * share) <= 1)

        let full = try StatAnswer(try await sim.get(base + "&accuracy=full"))
        #expect(full.raw["sampled"] as? Bool == false)
        #expect(full.raw["sample_share"] as? Double == 1)
        let exact = try #require(full.totals[0])
        let estimate = try #require(medium.totals[0])
        #expect(estimate != exact)
        #expect(abs(estimate - exact) / exact < 0.01, "an estimate, not noise")
        #expect(medium.column(0).reduce(0, +) == estimate)

        let low = try StatAnswer(try await sim.get(base + "&accuracy=low"))
        #expect(try #require(low.raw["sample_share"] as? Double) < share)
        let numeric = try StatAnswer(try await sim.get(base + "&accuracy=0.1"))
        #expect(numeric.raw["sample_share"] as? Double == 0.1)

        let small = try StatAnswer(try await sim.get("/stat/v1/data?ids=1001&metrics=ym:s:visits"))
        #expect(small.raw["sampled"] as? Bool == false)
    }

    @Test("too complicated queries answer query_error")
    func queryError() async throws {
        let sim = try SimulatorHarness()
        let long = try await sim.get(
            "/stat/v1/data?ids=1004&metrics=ym:s:visits&dimensions=ym:s:searchPhrase&date1=800daysAgo")
        #expect(long.status == 400)
        #expect(long.errorType == "query_error")
        #expect(long.text.contains("Query is too complicated. Please reduce the date interval or sampling."))
        let huge = try await sim.get(
            "/stat/v1/data?ids=1004&metrics=ym:s:visits&dimensions=ym:s:date,ym:s:searchPhrase&date1=90daysAgo&accuracy=full"
        )
        #expect(huge.errorType == "query_error")
        let fine = try await sim.get(
            "/stat/v1/data?ids=1004&metrics=ym:s:visits&dimensions=ym:s:searchPhrase&date1=800daysAgo&accuracy=full&limit=5"
        )
        #expect(fine.status == 200)
    }

    @Test("a 100,000-row search-phrase report pages cleanly, with tricky phrases")
    func hundredThousandRows() async throws {
        let sim = try SimulatorHarness()
        let base =
            "/stat/v1/data?ids=1004&metrics=ym:s:visits,ym:s:users&dimensions=ym:s:searchPhrase&date1=364daysAgo&accuracy=full&limit=100000"
        let first = try StatAnswer(try await sim.get(base))
        #expect(first.totalRows > 100_000)
        #expect(first.rows.count == 100_000)
        let second = try StatAnswer(try await sim.get(base + "&offset=100001"))
        #expect(second.rows.count == first.totalRows - 100_000)
        let names = first.names() + second.names()
        #expect(Set(names.compactMap { $0 }).count == names.count - 1, "distinct phrases plus one null row")
        let visits = first.column(0) + second.column(0)
        #expect(visits == visits.sorted(by: >))
        #expect(visits.reduce(0, +) == first.totals[0])
        #expect(names.contains("купить диван, недорого"))
        #expect(names.contains("рамен\nрецепт дома"))
    }

    @Test("the phrase catalog has no duplicates")
    func phraseCatalog() {
        var seen = Set<String>()
        for index in 0..<SearchPhraseCatalog.capacity {
            seen.insert(SearchPhraseCatalog.phrase(index))
        }
        #expect(seen.count == SearchPhraseCatalog.capacity)
        #expect(SearchPhraseCatalog.capacity > 150_000)
    }

    @Test("faults distort report bodies")
    func faultsOnReports() async throws {
        let sim = try SimulatorHarness()
        let path = "/stat/v1/data?ids=1001&metrics=ym:s:visits,ym:s:bounceRate&dimensions=ym:s:date"
        try await sim.inject(#"{"kind":"huge_numbers","path_prefix":"/stat"}"#)
        let huge = try await sim.get(path)
        #expect(huge.text.contains("[1e308,123456789012345678901234567890]"))
        #expect(huge.text.contains("\"limit\":100"), "only metric values change")
        try await sim.inject(#"{"kind":"nan_strings","path_prefix":"/stat"}"#)
        let nan = try await sim.get(path)
        #expect(nan.text.contains(#"["NaN","Infinity"]"#))
        try await sim.inject(#"{"kind":"wrong_types","path_prefix":"/stat"}"#)
        let wrong = try await sim.get(path)
        let body = try wrong.json()
        #expect(body["data"] is [String: Any])
        #expect(body["total_rows"] as? String == "7")
        #expect(try await sim.get(path).status == 200)
    }
}

@Suite("Reporting API: /stat/v1/data/bytime")
struct ByTimeTests {
    @Test("weeks start on Monday; the first and last are clipped; no dimensions → one row")
    func intervals() async throws {
        let sim = try SimulatorHarness()
        let reply = try await sim.get(
            "/stat/v1/data/bytime?ids=1001&metrics=ym:s:visits,ym:s:users&date1=2026-05-06&date2=2026-06-15&group=week")
        let body = try reply.json()
        let intervals = try #require(body["time_intervals"] as? [[String]])
        #expect(intervals.first == ["2026-05-06", "2026-05-10"])
        #expect(intervals[1] == ["2026-05-11", "2026-05-17"])
        #expect(intervals.last == ["2026-06-15", "2026-06-15"])
        #expect(intervals.count == 7)
        let data = try #require(body["data"] as? [[String: Any]])
        #expect(data.count == 1)
        #expect((data[0]["dimensions"] as? [Any])?.isEmpty == true)
        let metrics = try #require(data[0]["metrics"] as? [[Double]])
        #expect(metrics.count == 2)
        #expect(metrics.allSatisfy { $0.count == 7 })
        let totals = try #require(body["totals"] as? [[Double]])
        #expect(totals == metrics)
        #expect((body["query"] as? [String: Any])?["group"] as? String == "Week")
    }

    @Test(
        "every interval equals /stat/v1/data over the same dates, users included",
        arguments: ["day", "week", "month", "quarter", "year"])
    func matchesData(group: String) async throws {
        let sim = try SimulatorHarness()
        let metrics = "ym:s:visits,ym:s:users,ym:s:bounceRate,ym:s:pageDepth"
        let body = try await sim.get(
            "/stat/v1/data/bytime?ids=1003&metrics=\(metrics)&date1=2026-01-20&date2=2026-06-15&group=\(group)"
        ).json()
        let intervals = try #require(body["time_intervals"] as? [[String]])
        let totals = try #require(body["totals"] as? [[Double?]])
        let sampled =
            intervals.count > 12
            ? Array(intervals.enumerated()).filter { $0.offset % 9 == 0 } : Array(intervals.enumerated())
        for (t, interval) in sampled {
            let data = try StatAnswer(
                try await sim.get("/stat/v1/data?ids=1003&metrics=\(metrics)&date1=\(interval[0])&date2=\(interval[1])")
            )
            for m in 0..<4 {
                #expect(data.totals[m] == totals[m][t], "\(group) \(interval) metric \(m)")
            }
        }
        // A month's users are fewer than the sum of its weeks' users.
        if group == "month" {
            let weekly = try await sim.get(
                "/stat/v1/data/bytime?ids=1003&metrics=ym:s:users&date1=2026-06-01&date2=2026-06-28&group=week"
            ).json()
            let monthly = try await sim.get(
                "/stat/v1/data/bytime?ids=1003&metrics=ym:s:users&date1=2026-06-01&date2=2026-06-28&group=month"
            ).json()
            let weeks = try #require((weekly["totals"] as? [[Double]])?.first)
            let month = try #require((monthly["totals"] as? [[Double]])?.first?.first)
            #expect(month < weeks.reduce(0, +))
        }
    }

    @Test("with a dimension: the top keys, each with one value per interval")
    func topKeys() async throws {
        let sim = try SimulatorHarness()
        let body = try await sim.get(
            "/stat/v1/data/bytime?ids=1001&metrics=ym:s:visits&dimensions=ym:s:trafficSource&group=month&date1=2026-04-10&top_keys=3"
        ).json()
        let data = try #require(body["data"] as? [[String: Any]])
        #expect(data.count == 3)
        let first = try #require(data.first)
        #expect(((first["dimensions"] as? [[String: Any]])?.first?["id"]) as? String == "organic")
        let series = try #require((first["metrics"] as? [[Double]])?.first)
        #expect(series.count == 3)
        let totals = try #require((body["totals"] as? [[Double]])?.first)
        for t in 0..<3 {
            #expect(series[t] < totals[t])
        }
        let bad = try await sim.get("/stat/v1/data/bytime?ids=1001&metrics=ym:s:visits&group=hour")
        #expect(bad.status == 400)
    }
}

@Suite("Report writing")
struct ReportWritingTests {
    @Test(
        "rows written straight to bytes equal the document tree's serialization",
        arguments: [
            "ids=1001&metrics=ym:s:visits,ym:s:bounceRate,ym:s:goal4001conversionRate&dimensions=ym:s:date,ym:s:trafficSource&lang=ru",
            // Phrases (the escaping ones at their popular ranks) by device: 1001's, not the big counter's
            // 150,000 (that cost the simulator 14 s of CPU for the same 500 rows).
            "ids=1001&metrics=ym:s:visits,ym:s:users&dimensions=ym:s:searchPhrase,ym:s:deviceCategory&limit=500",
            "ids=1002&metrics=ym:s:pageDepth&dimensions=ym:s:datePeriodweek&date1=60daysAgo",
            "ids=1001&metrics=ym:s:visits"
        ])
    func directWritingMatchesTree(query: String) throws {
        let simulator = try Simulator(
            options: SimulatorOptions(fixturesDirectory: fixturesRoot.appendingPathComponent("default"), now: frozenNow)
        )
        let response = simulator.handle(
            HTTPRequest(
                method: "GET", path: "/stat/v1/data", query: query,
                headers: [(name: "Authorization", value: "OAuth demo-token")]))
        #expect(response.status == 200)
        let tree = try #require(response.sourceDocument)
        #expect(tree.bytes == response.body)
        #expect(try JSONValue.parse(response.body) == tree)
    }
}
