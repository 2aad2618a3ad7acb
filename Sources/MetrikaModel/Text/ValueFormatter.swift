/// Turns values with units into the text a person reads or the API's own numbers (`--raw`, JSON).
///
/// The one number text: the table, CSV, charts' value labels and alt text, the HTML page, the mail
/// and alert lines all write a value through `format` (or `ValueBytes`, its byte-for-byte fast path),
/// so one value reads the same everywhere — rounded by `DecimalText`'s one rule (the shortest decimal,
/// half away from zero: 2.385 → `2.39`), grouped by the one grouper (`DigitGroups`). CSV differs only
/// where docs/reports.md says (no grouping, no currency sign, `h:mm:ss` always).
package enum ValueFormatter {
    /// What a missing value (`null`) looks like in a table.
    package static let missingInTable = "—"

    /// The normalized text of a value: counts as integers, percents with one decimal and `%`,
    /// seconds as `mm:ss` (`h:mm:ss` from one hour), pages per visit with two decimals.
    /// `grouping` separates thousands with a space (`12 345`) for tables. Money has two decimals and,
    /// with `currencySign` (tables), its currency's sign after a space: `1 250 000.00 ₽`; CSV keeps the
    /// plain number (the currency is in its column name). Nil → `missing`.
    package static func format(_ quantity: Quantity, grouping: Bool, missing: String, currencySign: Bool = false)
        -> String
    {
        // Non-finite values never come from the API (the decoder refuses them) but can arise from
        // arithmetic on huge ones; they are shown as missing, never as a made-up number.
        guard let value = quantity.value, value.isFinite else { return missing }
        switch quantity.unit {
        case .count:
            let text = DecimalText.format(value, fractionDigits: 0)
            return grouping ? DigitGroups.group(text) : text
        case .percent:
            return DecimalText.format(value, fractionDigits: 1) + "%"
        case .seconds:
            return duration(value)
        case .pagesPerVisit:
            return DecimalText.format(value, fractionDigits: 2)
        case .number:
            let text = DecimalText.format(value, fractionDigits: 2)
            return grouping ? DigitGroups.group(text) : text
        case .money:
            let text = DecimalText.format(value, fractionDigits: 2)
            let number = grouping ? DigitGroups.group(text) : text
            guard currencySign, let currency = quantity.currency else { return number }
            return number + " " + currency.sign
        }
    }

    /// The API's number as is (seconds, percent numbers): shortest exact decimal; empty when nil.
    package static func raw(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        return DecimalText.shortest(value)
    }

    /// Seconds as `mm:ss`, or `h:mm:ss` from one hour, rounded to the nearest second (half up):
    /// 59.4 → `00:59`, 59.5 → `01:00`, 3599.5 → `1:00:00`, 86399 → `23:59:59`.
    /// `alwaysHours` writes `0:03:04` below one hour too: CSV does, because spreadsheets read `03:04`
    /// as three hours four minutes but `0:03:04` as the duration it is.
    package static func duration(_ seconds: Double, alwaysHours: Bool = false) -> String {
        let negative = seconds < 0
        let rounded = DecimalText.format(abs(seconds), fractionDigits: 0)
        guard let total = Int(rounded) else { return (negative ? "-" : "") + rounded + " s" }
        let hours = total / 3600
        let minutes = (total % 3600) / 60
        let secs = total % 60
        let sign = negative && total > 0 ? "-" : ""
        if hours > 0 || alwaysHours { return "\(sign)\(hours):\(two(minutes)):\(two(secs))" }
        return "\(sign)\(two(minutes)):\(two(secs))"
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
