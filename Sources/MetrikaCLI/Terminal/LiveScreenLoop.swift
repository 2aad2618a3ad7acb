import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaUseCases

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The full-screen side of `metrika live`: takes the terminal, refreshes the board every `every`
/// minutes (and on `r`), draws the selected counter, and answers the keys (q and Ctrl-C quit, Tab
/// and ← → switch, ? the key list) and SIGWINCH (redraw at the new size). Everything arrives as one
/// stream of events handled on this task, so the screen has one writer. Whatever ends it — a key, a
/// signal, an error thrown — the terminal is restored before `run` returns or throws, so an error
/// reaches the person as the CLI's usual line below their shell's text.
struct LiveScreenLoop {
    let board: LiveBoard
    let screen: TerminalScreen
    let every: Int
    let colour: Bool
    let context: CLIContext

    enum Event: Sendable {
        case key(TerminalKey)
        case resize
        case signal(Int32)
        case tick
        case refreshed([LiveBoard.Outcome])
        case refreshFailed(any Error)
    }

    /// What is on screen between events.
    struct State {
        var selected = 0
        var showKeys = false
        var refreshing = false
        var refreshes = 0
        var snapshots: [Int: LiveSnapshot] = [:]
        var failures: [Int: String] = [:]
    }

    /// Runs until q, Ctrl-C or a signal; returns 0 for a key, throws `Interruption` for a signal and
    /// the first failure when the very first refresh fails for every counter.
    func run() async throws -> Int32 {
        let (events, continuation) = AsyncStream<Event>.makeStream()
        // The signals are caught before the screen is taken: a SIGTERM in between would otherwise end
        // the process with the terminal raw and on the alternate screen.
        let resize = SignalTrap([SIGWINCH]) { _ in continuation.yield(.resize) }
        let stop = SignalTrap([SIGINT, SIGTERM, SIGHUP]) { continuation.yield(.signal($0)) }
        do {
            try screen.enter()
        } catch {
            resize.cancel()
            stop.cancel()
            throw error
        }
        let keys = KeyReader { continuation.yield(.key($0)) }
        let interval = Double(every) * 60
        let timer = Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
                if Task.isCancelled { break }
                continuation.yield(.tick)
            }
        }
        var refresh: Task<Void, Never>?
        defer {
            refresh?.cancel()
            timer.cancel()
            keys.stop()
            resize.cancel()
            stop.cancel()
            continuation.finish()
            screen.restore()
        }

        var state = State()
        func startRefresh() {
            guard !state.refreshing else { return }
            state.refreshing = true
            refresh = Task { [board] in
                do {
                    continuation.yield(.refreshed(try await board.refresh()))
                } catch {
                    continuation.yield(.refreshFailed(error))
                }
            }
        }
        draw(state)
        startRefresh()

        for await event in events {
            switch event {
            case .key(let key):
                switch key {
                case .character("q"), .character("Q"), .interrupt:
                    return ExitCode.ok
                case .character("r"), .character("R"):
                    startRefresh()
                case .tab, .right, .down, .character("l"):
                    state.selected = (state.selected + 1) % board.counters.count
                case .backTab, .left, .up, .character("h"):
                    state.selected = (state.selected + board.counters.count - 1) % board.counters.count
                case .character("?"):
                    state.showKeys.toggle()
                case .escape:
                    state.showKeys = false
                default:
                    continue
                }
            case .resize:
                break
            case .signal(let number):
                throw Interruption(
                    signal: number,
                    account: "metrika live stopped by \(Self.signalName(number)); the terminal is restored.")
            case .tick:
                startRefresh()
            case .refreshed(let outcomes):
                state.refreshing = false
                state.refreshes += 1
                var failures: [any MetrikaFailure] = []
                for outcome in outcomes {
                    switch outcome {
                    case .snapshot(let snapshot):
                        state.snapshots[snapshot.counterID] = snapshot
                        state.failures[snapshot.counterID] = nil
                    case .failed(let counter, let failure):
                        failures.append(failure)
                        state.failures[counter.id] =
                            "Error: counter \(counter.id): \(ParameterNaming.cli.message(of: failure))"
                    }
                }
                // Nothing at all to show on the first refresh (a token refused, no network): the
                // usual error line after the terminal is restored, not an empty screen.
                if state.refreshes == 1, state.snapshots.isEmpty, let first = failures.first { throw first }
            case .refreshFailed(let error):
                state.refreshing = false
                throw error
            }
            draw(state)
        }
        return ExitCode.ok
    }

    /// Draws the selected counter at the terminal's size now.
    func draw(_ state: State) {
        let (width, height) = screen.size()
        let counter = board.counters[state.selected]
        var view = LiveView(width: width, height: height, colour: colour, shownBy: LiveCommand.shownBy)
        view.index = state.selected
        view.count = board.counters.count
        view.every = every
        view.interactive = true
        view.showKeys = state.showKeys
        view.message = state.failures[counter.id].map {
            TerminalText.line($0, hiding: context.secrets.all(environment: context.environment))
        }
        guard let snapshot = state.snapshots[counter.id] else {
            let waiting =
                view.message
                ?? "Loading today's hours of \(TerminalText.sanitize(counter.displayName)) · \(counter.id)…"
            screen.draw([LiveView.fit(waiting, width), "", LiveView.fit("q quit · ? keys", width)])
            return
        }
        screen.draw(view.lines(snapshot))
    }

    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(number)"
        }
    }
}
