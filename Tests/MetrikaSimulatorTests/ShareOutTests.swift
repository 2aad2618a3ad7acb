import Testing

@testable import MetrikaSimulator

/// The simulator's share-out (issue 48): every count of a bucket is shared out over a report's rows
/// by largest remainder, so the rows add up to the bucket's total whatever their number. A phrase
/// report's 150,000 rows were rounded each on their own (a day's phrases lost 11 % of its bounces);
/// now they add up as a source table's do, at no more cost.
@Suite("Simulator: shares add up at any size")
struct ShareOutTests {
    /// A fixed pseudo-random sequence (no seed from the clock: the test reads the same every run).
    struct Numbers {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(UInt64(1) << 53)
        }
    }

    /// The reference: one more to the largest remainders by a full sort (ties to the earlier member).
    static func reference(_ total: Int, _ shares: [Double]) -> [Int] {
        let sum = shares.reduce(0, +)
        let exact = shares.map { $0 * Double(total) / sum }
        var parts = exact.map { Int($0.rounded(.down)) }
        let remainders = exact.indices.map { exact[$0] - exact[$0].rounded(.down) }
        let order = exact.indices.sorted {
            remainders[$0] != remainders[$1] ? remainders[$0] > remainders[$1] : $0 < $1
        }
        for member in order.prefix(total - parts.reduce(0, +)) { parts[member] += 1 }
        return parts
    }

    @Test("the largest remainders chosen by the histogram are the full sort's, small and large")
    func largestRemaindersAreTheFullSorts() {
        var numbers = Numbers(state: 48)
        for count in [3, 64, 65, 2_000, 5_000] {
            // Many equal shares too: ties go to the earlier member.
            let shares = (0..<count).map { index in index % 5 == 0 ? 1.0 : numbers.next() * 10 }
            let total = count * 3 + 7
            var parts = [Int](repeating: 0, count: count)
            PathSet.splitLargestRemainder(total, shares: shares, range: 0..<count, into: &parts)
            #expect(parts.reduce(0, +) == total)
            #expect(parts == Self.reference(total, shares), "\(count) shares")
        }
    }

    @Test("25,000 rows (a phrase table's size): the parts add up to the total and stay within their caps")
    func aPhraseTableAddsUp() {
        var numbers = Numbers(state: 2026)
        let count = 25_000
        // A phrase table's long tail: most rows 1 or 2 visits.
        let visits = (0..<count).map { index in Double(1 + Int(numbers.next() * 3) + (index < 20 ? 5_000 : 0)) }
        let weights = visits.map { $0 * (0.5 + numbers.next()) }
        let total = Int(visits.reduce(0, +) * 0.3)
        let bounces = PathSet.shareOut(total, weights: weights, caps: visits)
        #expect(bounces.reduce(0, +) == total)
        #expect(bounces.indices.allSatisfy { Double(bounces[$0]) <= visits[$0] && bounces[$0] >= 0 })
        // Caps that turn most rows away: what they turn away goes to the others, still adding up.
        let users = PathSet.shareOut(total, weights: weights, caps: visits.map { $0 - 1 })
        #expect(users.reduce(0, +) == total)
        #expect(users.indices.allSatisfy { Double(users[$0]) <= visits[$0] - 1 })
    }
}
