import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel

/// Issue 24 item 10: values no metric can have (a 300-digit visit count, a bounce rate of 1.2e29 %,
/// a negative duration) make the answer unreadable (exit 65) before any caller sees them; the
/// bounds by unit are the model's, in one place.
@Suite("Plausible values")
struct PlausibleValuesTests {
    static let query = StatQuery(
        ids: [1001], metrics: ["ym:s:visits", "ym:s:bounceRate", "ym:s:avgVisitDurationSeconds", "ym:s:pageDepth"],
        dimensions: ["ym:s:date"], date1: "2026-11-01", date2: "2026-11-02")

    static func page(rows: [[String]], totals: [String] = ["10", "20", "30", "2"]) -> String {
        let data = rows.enumerated().map { index, values in
            #"{"dimensions":[{"name":"2026-11-0\#(index + 1)"}],"metrics":[\#(values.joined(separator: ","))]}"#
        }
        return
            #"{"data":[\#(data.joined(separator: ","))],"total_rows":\#(rows.count),"sampled":false,"totals":[\#(totals.joined(separator: ","))]}"#
    }

    static func fetch(_ body: String) async throws -> StatDataPage {
        try await makeClient(FakeTransport([.respond(200, body)])).fetchData(query, offset: 1, limit: 100)
    }

    @Test(arguments: [
        (["1e308", "20", "30", "2"], "Visits"),
        (["123456789012345678901234567890", "20", "30", "2"], "a count beyond 2^53"),
        (["-1", "20", "30", "2"], "a count is never negative"),
        (["10", "1.2e29", "30", "2"], "a percentage is 0–100"),
        (["10", "100.5", "30", "2"], "Bounce rate 100.5"),
        (["10", "-0.1", "30", "2"], "a percentage is 0–100"),
        (["10", "20", "-5", "2"], "a duration is never negative"),
        (["10", "20", "30", "-2"], "pages per visit are never negative")
    ])
    func implausibleRowsAreUnreadable(values: [String], says: String) async throws {
        let error = await #expect(throws: APIError.self) {
            try await Self.fetch(Self.page(rows: [["5", "10", "60", "1.5"], values]))
        }
        guard case .unreadable(let detail)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(detail.contains(says) && detail.contains("nothing of it was shown or kept"), "\(detail)")
        #expect(error?.exitCode == 65)
    }

    @Test func implausibleTotalsAreUnreadable() async {
        await #expect(throws: APIError.self) {
            try await Self.fetch(Self.page(rows: [["5", "10", "60", "1.5"]], totals: ["5", "1e29", "60", "1.5"]))
        }
    }

    /// The edges are values: 0, 100 %, 2^53, nulls, and numbers of no known unit.
    @Test func edgesAndNullsPass() async throws {
        let page = try await Self.fetch(
            Self.page(rows: [
                ["0", "0", "0", "0"], ["9007199254740992", "100", "86400", "1000"], ["null", "null", "null", "null"]
            ]))
        #expect(page.rowCount == 3)
        let other = StatQuery(ids: [1001], metrics: ["ym:s:someScore"], date1: "2026-11-01", date2: "2026-11-01")
        let body = #"{"data":[{"dimensions":[],"metrics":[-1e300]}],"total_rows":1,"totals":[-1e300]}"#
        let answer = try await makeClient(FakeTransport([.respond(200, body)])).fetchData(other, offset: 1, limit: 1)
        #expect(answer.rowCount == 1)
    }

    @Test func theBoundsAreByUnit() {
        #expect(Normalizer.plausibleRange(of: .percent) == 0...100.000_000_1)
        #expect(Normalizer.plausibleRange(of: .count)?.upperBound == 9_007_199_254_740_992)
        #expect(Normalizer.plausibleRange(of: .number) == nil)
        #expect(Normalizer.implausibility(of: 101, for: .bounceRate) == "a percentage is 0–100")
        #expect(Normalizer.implausibility(of: 99.9, for: .bounceRate) == nil)
        #expect(Normalizer.implausibility(of: .nan, for: .visits) == nil)
    }
}
