import MetrikaModel

/// Text on its way into the HTML of the mail and of `report --format html`.
///
/// Values keep the text the formatter gives the table (`ValueFormatter`: `12 345`, `17.8%`, `02:41`);
/// HTML only makes its spaces no-break, so that a phone's narrow column can never split `27 899` into
/// `27` and `899`. The no-break space is U+00A0 rather than the narrower U+202F: U+00A0 is in every
/// font and every mail client's encoding tables (it is Latin-1), while U+202F is missing from fonts
/// that mail readers still fall back to and then shows as a box. The terminal, CSV and JSON keep their
/// ordinary spaces (CSV none at all): this happens only here.
package enum HTMLText {
    /// U+00A0, the space inside numbers and dates in HTML.
    package static let noBreakSpace = "\u{00A0}"

    /// Element content: escaped (`XMLEscape`), nothing else changed; lines may break at its spaces.
    package static func text(_ raw: String) -> String { XMLEscape.text(raw) }

    /// An attribute value (alt text, aria-label): escaped for double quotes.
    package static func attribute(_ raw: String) -> String { XMLEscape.attribute(raw) }

    /// A value or a date that must stay on one line: escaped, every space made no-break.
    package static func unbroken(_ raw: String) -> String {
        XMLEscape.text(raw).replacingOccurrences(of: " ", with: noBreakSpace)
    }

    /// A sentence with numbers in it (an alert's line): escaped, and only the spaces that belong to a
    /// number made no-break — between digit groups (`77 035.78`) and before a currency sign (`… ₽`) —
    /// and each date (`Sun 2026-11-29`, whose hyphens are break opportunities) in a no-wrap span, so
    /// the sentence still wraps at its words but never inside a value.
    package static func prose(_ raw: String) -> String {
        proseNumbers(raw).replacing(#/(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) )?\d{4}-\d{2}-\d{2}/#) { match in
            "<span style=\"white-space:nowrap\">"
                + String(match.output).replacingOccurrences(of: " ", with: noBreakSpace) + "</span>"
        }
    }

    /// A note under a table (`… attached as metrika-1001-2026-10-26_2026-11-24.csv; metrika report
    /// --counter 1001 --from 2026-10-26 …`): as `prose`, and every word with a hyphen in it (a file
    /// name, an option, a date) in a no-wrap span: a browser breaks after a hyphen, which cut `--counter`
    /// and `2026-10-26` in two. The text is the same; only where lines may break changes.
    package static func note(_ raw: String) -> String {
        proseNumbers(raw).split(separator: " ", omittingEmptySubsequences: false).map { word in
            word.count > 1 && word.contains("-")
                ? "<span style=\"white-space:nowrap\">" + word + "</span>" : String(word)
        }.joined(separator: " ")
    }

    private static func proseNumbers(_ raw: String) -> String {
        let characters = Array(XMLEscape.text(raw))
        var result = ""
        result.reserveCapacity(characters.count)
        for (index, character) in characters.enumerated() {
            if character == " ", index > 0, index + 1 < characters.count, characters[index - 1].isASCII,
                characters[index - 1].isNumber
            {
                let next = characters[index + 1]
                if (next.isASCII && next.isNumber) || next.isCurrencySymbol {
                    result += noBreakSpace
                    continue
                }
            }
            result.append(character)
        }
        return result
    }

    /// `unbroken` in a span that keeps it on one line where a reader honours styles: also a range's
    /// dash (`18–24 Nov`), which is a line-break opportunity no-break spaces do not remove.
    package static func nowrap(_ raw: String) -> String {
        "<span style=\"white-space:nowrap\">" + unbroken(raw) + "</span>"
    }

    /// A sentence that says what a change means, for alt text and chart titles:
    /// `Visits fell 12.0% to 3 085`, `Bounce rate rose 0.9 pp to 17.8%`, `Visits unchanged at 3 085`,
    /// `Visits: 3 085` when there is nothing to compare with. `value` is the formatter's text.
    package static func changeSentence(title: String, value: String, change: Change?) -> String {
        guard let change else { return title + ": " + value }
        switch change {
        case .relative(let number), .points(let number):
            let magnitude = DecimalText.format(abs(number), fractionDigits: 1)
            if magnitude == "0.0" { return title + " unchanged at " + value }
            let unit = { if case .points = change { return " pp" } else { return "%" } }()
            return title + (number > 0 ? " rose " : " fell ") + magnitude + unit + " to " + value
        case .fromZero:
            return title + " rose from 0 to " + value
        case .missing:
            return title + ": " + value
        }
    }
}
