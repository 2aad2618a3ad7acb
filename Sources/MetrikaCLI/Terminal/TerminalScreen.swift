import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal taken over for a full-screen view (`metrika live`): raw input (no echo, no line
/// editing, Ctrl-C as a key), the alternate screen, the cursor hidden. `restore` gives all of it back
/// exactly as it was — the saved termios, the cursor shown, the main screen with the shell's text —
/// and is safe to call more than once, so every exit path (q, Ctrl-C, SIGTERM, an error) can call it.
/// The escapes go through stdout's `TextSink` (the one writer), flushed at once.
final class TerminalScreen: Sendable {
    private let input: Int32
    private let output: TextSink
    private let outputDescriptor: Int32
    /// The termios found at `enter`, to put back; nil when not entered (or already restored).
    private let saved = Mutex<termios?>(nil)

    /// Enter the alternate screen, hide the cursor.
    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"
    /// Reset attributes, show the cursor, leave the alternate screen.
    static let leaveSequence = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    init(input: Int32 = 0, output: TextSink, outputDescriptor: Int32 = 1) {
        self.input = input
        self.output = output
        self.outputDescriptor = outputDescriptor
    }

    /// Whether both ends are a terminal: keys can be read and a screen drawn.
    static func isInteractive(input: Int32 = 0, output: Int32 = 1) -> Bool {
        isatty(input) == 1 && isatty(output) == 1
    }

    /// Raw mode, the alternate screen, the cursor hidden. Throws `CLIFailure.terminal` when the
    /// terminal refuses (then nothing was changed).
    func enter() throws {
        var original = termios()
        guard tcgetattr(input, &original) == 0 else { throw CLIFailure.terminal(errno: errno) }
        var raw = original
        // Keys one by one, unechoed; Ctrl-C, Ctrl-Z and Ctrl-\ as bytes (the view quits on Ctrl-C
        // itself, restoring first); no flow control, no CR→NL. Output processing stays on.
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else { throw CLIFailure.terminal(errno: errno) }
        saved.withLock { $0 = original }
        output.write(Self.enterSequence)
        output.flush()
    }

    /// Gives the terminal back as `enter` found it; does nothing when not entered. Keys typed and
    /// not read are discarded (TCSAFLUSH), so they do not reach the shell as a command.
    func restore() {
        guard
            var original = saved.withLock({ state -> termios? in
                defer { state = nil }
                return state
            })
        else { return }
        output.write(Self.leaveSequence)
        output.flush()
        _ = tcsetattr(input, TCSAFLUSH, &original)
    }

    /// Columns and lines of the terminal now (80×24 when it will not say).
    func size() -> (width: Int, height: Int) {
        var size = winsize()
        if ioctl(outputDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 {
            return (Int(size.ws_col), Int(size.ws_row))
        }
        return (80, 24)
    }

    /// Draws `lines` from the top left, each line's old rest and everything below erased, in one write.
    func draw(_ lines: [String]) {
        output.write(Self.frame(lines))
        output.flush()
    }

    /// The bytes of one frame: home, each line followed by erase-to-end-of-line, erase below.
    static func frame(_ lines: [String]) -> String {
        "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    }
}
