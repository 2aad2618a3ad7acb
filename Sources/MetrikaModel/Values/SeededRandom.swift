/// SplitMix64: a tiny, well-mixed, seedable generator. The same seed gives the same sequence on
/// every platform, which deterministic output (MIME boundaries) and repeatable fuzzing need.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 16 lowercase hex digits.
    package mutating func nextHex() -> String {
        let text = String(next(), radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
