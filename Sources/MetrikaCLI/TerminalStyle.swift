/// Colour for a person at a terminal: the `Error:` and `Warning:` labels of stderr lines, and the
/// sign of a change (green up, red down). Enabled only for a terminal without NO_COLOR
/// (https://no-color.org) or TERM=dumb — see `CLIContext.stderrColor` — so pipes, files, cron mail
/// and logs never receive an escape sequence. Only the label or the change is coloured; the text
/// after it stays plain.
public struct TerminalStyle: Sendable {
    /// Whether escape sequences are written at all.
    public let enabled: Bool

    public init(enabled: Bool) {
        self.enabled = enabled
    }

    private static let reset = "\u{1B}[0m"

    /// `line` with a leading `Error:` in bold red or `Warning:` in bold yellow; other lines unchanged.
    public func label(_ line: String) -> String {
        guard enabled else { return line }
        for (label, colour) in [("Error:", "\u{1B}[1;31m"), ("Warning:", "\u{1B}[1;33m")] where line.hasPrefix(label) {
            return colour + label + Self.reset + line.dropFirst(label.count)
        }
        return line
    }

    /// A change such as `+5.2%` in green or `-0.9 pp` (or `−0.9 pp`) in red; no change, or no
    /// number, unchanged.
    public func change(_ text: String) -> String {
        guard enabled, let sign = text.first else { return text }
        switch sign {
        case "+": return "\u{1B}[32m" + text + Self.reset
        case "-", "\u{2212}": return "\u{1B}[31m" + text + Self.reset
        default: return text
        }
    }
}
