/// A key pressed at a terminal in raw mode, as the full-screen view reads it.
enum TerminalKey: Equatable, Sendable {
    /// A printable ASCII character (`q`, `r`, `?`).
    case character(Character)
    case tab, backTab, left, right, up, down, enter, escape
    /// Ctrl-C: in raw mode it arrives as a byte (0x03), not as SIGINT.
    case interrupt

    /// The keys in `bytes` as a terminal sends them: one byte per key, or an escape sequence
    /// (`ESC [ C` → right, `ESC O D` → left, `ESC [ Z` → Shift-Tab); a sequence it does not know is
    /// dropped whole, so its letters never count as keys (`ESC [ 1 ; 5 C`, Ctrl-→, is right, never a `C`). Bytes
    /// outside
    /// ASCII are skipped: no key of the view needs them.
    static func keys(in bytes: [UInt8]) -> [TerminalKey] {
        var keys: [TerminalKey] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x03: keys.append(.interrupt)
            case 0x09: keys.append(.tab)
            case 0x0A, 0x0D: keys.append(.enter)
            case 0x1B:
                guard index < bytes.count, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O") else {
                    keys.append(.escape)
                    continue
                }
                index += 1
                // Parameters and intermediates up to the final byte (0x40–0x7E).
                var final: UInt8?
                while index < bytes.count {
                    let next = bytes[index]
                    index += 1
                    if (0x40...0x7E).contains(next) {
                        final = next
                        break
                    }
                }
                switch final {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                case UInt8(ascii: "Z"): keys.append(.backTab)
                default: break
                }
            case 0x20...0x7E: keys.append(.character(Character(Unicode.Scalar(byte))))
            default: break
            }
        }
        return keys
    }
}
