import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

/// Settled days by segment (`segment_days`, `segment_values`, migration 11): a day is read back only
/// when it was kept for every metric asked, a day without segments is kept as such, a later store
/// replaces a day, and pruning takes the segments with their days.
@Suite struct SegmentValuesTests {
    let fetchedAt = Date(timeIntervalSince1970: 1_796_126_000)

    @Test func keptDaysAreReadBackForEveryMetricAskedOnly() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let (monday, before, empty) = (day("2026-11-23"), day("2026-11-16"), day("2026-11-09"))
            try await store.storeSegments(
                counterID: 101, dimension: "ym:s:trafficSource", metrics: ["ym:s:visits", "ym:s:pageviews"],
                days: [
                    monday: [("Direct traffic", [10, 30]), ("Search engine traffic", [5, nil])],
                    before: [("Direct traffic", [8, 20])], empty: []
                ],
                fetchedAt: fetchedAt)
            let read = try await store.storedSegments(
                counterID: 101, dimension: "ym:s:trafficSource", metrics: ["ym:s:visits", "ym:s:pageviews"],
                days: [monday, before, empty, day("2026-11-02")])
            #expect(read.count == 3, "a day never kept is left out")
            let rows = try #require(read[monday])
            #expect(rows.map(\.segment) == ["Direct traffic", "Search engine traffic"])
            #expect(rows[0].values == [10, 30] && rows[1].values == [5, nil])
            #expect(read[empty]?.isEmpty == true, "a day without visits is kept: it has no segment")
            // One metric alone, and its order.
            let pageviews = try await store.storedSegments(
                counterID: 101, dimension: "ym:s:trafficSource", metrics: ["ym:s:pageviews"], days: [before])
            #expect(pageviews[before]?.first?.values == [20])
            // With a metric never kept beside: no day is whole.
            let other = try await store.storedSegments(
                counterID: 101, dimension: "ym:s:trafficSource", metrics: ["ym:s:visits", "ym:s:users"], days: [monday])
            #expect(other.isEmpty)
            // Another dimension or counter: nothing.
            #expect(
                try await store.storedSegments(
                    counterID: 101, dimension: "ym:s:deviceCategory", metrics: ["ym:s:visits"], days: [monday]
                ).isEmpty)
            #expect(
                try await store.storedSegments(
                    counterID: 102, dimension: "ym:s:trafficSource", metrics: ["ym:s:visits"], days: [monday]
                ).isEmpty)
        }
    }

    @Test func aLaterStoreReplacesTheDayAndPruningTakesItsSegments() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await makeStore(in: directory)
            let monday = day("2026-11-23")
            try await store.storeSegments(
                counterID: 101, dimension: "ym:s:trafficSource", metrics: ["ym:s:visits"],
                days: [monday: [("Direct traffic", [10]), ("Ad traffic", [3])]], fetchedAt: fetchedAt)
            try await store.storeSegments(
                counterID: 101, dimension: "ym:s:trafficSource", metrics: ["ym:s:visits"],
                days: [monday: [("Direct traffic", [11])]], fetchedAt: fetchedAt)
            let read = try await store.storedSegments(
                counterID: 101, dimension: "ym:s:trafficSource", metrics: ["ym:s:visits"], days: [monday])
            #expect(read[monday]?.map(\.segment) == ["Direct traffic"] && read[monday]?.first?.values == [11])
            _ = try await store.prune(before: day("2026-11-24"))
            #expect(
                try await store.storedSegments(
                    counterID: 101, dimension: "ym:s:trafficSource", metrics: ["ym:s:visits"], days: [monday]
                ).isEmpty)
            let left = try rawRows(store.path, "SELECT count(*) FROM segment_values")
            #expect(left == [[.integer(0)]], "the segments went with their day")
        }
    }
}
