/// The one thousands grouper: a space before every group of three integer digits, counted from the
/// right (`1 250 000.00`, `-12 345`).
///
/// Everything that groups goes through here: the String path (`ValueFormatter`, hence charts' labels,
/// the HTML page, the mail and alert lines) and the byte path of the report sinks (`ValueBytes`).
/// CSV and JSON never group (docs/reports.md). HTML makes the spaces no-break afterwards (`HTMLText`).
package enum DigitGroups {
    /// The byte between groups: an ASCII space.
    package static let separator = UInt8(ascii: " ")

    /// Writes `count` integer digits, most significant first (`digit(i)` is the i-th), with a separator
    /// before each group of three from the right; returns how many bytes it wrote:
    /// `count + (count - 1) / 3`.
    @inline(__always)
    package static func write(count: Int, into out: UnsafeMutablePointer<UInt8>, digit: (Int) -> UInt8) -> Int {
        var written = 0
        for position in 0..<count {
            if position > 0 && (count - position) % 3 == 0 {
                out[written] = separator
                written += 1
            }
            out[written] = digit(position)
            written += 1
        }
        return written
    }

    /// A plain decimal (`-1234567.5`, as `DecimalText` writes it) with its integer part grouped:
    /// `-1 234 567.5`. Text that is not such a decimal comes back unchanged.
    package static func group(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let start = bytes.first == UInt8(ascii: "-") ? 1 : 0
        var end = start
        while end < bytes.count, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") { end += 1 }
        let integerDigits = end - start
        // Only a sign, digits, then nothing or a fraction: anything else is not a number to group.
        guard integerDigits > 3, end == bytes.count || bytes[end] == UInt8(ascii: ".") else { return text }
        return String(unsafeUninitializedCapacity: bytes.count + integerDigits / 3) { buffer in
            let out = buffer.baseAddress!
            var written = 0
            if start == 1 {
                out[0] = UInt8(ascii: "-")
                written = 1
            }
            written += write(count: integerDigits, into: out + written) { bytes[start + $0] }
            for byte in bytes[end...] {
                out[written] = byte
                written += 1
            }
            return written
        }
    }
}
