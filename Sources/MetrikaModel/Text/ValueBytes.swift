/// Report values formatted straight into bytes: the fast path of the CSV, JSON and table sinks.
///
/// Every function writes ASCII into a caller's scratch space of at least `scratchSize` bytes and
/// returns how many it wrote, or nil when it cannot prove that its answer is the one `DecimalText`
/// and `ValueFormatter` (the obviously-right String path, which stays the definition) would give —
/// then the caller formats that one value the slow way. That happens only for magnitudes beyond 2^40
/// (2^50 away from ties), i.e. practically never in API data.
///
/// Why rounding the double directly is the same as `DecimalText`'s rounding of its shortest decimal
/// S: S lies within half a unit in the last place of the double, so `value × 10^d` and `S × 10^d`
/// differ by a few units in the last place of the product. Unless the product's fraction is that
/// close to ½ (the margin below is 2^12 times wider), both round half away from zero to the same
/// integer. Ties (2.385 to two digits) are decided exactly; see `roundedMagnitude`.
package enum ValueBytes {
    /// The scratch space every function needs: a sign, 16 digits, 5 group separators, a point, and
    /// `%` or a space and a currency sign.
    package static let scratchSize = 48

    private static let powersOfTen: [Double] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]
    private static let zero = UInt8(ascii: "0")

    /// `DecimalText.format(value, fractionDigits:)`, grouped by `DigitGroups` when `grouping` is set.
    package static func fixed(
        _ value: Double, fractionDigits: Int, grouping: Bool = false, into out: UnsafeMutablePointer<UInt8>
    ) -> Int? {
        guard let rounded = roundedMagnitude(value, fractionDigits: fractionDigits) else { return nil }
        return writeDecimal(
            rounded, negative: value < 0 && rounded != 0, fractionDigits: fractionDigits, grouping: grouping, into: out)
    }

    /// `ValueFormatter.duration(seconds, alwaysHours:)`: `mm:ss`, `h:mm:ss`.
    package static func duration(_ seconds: Double, alwaysHours: Bool, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        guard let total = roundedMagnitude(seconds, fractionDigits: 0) else { return nil }
        var count = 0
        if seconds < 0 && total > 0 {
            out[0] = UInt8(ascii: "-")
            count = 1
        }
        let hours = total / 3600
        let minutes = (total % 3600) / 60
        let secs = total % 60
        if hours > 0 || alwaysHours {
            count += writeDecimal(hours, negative: false, fractionDigits: 0, grouping: false, into: out + count)
            out[count] = UInt8(ascii: ":")
            count += 1
        }
        count += writeTwoDigits(minutes, into: out + count)
        out[count] = UInt8(ascii: ":")
        count += 1
        count += writeTwoDigits(secs, into: out + count)
        return count
    }

    /// `DecimalText.shortest(value)` for whole numbers below 2^53 (counts: the common case); nil for
    /// anything else.
    package static func shortest(_ value: Double, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        let magnitude = value.magnitude
        guard magnitude < 0x1p53, magnitude.rounded(.towardZero) == magnitude else { return nil }
        let whole = UInt64(magnitude)
        return writeDecimal(whole, negative: value < 0 && whole != 0, fractionDigits: 0, grouping: false, into: out)
    }

    /// `ValueFormatter.format(quantity, grouping:, missing: "", currencySign:)` with seconds as
    /// `ValueFormatter.duration(_, alwaysHours:)`; a missing or non-finite value writes nothing.
    package static func normalized(
        _ quantity: Quantity, grouping: Bool, alwaysHours: Bool, currencySign: Bool = false,
        into out: UnsafeMutablePointer<UInt8>
    ) -> Int? {
        guard let value = quantity.value, value.isFinite else { return 0 }
        switch quantity.unit {
        case .count:
            return fixed(value, fractionDigits: 0, grouping: grouping, into: out)
        case .percent:
            guard let count = fixed(value, fractionDigits: 1, into: out) else { return nil }
            out[count] = UInt8(ascii: "%")
            return count + 1
        case .seconds:
            return duration(value, alwaysHours: alwaysHours, into: out)
        case .pagesPerVisit:
            return fixed(value, fractionDigits: 2, into: out)
        case .number:
            return fixed(value, fractionDigits: 2, grouping: grouping, into: out)
        case .money:
            guard let count = fixed(value, fractionDigits: 2, grouping: grouping, into: out) else { return nil }
            guard currencySign, let currency = quantity.currency else { return count }
            // A space and the sign: at most 4 UTF-8 bytes (`₽` is 3, a code 3); the scratch space has room.
            var written = count
            out[written] = UInt8(ascii: " ")
            written += 1
            for byte in currency.sign.utf8 {
                out[written] = byte
                written += 1
            }
            return written
        }
    }

    /// A String made by one of the functions above, or by `slow` when it declines.
    package static func text(_ slow: () -> String, _ fast: (UnsafeMutablePointer<UInt8>) -> Int?) -> String {
        var declined = false
        let text = String(unsafeUninitializedCapacity: scratchSize) { buffer in
            guard let base = buffer.baseAddress, let count = fast(base) else {
                declined = true
                return 0
            }
            return count
        }
        return declined ? slow() : text
    }

    // MARK: - Digits

    /// |value| × 10^fractionDigits rounded half away from zero, when that provably equals the
    /// rounding of the shortest decimal (see the type's comment); nil otherwise.
    @inline(__always)
    static func roundedMagnitude(_ value: Double, fractionDigits: Int) -> UInt64? {
        guard value.isFinite, fractionDigits >= 0, fractionDigits < powersOfTen.count else { return nil }
        let scaled = value.magnitude * powersOfTen[fractionDigits]
        guard scaled < 0x1p50 else { return nil }
        let whole = scaled.rounded(.down)
        let fraction = scaled - whole // exact below 2^52
        if abs(fraction - 0.5) > scaled * 0x1p-40 + 0x1p-60 { return UInt64(whole) + (fraction > 0.5 ? 1 : 0) }
        // Within a hair of the tie T = k + ½ (scaled). Below 2^40 no other decimal of as few digits
        // as T lies within the double's rounding interval, so S is T exactly when T reads back as
        // this double — and then rounds up — and otherwise lies on the same side of T as the double.
        // The double nearest T is (2k + 1) / (2 × 10^d): one correctly rounded division.
        guard scaled < 0x1p40 else { return nil }
        let k = UInt64(whole)
        let tie = Double(2 * k + 1) / (2 * powersOfTen[fractionDigits])
        return value.magnitude >= tie ? k + 1 : k
    }

    /// `magnitude` as a decimal with `fractionDigits` of it after the point (at least one digit
    /// before it), optionally grouped in threes with spaces.
    @inline(__always)
    static func writeDecimal(
        _ magnitude: UInt64, negative: Bool, fractionDigits: Int, grouping: Bool, into out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        // Digits right to left into a small stack buffer, then copied out in order.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { digits in
            var remaining = magnitude
            var digitCount = 0
            repeat {
                digits[digitCount] = zero + UInt8(truncatingIfNeeded: remaining % 10)
                remaining /= 10
                digitCount += 1
            } while remaining > 0
            while digitCount < fractionDigits + 1 {
                digits[digitCount] = zero
                digitCount += 1
            }
            var count = 0
            if negative {
                out[0] = UInt8(ascii: "-")
                count = 1
            }
            let integerDigits = digitCount - fractionDigits
            var index = digitCount - 1
            if grouping {
                // The one grouper, as the String path groups (`DigitGroups.group`).
                count += DigitGroups.write(count: integerDigits, into: out + count) { digits[digitCount - 1 - $0] }
                index -= integerDigits
            } else {
                for _ in 0..<integerDigits {
                    out[count] = digits[index]
                    count += 1
                    index -= 1
                }
            }
            if fractionDigits > 0 {
                out[count] = UInt8(ascii: ".")
                count += 1
                while index >= 0 {
                    out[count] = digits[index]
                    count += 1
                    index -= 1
                }
            }
            return count
        }
    }

    @inline(__always)
    private static func writeTwoDigits(_ value: UInt64, into out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = zero + UInt8(truncatingIfNeeded: value / 10)
        out[1] = zero + UInt8(truncatingIfNeeded: value % 10)
        return 2
    }
}
