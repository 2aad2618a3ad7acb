import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaServices
import MetrikaSystem

/// The world a command runs in. `CLIContext.live()` wires the real one; tests build their own.
package struct CLIContext: Sendable {
    /// Environment variables (METRIKA_TOKEN, METRIKA_API_URL, XDG_*, …).
    package var environment: [String: String]
    package var stdout: TextSink
    package var stderr: TextSink
    /// Reads all of standard input (for `login --token-stdin`); nil when there is none.
    package var readStandardInput: @Sendable () -> String?
    package var transport: any HTTPTransport
    /// Streamed exchanges: Logs API part downloads (signed and renewed like `transport`'s calls, see
    /// `Services.client`) and ClickHouse statements and inserts (no token).
    package var streamingTransport: any StreamingHTTPTransport
    package var now: @Sendable () -> Date
    package var sleep: @Sendable (Double) async throws -> Void
    package var stdoutIsTerminal: Bool
    package var stderrIsTerminal: Bool
    /// Columns of the terminal stdout is on, if it is one.
    package var terminalWidth: Int?
    /// Tokens and passwords `note` masks in every line it writes.
    package let secrets = KnownSecrets()
    /// The progress line of long work (on a terminal only; see `ProgressLine`).
    package let progressLine = ProgressLine()
    /// SVG → PNG for `chart --output FILE.png` and `mail` (default: rsvg-convert found via `environment`).
    package var rasterizer: any ChartRasterizer

    package init(
        environment: [String: String], stdout: TextSink, stderr: TextSink,
        readStandardInput: @escaping @Sendable () -> String? = { nil },
        transport: any HTTPTransport, streamingTransport: (any StreamingHTTPTransport)? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Double) async throws -> Void = {
            try await Task.sleep(nanoseconds: UInt64($0 * 1e9))
        },
        stdoutIsTerminal: Bool = false, stderrIsTerminal: Bool = false, terminalWidth: Int? = nil,
        rasterizer: (any ChartRasterizer)? = nil
    ) {
        self.environment = environment
        self.stdout = stdout
        self.stderr = stderr
        self.readStandardInput = readStandardInput
        self.transport = transport
        // A transport that streams too (libcurl's does) serves both, unless a test swaps this one.
        self.streamingTransport = streamingTransport ?? (transport as? any StreamingHTTPTransport) ?? CurlTransport()
        self.now = now
        self.sleep = sleep
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stderrIsTerminal = stderrIsTerminal
        self.terminalWidth = terminalWidth
        self.rasterizer = rasterizer ?? RSVGConvertRasterizer(environment: environment)
    }

    /// The real process: its environment, file descriptors 0–2, libcurl, the system clock.
    package static func live() -> CLIContext {
        let stdoutIsTerminal = isatty(1) == 1
        let environment = ProcessInfo.processInfo.environment
        let pinned = environment["METRIKA_NOW"].flatMap(parseInstant)
        let waitScale = testRetryScale(environment)
        let context = CLIContext(
            environment: environment,
            stdout: TextSink(fileDescriptor: 1),
            stderr: TextSink(fileDescriptor: 2),
            readStandardInput: {
                let data = FileHandle.standardInput.readDataToEndOfFile()
                return String(data: data, encoding: .utf8)
            },
            transport: CurlTransport(),
            streamingTransport: CurlTransport(),
            now: { pinned ?? Date() },
            sleep: { try await Task.sleep(nanoseconds: UInt64($0 * waitScale * 1e9)) },
            stdoutIsTerminal: stdoutIsTerminal,
            stderrIsTerminal: isatty(2) == 1,
            terminalWidth: stdoutIsTerminal ? terminalColumns() : nil
        )
        if let columns = terminalColumns(fileDescriptor: 2) { context.progressLine.width = columns }
        context.progressLine.isProcessStderr = true
        return context
    }

    /// `METRIKA_TEST_RETRY_SCALE`, for metrika's own end-to-end tests only (docs/reliability.md; not a
    /// user setting, so not in `--help`): a number from 0 to 1 that multiplies every real wait of the
    /// built binary (retry backoff, Logs API and device-login polls), so that a drill of the
    /// production retry policy does not sleep for minutes. The policy, its caps, the attempts and every
    /// message stay as they are; only the sleeping is shorter. Unset or anything else: 1.
    /// It counts only while METRIKA_API_URL (and METRIKA_OAUTH_URL, when set) point at this machine's
    /// loopback, where the simulator runs: never against Yandex's servers, which the waits protect.
    static func testRetryScale(_ environment: [String: String]) -> Double {
        guard let text = environment["METRIKA_TEST_RETRY_SCALE"], let scale = Double(text), scale >= 0, scale <= 1
        else { return 1 }
        func isLoopback(_ variable: String) -> Bool {
            guard let value = environment[variable],
                let host = URL(string: value.trimmingCharacters(in: .whitespaces))?.host
            else { return false }
            return PlainHTTPPolicy.isLoopback(host)
        }
        guard isLoopback("METRIKA_API_URL"), environment["METRIKA_OAUTH_URL"] == nil || isLoopback("METRIKA_OAUTH_URL")
        else { return 1 }
        return scale
    }

    /// Parses `METRIKA_NOW` (`2026-11-29T12:00:00Z`, an ISO 8601 instant with `Z` or an offset):
    /// the time metrika pretends it is, for reproducible reports and tests.
    static func parseInstant(_ text: String) -> Date? {
        RFC3339.parse(text.trimmingCharacters(in: .whitespaces))
    }

    private static func terminalColumns(fileDescriptor: Int32 = 1) -> Int? {
        var size = winsize()
        if ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            return columns
        }
        return nil
    }

    /// Writes a line to stderr (warnings, notes, every `Error:` line, the `--verbose` log). The one
    /// choke point for text that may quote a server: the line passes `TerminalText` (control
    /// characters visible, bidi controls removed, at most 1,000 characters) with every known secret
    /// masked, so neither terminal escapes nor a token a server echoed reach the terminal or a log. On a
    /// colour terminal its `Error:` or `Warning:` label is coloured (after sanitizing: ours, not the server's).
    /// A progress line on the screen is erased first and drawn again below it.
    package func note(_ line: String) {
        progressLine.interrupt(
            with: stderrStyle.label(TerminalText.line(line, hiding: secrets.all(environment: environment))) + "\n",
            context: self)
    }

    /// Whether colour may be used on stderr: a terminal, NO_COLOR unset or empty, TERM not `dumb`.
    package var stderrColor: Bool {
        stderrIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// Colour for stderr, on or off per `stderrColor`.
    package var stderrStyle: TerminalStyle { TerminalStyle(enabled: stderrColor) }
}
