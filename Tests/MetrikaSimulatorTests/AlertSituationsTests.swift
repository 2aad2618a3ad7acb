import Foundation
import Testing

@testable import MetrikaSimulator

/// Fixtures/alerts: the situations `metrika alert` is tested and demonstrated on, as the Reporting
/// API serves them (docs/simulator.md). The simulator's clock: Tuesday 2026-12-01, 09:00 in Moscow.
@Suite("Simulator: alert situations")
struct AlertSituationsTests {
    static let now = SimulatorOptions.parseInstant("2026-12-01T06:00:00Z")!

    /// Daily values of one metric of a counter, by date.
    func daily(
        _ harness: SimulatorHarness, _ counter: Int, _ metric: String, from: String = "2026-10-01",
        to: String = "2026-11-30"
    ) async throws -> [String: Double] {
        let answer = try StatAnswer(
            try await harness.get(
                "/stat/v1/data?ids=\(counter)&metrics=\(metric)&dimensions=ym:s:date&date1=\(from)&date2=\(to)&limit=1000"
            ))
        var values: [String: Double] = [:]
        for (name, value) in zip(answer.names(), answer.column(0)) { if let name { values[name] = value } }
        return values
    }

    @Test func aShopWithQuietWeekendsHasThemEveryWeek() async throws {
        let harness = try SimulatorHarness(fixtures: "alerts", now: Self.now)
        let visits = try await daily(harness, 520001, "ym:s:visits")
        // Sundays against Tuesdays of the same weeks: about 0.3 / 1.3.
        for (sunday, tuesday) in [
            ("2026-11-29", "2026-11-24"), ("2026-11-22", "2026-11-17"), ("2026-11-15", "2026-11-10")
        ] {
            let ratio = try #require(visits[sunday]) / (try #require(visits[tuesday]))
            #expect(ratio > 0.15 && ratio < 0.4, "\(sunday): \(ratio)")
        }
    }

    @Test func anOutageHasNoVisitsAndEndsWhenItSays() async throws {
        let harness = try SimulatorHarness(fixtures: "alerts", now: Self.now)
        let visits = try await daily(harness, 520002, "ym:s:visits")
        #expect(visits["2026-11-28"] == nil && visits["2026-11-29"] == nil, "the API omits days without visits")
        #expect((visits["2026-11-27"] ?? 0) > 500 && (visits["2026-11-30"] ?? 0) > 500)
    }

    @Test func aGoalThatBreaksStaysAtZeroAndATinyGoalIsAPoissonCount() async throws {
        let harness = try SimulatorHarness(fixtures: "alerts", now: Self.now)
        let orders = try await daily(harness, 520003, "ym:s:goal6301reaches")
        #expect(orders["2026-11-29"] == 0 && orders["2026-11-30"] == 0)
        let before = orders.filter { $0.key < "2026-11-29" }.map(\.value)
        let mean = before.reduce(0, +) / Double(before.count)
        #expect(mean > 20 && mean < 30, "about 25 a day: \(mean)")
        let calls = try await daily(harness, 520003, "ym:s:goal6302reaches")
        #expect(calls["2026-11-29"] == 0)
        let earlier = calls.filter { $0.key < "2026-11-29" }.map(\.value)
        #expect(earlier.contains(0), "a goal of 2 a day is 0 on some days")
        #expect(earlier.contains { $0 >= 3 })
    }

    @Test func wavesMultiplyVisitsFromTheirFirstDay() async throws {
        let harness = try SimulatorHarness(fixtures: "alerts", now: Self.now)
        let bots = try await daily(harness, 520004, "ym:s:visits")
        let half = try await daily(harness, 520005, "ym:s:visits")
        #expect(try #require(bots["2026-11-29"]) / (try #require(bots["2026-11-22"])) > 2)
        #expect(try #require(half["2026-11-29"]) / (try #require(half["2026-11-22"])) < 0.5)
    }

    @Test func poissonCountsHaveTheirMean() {
        var total = 0
        for index in 0..<4000 { total += TrafficModel.poisson(mean: 2, uniform: Seed.unit(7, index)) }
        #expect(abs(Double(total) / 4000 - 2) < 0.1)
        #expect(TrafficModel.poisson(mean: 0, uniform: 0.5) == 0)
    }
}
