import Foundation

/// Deterministic pseudo-randomness: the same inputs always give the same number, on every
/// platform and in every run, so generated statistics never change between requests.
enum Seed {
    /// SplitMix64's finalizer: a good 64-bit mix.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always)
    static func hash(_ a: Int, _ b: Int = 0, _ c: Int = 0) -> UInt64 {
        mix(mix(mix(UInt64(bitPattern: Int64(a))) ^ UInt64(bitPattern: Int64(b))) ^ UInt64(bitPattern: Int64(c)))
    }

    /// A uniform number in [0, 1).
    @inline(__always)
    static func unit(_ a: Int, _ b: Int = 0, _ c: Int = 0) -> Double {
        Double(hash(a, b, c) >> 11) / Double(1 << 53)
    }

    /// A uniform number in `range`.
    @inline(__always)
    static func between(_ range: ClosedRange<Double>, _ a: Int, _ b: Int = 0, _ c: Int = 0) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit(a, b, c)
    }

    /// A stable integer for a string (FNV-1a), for seeding by name.
    static func code(_ text: String) -> Int {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x100_0000_01B3
        }
        return Int(truncatingIfNeeded: h >> 1)
    }
}
