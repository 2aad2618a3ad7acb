/// Exact decimal text for doubles, independent of locale and of `printf` rounding: the one rounding
/// rule of every number metrika writes for people (tables, CSV, charts' labels, HTML, mail, alert
/// lines, `--compare` changes).
///
/// Rounding rule (documented in docs/reports.md): a value is first written as the shortest decimal
/// that reads back as the same double (what the API sent, e.g. `2.385`), and that decimal is rounded
/// half away from zero. So 2.385 → `2.39` and 59.5 s → `01:00`, as a person rounding the API's
/// number by hand would get — not `2.38`, which binary rounding of 2.38499999… would give.
package enum DecimalText {
    /// `value` with exactly `fractionDigits` digits after the point; no exponent, no grouping.
    package static func format(_ value: Double, fractionDigits: Int) -> String {
        precondition(value.isFinite, "DecimalText.format needs a finite value")
        var (negative, digits, pointPosition) = decompose(value)
        // Round half away from zero at `fractionDigits` after the point.
        let keep = pointPosition + fractionDigits
        if keep < 0 {
            digits = [0]
            pointPosition = 1
        } else if keep < digits.count {
            let roundUp = digits[keep] >= 5
            digits = Array(digits[0..<keep])
            if roundUp {
                var index = digits.count - 1
                var carry = true
                while carry && index >= 0 {
                    if digits[index] == 9 {
                        digits[index] = 0
                        index -= 1
                    } else {
                        digits[index] += 1
                        carry = false
                    }
                }
                if carry {
                    digits.insert(1, at: 0)
                    pointPosition += 1
                }
            }
        }
        // Pad so that there are digits for the integer part and every fraction digit.
        while pointPosition <= 0 {
            digits.insert(0, at: 0)
            pointPosition += 1
        }
        while digits.count < pointPosition + fractionDigits { digits.append(0) }
        // Built as ASCII bytes: a 100,000-row CSV formats 600,000 values, and a String per digit
        // joined together cost more than the rest of the report (docs/performance.md).
        let zero = UInt8(ascii: "0")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pointPosition + fractionDigits + 2)
        var nonZero = false
        for digit in digits[0..<pointPosition] {
            bytes.append(zero + digit)
            if digit != 0 { nonZero = true }
        }
        if fractionDigits > 0 {
            bytes.append(UInt8(ascii: "."))
            for digit in digits[pointPosition..<(pointPosition + fractionDigits)] {
                bytes.append(zero + digit)
                if digit != 0 { nonZero = true }
            }
        }
        if negative && nonZero { bytes.insert(UInt8(ascii: "-"), at: 0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `format(value, fractionDigits: maxFractionDigits)` without trailing fractional zeros or a bare
    /// point (`1.50` → `1.5`, `2.00` → `2`): charts' axis labels and short figures. Same rounding.
    package static func trimmed(_ value: Double, maxFractionDigits: Int) -> String {
        var text = format(value, fractionDigits: maxFractionDigits)
        guard text.utf8.contains(UInt8(ascii: ".")) else { return text }
        while text.utf8.last == UInt8(ascii: "0") { text.removeLast() }
        if text.utf8.last == UInt8(ascii: ".") { text.removeLast() }
        return text
    }

    /// The shortest exact decimal of `value`, without exponent and without a trailing `.0`
    /// (`182.664`, `41`, `100000000000000000000`): what `--raw` and JSON-minded outputs print.
    package static func shortest(_ value: Double) -> String {
        precondition(value.isFinite, "DecimalText.shortest needs a finite value")
        // Zero's only digit would otherwise count as a fraction digit and print `0.0`.
        if value == 0 { return "0" }
        let (negative, digits, pointPosition) = decompose(value)
        let fractionDigits = max(0, digits.count - pointPosition)
        var text = format(abs(value), fractionDigits: fractionDigits)
        if negative && value != 0 { text = "-" + text }
        return text
    }

    /// Digits of Swift's shortest round-trip representation and where the point goes.
    private static func decompose(_ value: Double) -> (negative: Bool, digits: [UInt8], pointPosition: Int) {
        let negative = value < 0
        let text = "\(abs(value))" // e.g. "2.385", "1e+308", "1.2345e-05", "41.0": ASCII only
        let utf8 = text.utf8
        var mantissaEnd = utf8.endIndex
        var exponent = 0
        if let e = utf8.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            mantissaEnd = e
            exponent = Int(String(text[text.index(after: e)...])) ?? 0
        }
        // Bytes, not Characters: Character.wholeNumberValue looks up Unicode properties for every digit.
        var digits: [UInt8] = []
        digits.reserveCapacity(24)
        var pointPosition = 0
        var seenPoint = false
        for byte in utf8[..<mantissaEnd] {
            if byte == UInt8(ascii: ".") {
                seenPoint = true
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { continue }
            digits.append(byte - UInt8(ascii: "0"))
            if !seenPoint { pointPosition += 1 }
        }
        pointPosition += exponent
        // Drop leading zeros (keeping the point aligned) and trailing zeros of the fraction.
        while digits.count > 1, digits[0] == 0 {
            digits.removeFirst()
            pointPosition -= 1
        }
        while digits.count > max(1, pointPosition), digits.last == 0 { digits.removeLast() }
        return (negative, digits, pointPosition)
    }
}
