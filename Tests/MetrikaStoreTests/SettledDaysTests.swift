import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

/// `settledDays` is counted by SQLite; held here to the rule spelled out cell by cell: a day is settled
/// when every asked metric is stored with the unit it has now and every one of those cells is settled.
@Suite struct SettledDaysTests {
    @Test func settledDaysFollowTheCellByCellRule() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let metrics: [Metric] = [.visits, .pageviews, .bounceRate, .avgVisitDuration]
            let span = range("2024-01-01", "2024-03-31")
            var random = SeededRandom(seed: 0x5E77_1ED)
            // Several overlapping fetches with different settled boundaries and metric subsets.
            for _ in 0..<12 {
                let from = span.from.adding(days: Int(random.next() % 80))
                let part = DateRange(from: from, to: from.adding(days: Int(random.next() % 20)))!
                let subset = metrics.filter { _ in random.next() % 4 != 0 }
                guard !subset.isEmpty else { continue }
                var values: [Day: [Double?]] = [:]
                for day in part.days where random.next() % 6 != 0 {
                    values[day] = subset.map { _ in random.next() % 5 == 0 ? nil : Double(random.next() % 1000) }
                }
                try await store.storeDaily(
                    counterID: sampleCounter.id, range: part, metrics: subset, values: values, fetchedAt: Date(),
                    settledBefore: part.from.adding(days: Int(random.next() % 25)), sampled: false, dataLag: nil)
            }
            // A cell stored under another unit (as after a metric changed its unit) does not count.
            try rawExecute(
                store.path,
                "UPDATE daily_values SET unit = 'number' WHERE metric = 'ym:s:bounceRate' AND day LIKE '2024-02-1%'")
            for asked in [metrics, [.visits], [.bounceRate, .visits], [.users], [.visits, .visits]] {
                let cells = try rawRows(
                    store.path, "SELECT day, metric, unit, settled FROM daily_values WHERE counter_id = ?",
                    [.int(sampleCounter.id)])
                var byDay: [String: [String: Bool]] = [:]
                for cell in cells {
                    guard let day = cell[0].string, let metric = cell[1].string, let unit = cell[2].string,
                        asked.contains(where: { $0.apiName == metric && $0.unit.rawValue == unit })
                    else { continue }
                    byDay[day, default: [:]][metric] = cell[3].int == 1
                }
                let expected = Set(
                    byDay.compactMap { day, stored -> Day? in
                        let complete =
                            asked.allSatisfy { stored[$0.apiName] != nil }
                            && Set(asked.map(\.apiName)).count == asked.count
                        return complete && stored.values.allSatisfy { $0 } ? Day(iso: day) : nil
                    }
                ).filter { span.contains($0) }
                let settled = try await store.settledDays(counterID: sampleCounter.id, range: span, metrics: asked)
                #expect(settled == expected, "\(asked.map(\.apiName))")
                // The data must give the rule something to decide (users and a doubled metric are never complete).
                let names = asked.map(\.apiName)
                #expect(!expected.isEmpty || names == ["ym:s:users"] || Set(names).count < names.count)
            }
        }
    }
}
