import MetrikaModel

/// Colour for a person at a terminal: the `Error:` and `Warning:` labels of stderr lines, and the
/// direction of a change (green for good news, red for bad: see `GoodDirection`). Enabled only for a
/// terminal without NO_COLOR (https://no-color.org) or TERM=dumb — see `CLIContext.stderrColor` — so
/// pipes, files, cron mail and logs never receive an escape sequence. Only the label or the change is coloured; the
/// text
/// after it stays plain.
package struct TerminalStyle: Sendable {
    /// Whether escape sequences are written at all.
    package let enabled: Bool

    package init(enabled: Bool) {
        self.enabled = enabled
    }

    private static let reset = "\u{1B}[0m"

    /// `line` with a leading `Error:` in bold red or `Warning:` in bold yellow; other lines unchanged.
    package func label(_ line: String) -> String {
        guard enabled else { return line }
        for (label, colour) in [("Error:", "\u{1B}[1;31m"), ("Warning:", "\u{1B}[1;33m")] where line.hasPrefix(label) {
            return colour + label + Self.reset + line.dropFirst(label.count)
        }
        return line
    }

    /// A change coloured by what it means: green when it goes the `good` way, red when it goes the
    /// other (`+5.2%` visits green, `+1.5 pp` bounce rate red); no change, no number, or a metric
    /// whose good direction is `.neither`, unchanged.
    package func change(_ text: String, good: GoodDirection = .up) -> String {
        guard enabled, good != .neither, let sign = text.first else { return text }
        let rise: Bool
        switch sign {
        case "+": rise = true
        case "-", "\u{2212}": rise = false
        default: return text
        }
        return (rise == (good == .up) ? "\u{1B}[32m" : "\u{1B}[31m") + text + Self.reset
    }
}
