/// Escaping for text that goes into XML (SVG, and the HTML part of the mail).
///
/// Counter names, sites and dimension values come from outside metrika and may hold markup such as
/// `<script>`, ampersands, quotes or control characters. Everything that is not markup metrika wrote
/// itself passes through here, so such text can only ever end up as inert character data.
package enum XMLEscape {
    /// Escapes text for element content: `&`, `<` and `>` become entities, characters that XML 1.0
    /// forbids are dropped.
    package static func text(_ raw: String) -> String {
        escape(raw, quotes: false)
    }

    /// Escapes text for a double- or single-quoted attribute value: like `text(_:)`, and also quotes,
    /// and tab/newline/CR as character references (an attribute would otherwise normalize them to spaces).
    package static func attribute(_ raw: String) -> String {
        escape(raw, quotes: true)
    }

    /// Whether a scalar may appear in an XML 1.0 document at all (the `Char` production).
    package static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: return true
        case 0x20...0xD7FF: return true
        case 0xE000...0xFFFD: return true
        case 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// The text with every scalar XML 1.0 forbids removed (C0 controls except tab/LF/CR, U+FFFE, U+FFFF).
    package static func removingIllegalCharacters(_ raw: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars where isAllowed(scalar) { scalars.append(scalar) }
        return String(scalars)
    }

    private static func escape(_ raw: String, quotes: Bool) -> String {
        var result = ""
        result.reserveCapacity(raw.utf8.count)
        for scalar in raw.unicodeScalars {
            guard isAllowed(scalar) else { continue }
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            // `>` only matters after `]]`, but escaping it always is simpler to reason about.
            case ">": result += "&gt;"
            case "\"" where quotes: result += "&quot;"
            case "'" where quotes: result += "&apos;"
            case "\t" where quotes: result += "&#9;"
            case "\n" where quotes: result += "&#10;"
            case "\r": result += "&#13;" // a literal CR would be normalized away by any parser
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
