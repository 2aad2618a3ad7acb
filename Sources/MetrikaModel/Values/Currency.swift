/// The currency of a money value: an ISO 4217-style code of three capital letters (`RUB`), or `YND`,
/// Yandex's conventional unit. Packed into four bytes so that a `Quantity` carrying one stays small.
///
/// `--currency` accepts the four the Reporting API documents (`known`); a counter's own currency,
/// which the API echoes in `query.currency`, can be any code (real answers carry `BYN`), so any three
/// capital letters are a currency here, printed with their code when metrika knows no sign.
package struct Currency: Hashable, Sendable, CustomStringConvertible, Comparable {
    private let packed: UInt32

    /// Three capital ASCII letters; nil for anything else (`rub` is upper-cased first).
    package init?(code: String) {
        let upper = code.trimmingSpaces.uppercased()
        let bytes = Array(upper.utf8)
        guard bytes.count == 3, bytes.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            return nil
        }
        packed = UInt32(bytes[0]) << 16 | UInt32(bytes[1]) << 8 | UInt32(bytes[2])
    }

    /// `RUB`.
    package var code: String {
        let bytes = [
            UInt8(truncatingIfNeeded: packed >> 16), UInt8(truncatingIfNeeded: packed >> 8),
            UInt8(truncatingIfNeeded: packed)
        ]
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What follows a value in tables and charts: `₽`, `$`, `€`, otherwise the code (`YND`, `BYN`).
    package var sign: String {
        switch code {
        case "RUB": return "₽"
        case "USD": return "$"
        case "EUR": return "€"
        default: return code
        }
    }

    /// The lower-case code of CSV and JSON column names: `revenue_rub`.
    package var columnSuffix: String { code.lowercased() }

    /// The four bytes a `Quantity` keeps instead of an optional currency (0 is none), so that a value
    /// with a currency is no larger than one without: 24 bytes either way.
    var packedValue: UInt32 { packed }

    init?(packed: UInt32) {
        guard packed != 0 else { return nil }
        self.packed = packed
    }

    package var description: String { code }

    package static func < (lhs: Currency, rhs: Currency) -> Bool { lhs.packed < rhs.packed }

    package static let rub = Currency(code: "RUB")!
    package static let usd = Currency(code: "USD")!
    package static let eur = Currency(code: "EUR")!
    package static let ynd = Currency(code: "YND")!

    /// The values of the Reporting API's `currency` parameter (`--currency`).
    package static let known: [Currency] = [rub, usd, eur, ynd]
}
