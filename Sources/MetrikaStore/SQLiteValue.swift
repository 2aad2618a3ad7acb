/// A value bound to, or read from, an SQLite statement: the four storage classes metrika uses.
enum SQLiteValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    /// The value as an integer, if it is one (reals are not truncated silently).
    var int: Int? {
        if case .integer(let value) = self { return Int(value) }
        return nil
    }

    /// The value as a double: integers are widened, because SQLite may store `1.0` as `1` in a REAL column
    /// with integer affinity rules.
    var double: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        default: return nil
        }
    }

    /// The value as text, if it is text.
    var string: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// An optional double: nil becomes SQL NULL.
    static func real(_ value: Double?) -> SQLiteValue { value.map(SQLiteValue.real) ?? .null }

    /// An integer from a Swift `Int`.
    static func int(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }

    /// A boolean as 0 or 1 (SQLite has no boolean type).
    static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }
}
