import Foundation
import MetrikaAPI
import MetrikaModel
import Synchronization

/// The one line of progress a person at a terminal sees during long work — `sync`'s counter n/N and
/// requests, a retried request's wait and why, the rows a dimension report has fetched so far — that
/// is redrawn in place and erased when done. Only on a terminal: when stderr is a pipe, a file or
/// cron's mail, nothing of it is ever written (see `CLIContext.progress`).
///
/// Every line passes `TerminalText` with the known secrets masked (a wait quotes the server's quota
/// name), and is cut to the terminal's width so it never wraps (a wrapped line cannot be erased).
/// `CLIContext.note` erases it before writing a line of its own and draws it again after.
package final class ProgressLine: Sendable {
    private struct State {
        /// The status shown (nil: nothing).
        var status: String?
        /// A retry wait shown after the status, until the request is sent again.
        var waiting: RetryWait?
        /// When the wait began, for the seconds left.
        var waitStart: UInt64 = 0
        /// Redraws the wait once a second, so `waiting 4 s` counts down to 1.
        var countdown: (any DispatchSourceTimer)?
        /// Whether a line is on the screen now.
        var drawn = false
        var lastDraw: UInt64 = 0
        var width = 80
        var isProcessStderr = false
    }

    private let state = Mutex(State())

    /// Columns of the terminal stderr is on (set by `CLIContext.live()`); 80 when unknown.
    package var width: Int {
        get { state.withLock { $0.width } }
        set { state.withLock { $0.width = newValue } }
    }

    /// Whether stderr is the process's file descriptor 2 (`CLIContext.live()`): then SIGINT and
    /// SIGTERM erase a drawn line before the process ends (`ProgressLine.eraseOnSignals`).
    package var isProcessStderr: Bool {
        get { state.withLock { $0.isProcessStderr } }
        set { state.withLock { $0.isProcessStderr = newValue } }
    }

    /// Redraws at most this often (a 2,600-counter sync must not cost 2,600 terminal writes a second).
    static let minimumInterval: UInt64 = 100_000_000

    package init() {}

    /// Shows `text` as the status (throttled unless `force`).
    func show(_ text: String, force: Bool, context: CLIContext) {
        guard context.progressEnabled else { return }
        state.withLock { state in
            state.status = text
            let now = DispatchTime.now().uptimeNanoseconds
            guard force || !state.drawn || now - state.lastDraw >= Self.minimumInterval else { return }
            state.lastDraw = now
            Self.draw(&state, context)
        }
    }

    /// Shows a retry wait, counting its seconds down once a second (nil: the request is being sent
    /// again).
    func wait(_ wait: RetryWait?, context: CLIContext) {
        guard context.progressEnabled else { return }
        state.withLock { state in
            state.waiting = wait
            state.waitStart = DispatchTime.now().uptimeNanoseconds
            state.countdown?.cancel()
            state.countdown = nil
            if let wait, wait.seconds >= 2 {
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.schedule(deadline: .now() + 1, repeating: 1)
                timer.setEventHandler { [weak self] in self?.tick(context) }
                timer.resume()
                state.countdown = timer
            }
            if wait == nil && state.status == nil {
                Self.erase(&state, context)
            } else {
                Self.draw(&state, context)
            }
        }
    }

    /// One second of a wait has passed: the line again, one second less.
    private func tick(_ context: CLIContext) {
        state.withLock { state in
            guard state.waiting != nil else { return }
            Self.draw(&state, context)
        }
    }

    /// The wait as shown: `waiting 4 s: quota_requests_by_ip, attempt 2/5`, the seconds those left.
    static func text(of wait: RetryWait, elapsedSeconds: Double) -> String {
        let left =
            wait.seconds >= 2
            ? RetryWait(
                seconds: max(1, (wait.seconds - elapsedSeconds).rounded(.up)), reason: wait.reason,
                nextAttempt: wait.nextAttempt, maxAttempts: wait.maxAttempts) : wait
        return "waiting \(left.secondsText) s: \(wait.reason), attempt \(wait.nextAttempt)/\(wait.maxAttempts)"
    }

    /// Erases the line and forgets it: the work is done.
    func finish(context: CLIContext) {
        state.withLock { state in
            state.status = nil
            state.waiting = nil
            state.countdown?.cancel()
            state.countdown = nil
            Self.erase(&state, context)
        }
    }

    /// Writes `line` (already a complete stderr line) with the progress erased first and drawn again after.
    func interrupt(with line: String, context: CLIContext) {
        state.withLock { state in
            let wasDrawn = state.drawn
            Self.erase(&state, context)
            context.stderr.write(line)
            if wasDrawn { Self.draw(&state, context) }
        }
    }

    /// Draws the line; called with the lock held.
    private static func draw(_ state: inout State, _ context: CLIContext) {
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - state.waitStart) / 1e9
        let text = [state.status, state.waiting.map { Self.text(of: $0, elapsedSeconds: elapsed) }].compactMap { $0 }
            .joined(separator: " · ")
        guard !text.isEmpty else { return erase(&state, context) }
        let clean = Self.fit(
            TerminalText.line(text, hiding: context.secrets.all(environment: context.environment)),
            columns: max(10, state.width - 1))
        if state.isProcessStderr { Self.eraseOnSignals }
        context.stderr.write("\r" + clean + "\u{1B}[K")
        context.stderr.flush()
        state.drawn = true
        if state.isProcessStderr { Self.onScreen = 1 }
    }

    /// Erases the line; called with the lock held.
    private static func erase(_ state: inout State, _ context: CLIContext) {
        guard state.drawn else { return }
        context.stderr.write("\r\u{1B}[K")
        context.stderr.flush()
        state.drawn = false
        if state.isProcessStderr { Self.onScreen = 0 }
    }

    // MARK: - Signals

    /// Whether a line is on the terminal now, for the signal handler (which may read nothing else).
    nonisolated(unsafe) static var onScreen: Int32 = 0

    /// Ctrl-C or a SIGTERM while a line is drawn leaves the shell prompt after it: the handler erases
    /// it (one async-signal-safe `write`), then ends the process by the same signal as before. A
    /// signal the process inherited as ignored (a background job of a script) stays ignored.
    /// Installed once, at the first line drawn.
    static let eraseOnSignals: Void = {
        for signo in [SIGINT, SIGTERM] {
            let previous = signal(signo, eraseAndDie)
            if let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                signal(signo, SIG_IGN)
            }
        }
    }()
}

/// The SIGINT/SIGTERM handler of `ProgressLine.eraseOnSignals`: async-signal-safe calls only.
private func eraseAndDie(_ signo: Int32) {
    if ProgressLine.onScreen != 0 {
        let erase: StaticString = "\r\u{1B}[K"
        _ = write(2, erase.utf8Start, erase.utf8CodeUnitCount)
    }
    signal(signo, SIG_DFL)
    raise(signo)
}

extension ProgressLine {
    /// `text` cut to `columns` terminal columns (wide characters count two), `…` marking a cut.
    static func fit(_ text: String, columns: Int) -> String {
        guard displayWidth(of: text) > columns else { return text }
        var result = ""
        var used = 0
        for character in text {
            let width = displayWidth(of: character)
            if used + width > columns - 1 { break }
            result.append(character)
            used += width
        }
        return result + "…"
    }
}

extension CLIContext {
    /// Whether progress is drawn: stderr is a terminal that can erase a line (not TERM=dumb).
    package var progressEnabled: Bool { stderrIsTerminal && environment["TERM"] != "dumb" }

    /// Shows a progress status on stderr (a terminal only; redraws throttled unless `force`).
    package func progress(_ text: String, force: Bool = false) {
        progressLine.show(text, force: force, context: self)
    }

    /// Erases the progress line: call before writing results, and when the work is done.
    package func endProgress() {
        progressLine.finish(context: self)
    }

    /// What a retried request shows while it waits: `waiting 4 s: quota_requests_by_ip, attempt 2/5`,
    /// counting down once a second.
    package func showRetryWait(_ wait: RetryWait?) {
        progressLine.wait(wait, context: self)
    }
}
