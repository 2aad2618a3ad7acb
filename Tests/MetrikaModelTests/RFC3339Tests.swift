import Foundation
import Testing

@testable import MetrikaModel

/// `RFC3339` against Foundation's `ISO8601DateFormatter`, the definition it replaces: the same instant
/// for every well-formed text, the same text for every instant.
struct RFC3339Tests {
    static func reference(fraction: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fraction ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }

    @Test func readsWhatTheFoundationFormatterReads() throws {
        var random = SeededRandom(seed: 3339)
        let plain = Self.reference(fraction: false)
        let fractional = Self.reference(fraction: true)
        for _ in 0..<5_000 {
            // 1970 … 2100, every offset a real zone could have (whole quarter hours, −12:00 … +14:00).
            let instant = Date(timeIntervalSince1970: Double(Int.random(in: 0..<4_102_444_800, using: &random)))
            let quarters = Int.random(in: -48...56, using: &random)
            let zone = TimeZone(secondsFromGMT: quarters * 900)!
            plain.timeZone = zone
            fractional.timeZone = zone
            let withFraction = Bool.random(using: &random)
            let milliseconds = Double(Int.random(in: 0..<1000, using: &random)) / 1000
            let text =
                withFraction
                ? fractional.string(from: instant.addingTimeInterval(milliseconds)) : plain.string(from: instant)
            let expected = try #require((withFraction ? fractional : plain).date(from: text))
            let parsed = try #require(RFC3339.parse(text), "\(text)")
            #expect(abs(parsed.timeIntervalSince1970 - expected.timeIntervalSince1970) < 0.0005, "\(text)")
            // The offset written without its colon means the same.
            if text.count >= 25, !withFraction {
                let compact = String(text.prefix(22)) + String(text.suffix(2))
                #expect(RFC3339.parse(compact) == parsed, "\(compact)")
            }
        }
    }

    @Test func writesWhatTheFoundationFormatterWrites() {
        var random = SeededRandom(seed: 1985)
        let reference = Self.reference(fraction: false)
        for _ in 0..<5_000 {
            let seconds =
                Double(Int.random(in: 0..<4_102_444_800, using: &random)) + Double.random(in: 0..<1, using: &random)
            let instant = Date(timeIntervalSince1970: seconds)
            #expect(
                RFC3339.format(instant) == reference.string(from: Date(timeIntervalSince1970: seconds.rounded(.down))))
        }
    }

    @Test(arguments: [
        "", "2026-06-15", "2026-06-15T12:00:00", "2026-06-15T12:00Z", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
        "2026-06-15T24:00:00Z", "2026-06-15T12:60:00Z", "2026-06-15T12:00:00+3", "2026-06-15T12:00:00Zjunk",
        "2026-06-15T12:00:00.Z", "2026-06-15X12:00:00Z", "２０２６-06-15T12:00:00Z", "2026-06-15T12:00:00+24:00"
    ])
    func refusesWhatIsNotAnInstant(text: String) {
        // Stricter than Foundation's formatter, which reads February 30, 24:00, "Zjunk" and full-width
        // digits: a token file or METRIKA_NOW with those is damaged, not meant.
        #expect(RFC3339.parse(text) == nil)
    }
}
