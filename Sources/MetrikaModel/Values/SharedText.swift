/// Text that is either a `String` or a run of UTF-8 bytes in a buffer shared by many values.
///
/// A 20,000-row report page carries 20,000 dimension names. Making a `String` of each costs an
/// allocation, a copy and a UTF-8 validation per name, only for the CSV and JSON sinks to take the
/// bytes out again. The page reader (`StatDataScanner`) instead packs the names' bytes into one
/// buffer per page and hands each name out as its place in it; the sinks copy those bytes into
/// the output. Code that wants a `String` (the table, the history database, `--compare`) asks for
/// `string` and gets exactly the text the `String` path gave.
///
/// The bytes are always valid UTF-8 (the reader repairs invalid input to U+FFFD before it stores
/// it), so `string` never changes them. Equality and hashing are those of the `String`.
package struct SharedText: Sendable, Hashable, CustomStringConvertible {
    /// An immutable byte buffer that many `SharedText`s point into (one page's names).
    package final class Buffer: Sendable {
        let bytes: [UInt8]

        /// A buffer of `bytes`, which must be valid UTF-8 wherever a `SharedText` will point.
        package init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    private enum Storage: Sendable {
        case string(String)
        case bytes(Buffer, start: UInt32, count: UInt32)
    }

    private let storage: Storage

    /// Text held as a `String`.
    package init(_ string: String) { storage = .string(string) }

    /// `count` bytes of `buffer` from `start`: they must be complete, valid UTF-8.
    package init(_ buffer: Buffer, start: Int, count: Int) {
        storage = .bytes(buffer, start: UInt32(start), count: UInt32(count))
    }

    /// The text as a `String`.
    package var string: String {
        switch storage {
        case .string(let string): return string
        case .bytes: return withUTF8 { String(decoding: $0, as: UTF8.self) }
        }
    }

    package var description: String { string }

    /// Calls `body` with the text's UTF-8 bytes (valid UTF-8; the pointer lives only during the call).
    package func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        switch storage {
        case .string(var string):
            return try string.withUTF8(body)
        case .bytes(let buffer, let start, let count):
            return try buffer.bytes.withUnsafeBufferPointer { all in
                try body(UnsafeBufferPointer(rebasing: all[Int(start)..<Int(start) + Int(count)]))
            }
        }
    }

    package static func == (lhs: SharedText, rhs: SharedText) -> Bool { lhs.string == rhs.string }

    package func hash(into hasher: inout Hasher) { hasher.combine(string) }
}
