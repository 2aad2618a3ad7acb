import Foundation
import Testing

@testable import MetrikaSimulator

/// `ym:s:hour`: every counter's days by local hour, adding up to the daily totals exactly; today's
/// hours end with the running one; Fixtures/alerts' 520008 stops recording at 14:00 of today.
/// The simulator's clock: Tuesday 2026-12-01, 17:30 in Moscow.
@Suite("Simulator: hours")
struct HourlyTests {
    static let now = SimulatorOptions.parseInstant("2026-12-01T14:30:00Z")!

    /// (date, hour name) → the metric's values, for `ym:s:date,ym:s:hour`.
    func hours(_ harness: SimulatorHarness, _ counter: Int, _ metrics: String, from: String, to: String) async throws
        -> [String: [String: [Double]]]
    {
        let reply = try await harness.get(
            "/stat/v1/data?ids=\(counter)&metrics=\(metrics)&dimensions=ym:s:date,ym:s:hour&date1=\(from)&date2=\(to)&limit=1000"
        )
        let answer = try StatAnswer(reply)
        var result: [String: [String: [Double]]] = [:]
        let count = metrics.split(separator: ",").count
        let columns = (0..<count).map { answer.column($0) }
        for (row, (day, hour)) in zip(answer.names(0), answer.names(1)).enumerated() {
            guard let day, let hour else { continue }
            result[day, default: [:]][hour] = columns.map { $0[row] }
        }
        return result
    }

    func daily(_ harness: SimulatorHarness, _ counter: Int, _ metrics: String, from: String, to: String) async throws
        -> [String: [Double]]
    {
        let answer = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=\(counter)&metrics=\(metrics)&dimensions=ym:s:date&date1=\(from)&date2=\(to)&limit=1000"
            ))
        let count = metrics.split(separator: ",").count
        let columns = (0..<count).map { answer.column($0) }
        var result: [String: [Double]] = [:]
        for (row, day) in answer.names(0).enumerated() { if let day { result[day] = columns.map { $0[row] } } }
        return result
    }

    @Test func theHoursOfEveryDayAddUpToTheDayExactly() async throws {
        let harness = try SimulatorHarness(fixtures: "alerts", now: Self.now)
        for counter in [520001, 520003, 520008] {
            let metrics =
                counter == 520003 ? "ym:s:visits,ym:s:pageviews,ym:s:goal6301reaches" : "ym:s:visits,ym:s:pageviews"
            let byHour = try await hours(harness, counter, metrics, from: "2026-11-20", to: "2026-12-01")
            let byDay = try await daily(harness, counter, metrics, from: "2026-11-20", to: "2026-12-01")
            #expect(byDay.count >= 11, "counter \(counter)")
            for (day, totals) in byDay {
                let hoursOfDay = byHour[day] ?? [:]
                for m in totals.indices {
                    let sum = hoursOfDay.values.reduce(0) { $0 + $1[m] }
                    #expect(sum == totals[m], "counter \(counter) \(day) metric \(m): hours \(sum), day \(totals[m])")
                }
            }
        }
    }

    @Test func nightsAreQuietAndAfternoonsBusy() async throws {
        let harness = try SimulatorHarness(fixtures: "alerts", now: Self.now)
        let day = try #require(
            try await hours(harness, 520005, "ym:s:visits", from: "2026-11-24", to: "2026-11-24")["2026-11-24"])
        let night = try #require(day["04:00"]?.first)
        let afternoon = try #require(day["15:00"]?.first)
        #expect(night * 5 < afternoon, "04:00 \(night), 15:00 \(afternoon)")
        #expect(day.keys.sorted() == (0..<24).map { $0 < 10 ? "0\($0):00" : "\($0):00" })
    }

    @Test func todayEndsWithTheRunningHourAndAStopLeavesHoursEmpty() async throws {
        let harness = try SimulatorHarness(fixtures: "alerts", now: Self.now)
        // A normal counter at 17:30: 00:00 … 17:00, the running hour about half of last Tuesday's.
        let normal = try #require(
            try await hours(harness, 520001, "ym:s:visits", from: "today", to: "today")["2026-12-01"])
        #expect(normal.keys.sorted().last == "17:00")
        #expect(normal["18:00"] == nil)
        let week = try #require(
            try await hours(harness, 520001, "ym:s:visits", from: "2026-11-24", to: "2026-11-24")["2026-11-24"])
        let running = try #require(normal["17:00"]?.first)
        let full = try #require(week["17:00"]?.first)
        #expect(running > 0.3 * full && running < 0.7 * full, "17:00 so far \(running), a whole 17:00 \(full)")
        // 520008: visits and its goal until 13:00, nothing from 14:00 on.
        let stopped = try #require(
            try await hours(harness, 520008, "ym:s:visits,ym:s:goal6801reaches", from: "today", to: "today")[
                "2026-12-01"])
        #expect(stopped.keys.sorted().last == "13:00")
        #expect((stopped["13:00"]?.first ?? 0) > 100)
        let lastWeek = try #require(
            try await hours(harness, 520008, "ym:s:goal6801reaches", from: "2026-11-24", to: "2026-11-24")["2026-11-24"]
        )
        #expect((lastWeek["15:00"]?.first ?? 0) >= 1, "the goal is reached in the afternoon on ordinary days")
    }

    @Test func hoursAloneSumTheIntervalAndOtherCombinationsAreRefused() async throws {
        let harness = try SimulatorHarness(fixtures: "alerts", now: Self.now)
        let alone = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=520001&metrics=ym:s:visits&dimensions=ym:s:hour&date1=2026-11-23&date2=2026-11-29&limit=100"
            ))
        let week = try await daily(harness, 520001, "ym:s:visits", from: "2026-11-23", to: "2026-11-29")
        #expect(alone.names(0).count == 24)
        #expect(alone.column(0).reduce(0, +) == week.values.reduce(0) { $0 + $1[0] })
        let refused = try await harness.get(
            "/stat/v1/data?ids=520001&metrics=ym:s:visits&dimensions=ym:s:hour,ym:s:productName&date1=today&date2=today"
        )
        #expect(refused.status == 400)
    }

    /// `filters` as a URL's query value.
    func encoded(_ filters: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return filters.addingPercentEncoding(withAllowedCharacters: allowed) ?? filters
    }

    @Test func anHoursRowsByAttributeAddUpToTheHour() async throws {
        let harness = try SimulatorHarness(fixtures: "alerts", now: Self.now)
        let byHour = try await hours(harness, 520001, "ym:s:visits", from: "2026-11-24", to: "2026-11-25")
        for dimension in ["ym:s:trafficSource", "ym:s:deviceCategory", "ym:s:startURL"] {
            let answer = try StatAnswer(
                try await harness.get(
                    "/stat/v1/data?ids=520001&metrics=ym:s:visits&dimensions=ym:s:date,ym:s:hour,\(dimension)&date1=2026-11-24&date2=2026-11-25&limit=10000"
                ))
            var sums: [String: [String: Double]] = [:]
            for (row, (day, hour)) in zip(answer.names(0), answer.names(1)).enumerated() {
                guard let day, let hour else { continue }
                sums[day, default: [:]][hour, default: 0] += answer.column(0)[row]
            }
            #expect(Set(answer.names(2).compactMap { $0 }).count > 1, "\(dimension) splits the hours")
            for (day, hoursOfDay) in byHour {
                for (hour, values) in hoursOfDay {
                    #expect(sums[day]?[hour] == values[0], "\(dimension) \(day) \(hour)")
                }
            }
        }
    }

    @Test func dateAndHourFiltersKeepTheDaysAndHoursTheyName() async throws {
        let harness = try SimulatorHarness(fixtures: "alerts", now: Self.now)
        let byHour = try await hours(harness, 520001, "ym:s:visits", from: "2026-11-10", to: "2026-12-01")
        let filters = encoded(
            "ym:s:date=.('2026-11-10','2026-11-24','2026-12-01') AND ym:s:hour=.('14:00','15','16:00') AND ym:s:trafficSource!='ad'"
        )
        let answer = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=520001&metrics=ym:s:visits&dimensions=ym:s:date,ym:s:hour,ym:s:trafficSource&date1=2026-11-10&date2=2026-12-01&filters=\(filters)&limit=10000"
            ))
        #expect(Set(answer.names(0).compactMap { $0 }) == ["2026-11-10", "2026-11-24", "2026-12-01"])
        #expect(Set(answer.names(1).compactMap { $0 }) == ["14:00", "15:00", "16:00"])
        #expect(!answer.ids(2).contains("ad") && answer.ids(2).contains("organic"))
        var all = 0.0
        for day in ["2026-11-10", "2026-11-24", "2026-12-01"] {
            for hour in ["14:00", "15:00", "16:00"] { all += byHour[day]?[hour]?.first ?? 0 }
        }
        let filtered = answer.column(0).reduce(0, +)
        #expect(filtered > 0 && filtered < all, "the ads' visits are left out: \(filtered) of \(all)")
        // Without the source's term the filtered hours are the hours themselves.
        let kept = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=520001&metrics=ym:s:visits&dimensions=ym:s:date,ym:s:hour&date1=2026-11-10&date2=2026-12-01&filters=\(encoded("ym:s:date!.('2026-11-10') AND ym:s:hour=='15'"))&limit=10000"
            ))
        #expect(kept.names(1).allSatisfy { $0 == "15:00" } && kept.names(0).count == 21, "\(kept.names(0))")
        #expect(
            kept.column(0).reduce(0, +)
                == byHour.filter { $0.key != "2026-11-10" }.values.reduce(0) { $0 + ($1["15:00"]?.first ?? 0) })
        for bad in ["ym:s:hour=.('25')", "ym:s:date=.('yesterday-ish')", "ym:s:hour=='1500'"] {
            let refused = try await harness.get(
                "/stat/v1/data?ids=520001&metrics=ym:s:visits&dimensions=ym:s:date,ym:s:hour&date1=2026-11-10&date2=2026-12-01&filters=\(encoded(bad))"
            )
            #expect(refused.status == 400, "\(bad)")
        }
    }

    /// Fixtures/explain's 530004 loses its search traffic today: every hour of today has no organic
    /// row, the same hours of last Tuesday have one.
    @Test func searchTrafficGoneTodayHourByHour() async throws {
        let harness = try SimulatorHarness(
            fixtures: "explain", now: SimulatorOptions.parseInstant("2026-12-01T06:00:00Z")!)
        let filters = encoded("ym:s:date=.('2026-11-24','2026-12-01') AND ym:s:hour=.('06:00','07:00','08:00')")
        let answer = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=530004&metrics=ym:s:visits&dimensions=ym:s:date,ym:s:hour,ym:s:trafficSource&date1=2026-11-24&date2=2026-12-01&filters=\(filters)&limit=1000"
            ))
        let rows = zip(answer.names(0), answer.ids(2)).map { ($0 ?? "", $1 ?? "") }
        #expect(rows.contains { $0 == ("2026-11-24", "organic") })
        #expect(!rows.contains { $0.0 == "2026-12-01" && $0.1 == "organic" })
        #expect(rows.contains { $0 == ("2026-12-01", "direct") })
    }
}
