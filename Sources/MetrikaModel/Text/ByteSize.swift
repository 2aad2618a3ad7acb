/// Sizes of logs as metrika says them: megabytes (10^6 bytes) to a tenth, cut rather than rounded, so
/// a part is never said bigger than it is (`logs`' progress and summary, `logs --list`).
package enum ByteSize {
    /// `0.1` for 100,000 bytes, `12.3` for 12,399,999.
    package static func megabytes(_ bytes: Int) -> String {
        let tenths = bytes * 10 / 1_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
